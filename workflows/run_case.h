#pragma once

#include "support/shared_options.h"
#include "support/tool_paths.h"
#include "workflows/convert.h"

#include <chrono>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace workflows {

struct RunCaseOptions {
  std::filesystem::path case_file;
  std::filesystem::path out_dir;
  std::chrono::seconds timeout{support::options::CaseTimeout::Default()};
  std::string command_line; // recorded in result.json
  std::string sanitize;     // "address,undefined": kernels built and run with the sanitizers
  std::string sanitize_compiler = support::options::SanitizeCompiler::Default();
  // Reruns after a wrong result or crash (fuzzer/campaign/probe.h).
  unsigned probe_runs = support::options::ProbeRuns::Default();
  long probe_seconds = support::options::ProbeTime::Default();
  std::filesystem::path known_issues; // the known issues a finding is matched against
  MaskModuleOptions module;           // when case_file is a Python module
};

// `inductor-fuzz run-case`: exit 0 pass, 1 finding. Throws InputError for unusable input and
// WorkerStartError when no worker can run it (both exit 2).
int RunCase(const RunCaseOptions &options, const support::ToolPaths &paths, std::ostream &out);

// Several case files on one worker (one file: RunCase), each into OUT/STEM: the torch import,
// the worker's start and Inductor's checks of the CPU are paid once. Exit 1 when any case is a
// finding, 2 when any is unusable (said in its block; the others still run).
int RunCases(const RunCaseOptions &options, const std::vector<std::filesystem::path> &case_files,
             const support::ToolPaths &paths, std::ostream &out);

} // namespace workflows
