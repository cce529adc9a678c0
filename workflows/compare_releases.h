#pragma once

#include "support/shared_options.h"
#include "support/tool_paths.h"

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace workflows {

struct CompareReleasesOptions {
  std::string baseline_torch;                // a torch version or a venv folder
  std::string candidate_torch;               // the same
  std::vector<std::filesystem::path> corpus; // case files and folders of them
  std::optional<std::uint64_t> cases;        // generated cases instead of (or with) a corpus
  std::uint64_t seed = 1;
  std::optional<std::filesystem::path> report_dir;
  long case_timeout_seconds = support::options::CaseTimeout::Default();
  std::string command_line; // recorded in the reports
};

// `inductor-fuzz compare --baseline-torch A --candidate-torch B`: every case on both torch
// releases, classified (same, regressed, fixed, failing-differently, both-failing), and its
// generated C++ compared kernel by kernel. Exit 1 on any regression.
int CompareTorchReleases(const CompareReleasesOptions &options, const support::ToolPaths &paths,
                         std::ostream &out);

} // namespace workflows
