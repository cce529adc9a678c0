#pragma once

#include "corpus/finding_store.h"
#include "support/tool_paths.h"
#include "support/torch_environments.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace workflows {

// What a finding is on a baseline torch release: found again there, or new since.
struct BaselineLabel {
  std::string finding_id;
  std::string baseline_torch;
  std::string label;              // "regression since 2.14.1", "also in 2.14.1", ...
  std::string baseline_signature; // what the baseline gave; "" when it passed
};

// Runs each finding's smallest case once on the baseline release and labels the finding. A
// finding about a TU (static, matrix) is labelled by its case too, only when the case itself
// fails. The label is stored in the finding's folder as baseline-<torch>.json.
std::vector<BaselineLabel>
LabelAgainstBaseline(const corpus::FindingStore &store, const std::vector<std::string> &finding_ids,
                     const support::TorchEnvironment &baseline, const support::ToolPaths &paths,
                     std::chrono::seconds case_timeout, const std::filesystem::path &scratch);

} // namespace workflows
