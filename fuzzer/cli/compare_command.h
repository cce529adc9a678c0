#pragma once

#include "fuzzer/support/tool_paths.h"

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace fuzzer::cli {

struct CompareOptions {
  std::string baseline;
  std::string candidate;
  std::vector<std::filesystem::path> corpus; // run-case outputs and/or case files
  std::optional<std::filesystem::path> report_dir;
  unsigned jobs = 2;
  long timeout_seconds = 600;
  std::string command_line; // recorded in the reports
};

// `inductor-fuzz compare`: the compiler-upgrade check. Exit 1 on any regression (a build, a
// load or a recorded kernel call that the baseline passes and the candidate does not).
int CompareCommand(const CompareOptions &options, const support::ToolPaths &paths,
                   std::ostream &out);

} // namespace fuzzer::cli
