#pragma once

#include "corpus/finding.h"
#include "corpus/matrix_record.h"
#include "reducers/case/case_reducer.h"
#include "support/tool_paths.h"
#include "workflows/reduce_case.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iosfwd>
#include <string>

namespace workflows {

// A matrix finding after its case is reduced: the reduced case's last run (OUT/reduced-run)
// gives the TU and its commands; repro.sh shows the divergence and is run once; a compiler
// divergence's TU then goes through the source reducer, and a Python-wrapper kernel's runtime
// divergence becomes a program reduced on the compilers whose builds ran. Returns the exit
// status and fills in the report.
// repro.sh of a matrix finding (templates/matrix_repro.sh.tmpl): the row's TU, kernel.cpp beside
// the script, built by each compiler with the command the matrix ran; with `replay` each module
// is then loaded and run on the recorded calls (calls.pt, by kernel_replay.py beside it) with
// `python`. One line per compiler; exit 1 while they disagree, 0 when they agree.
std::string MatrixReproScript(const corpus::MatrixRow &row, bool replay,
                              const std::string &signature, const std::filesystem::path &python);

// A main for a Python-wrapper kernel's TU (templates/kernel_main.cpp.tmpl): kernel() once on
// the recorded call `call` (first_call.py's JSON; its storages in `folder`), then the first
// elements and a hash of each tensor argument's storage, printed.
std::string KernelMain(const nlohmann::json &call, const std::filesystem::path &folder);

int FinishMatrixReduction(const ReduceOptions &options, const std::filesystem::path &out_dir,
                          const reducers::CaseReduction &reduction, corpus::FindingKind kind,
                          const support::ToolPaths &paths, nlohmann::json &report,
                          std::ostream &out);

} // namespace workflows
