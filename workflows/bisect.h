#pragma once

#include "support/shared_options.h"
#include "support/tool_paths.h"

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace workflows {

struct BisectOptions {
  std::filesystem::path input;    // a case file or a finding's folder
  std::vector<std::string> torch; // versions or venv folders; empty: every installed release
  std::string signature;          // to look for; empty: the finding's, else the newest release's
  long case_timeout_seconds = support::options::CaseTimeout::Default();
  std::optional<std::filesystem::path> json_out;
};

// `inductor-fuzz bisect`: the case on each torch release, oldest first; reports the first
// release that fails with the signature and the last that passes. Exit 1 when some release
// fails with it, 0 when none does, 2 when the tool could not run.
int Bisect(const BisectOptions &options, const support::ToolPaths &paths, std::ostream &out);

} // namespace workflows
