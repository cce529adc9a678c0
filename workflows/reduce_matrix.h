#pragma once

#include "corpus/finding.h"
#include "reducers/case/case_reducer.h"
#include "support/tool_paths.h"
#include "workflows/reduce_case.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iosfwd>

namespace workflows {

// A matrix finding after its case is reduced: the reduced case's last run (OUT/reduced-run)
// gives the TU and its commands; repro.sh shows the divergence and is run once; a compiler
// divergence's TU then goes through the source reducer, and a Python-wrapper kernel's runtime
// divergence becomes a program reduced on the compilers whose builds ran. Returns the exit
// status and fills in the report.
int FinishMatrixReduction(const ReduceOptions &options, const std::filesystem::path &out_dir,
                          const reducers::CaseReduction &reduction, corpus::FindingKind kind,
                          const support::ToolPaths &paths, nlohmann::json &report,
                          std::ostream &out);

} // namespace workflows
