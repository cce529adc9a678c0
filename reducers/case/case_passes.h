#pragma once

#include "corpus/case.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace reducers {

// What the passes need besides the case: the interpreter and the source of the syntax-tree
// passes (mask_ast.py of the worker's package, standard library only, run by `python -c`).
struct PassContext {
  std::filesystem::path python = "python3";
  std::string mask_ast_source;
};

// A deterministic reduction pass: every case one change away from `c`, the biggest cut first.
// Passes never run anything; which of their candidates still fail is the reducer's business.
struct CasePass {
  std::string_view name;
  std::string_view what;
  std::vector<corpus::Case> (*candidates)(const corpus::Case &c, const PassContext &context);
};

// The one registration list.
const std::vector<CasePass> &CasePasses();
const CasePass *FindCasePass(std::string_view name);

// The pass order: a JSON file {"case_passes": [name, ...]}; unknown names are an InputError.
std::vector<const CasePass *> LoadCasePassOrder(const std::filesystem::path &file);

// The size the reducer minimises first: expression nodes in mask_mod and score_mod.
int ExpressionNodes(const corpus::Case &c, const PassContext &context);

// The elements of every captured tensor and every input the case makes.
std::int64_t CaseVolume(const corpus::Case &c);

} // namespace reducers
