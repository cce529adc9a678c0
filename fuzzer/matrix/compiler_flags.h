#pragma once

#include "fuzzer/matrix/compilers.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuzzer::matrix {

enum class FlagFix { kDrop, kAppend };

// One adjustment of Inductor's captured command for another compiler family.
struct CompilerFlagRule {
  CompilerFamily target;
  std::string_view flag; // the captured flag it is about (exact match)
  FlagFix fix;           // drop the flag, or keep it and append `extra`
  std::vector<std::string> extra;
  std::string_view why;
};

// Where OpenMP lives for Clang on this machine: Debian has libomp's headers and library for
// one LLVM version at a time, which every Clang can use.
struct OpenMpInstall {
  std::string include_dir; // holds omp.h and nothing else
  std::string library_dir; // holds libomp.so
};
OpenMpInstall FindOpenMp();

// The one table of adjustments, given where OpenMP is. Tested rule by rule.
std::vector<CompilerFlagRule> CompilerFlagRules(const OpenMpInstall &openmp);

// Inductor's captured argv rebuilt for `compiler`: the compiler, the table's adjustments,
// the source replaced by `source`, the output by `output`.
std::vector<std::string> CommandForCompiler(const std::vector<std::string> &captured,
                                            const Compiler &compiler,
                                            const std::filesystem::path &source,
                                            const std::filesystem::path &output,
                                            const OpenMpInstall &openmp);

} // namespace fuzzer::matrix
