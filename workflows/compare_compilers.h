#pragma once

#include "corpus/matrix_record.h"
#include "fuzzer/matrix/warnings.h"
#include "support/tool_paths.h"

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace workflows {

struct CompareOptions {
  std::string baseline;
  std::string candidate;
  std::vector<std::filesystem::path> corpus; // run-case outputs and/or case files
  std::optional<std::filesystem::path> report_dir;
  std::optional<std::filesystem::path> known_warnings; // default: the checked-in list
  std::optional<std::filesystem::path> tolerances;     // default: the checked-in table
  bool show_known_warnings = false;
  bool kernel_probes = true; // also compare each kernel inside cpp_wrapper modules
  // Where the two builds' results differ, rebuild both with floating-point options pinned
  // (fuzzer/matrix/fp_pinning.h) and name the one that makes them agree.
  bool fp_pinning = true;
  unsigned jobs = 2;
  long timeout_seconds = 600;
  std::string command_line; // recorded in the reports
};

// `inductor-fuzz compare`: the compiler-upgrade check. Exit 1 on any regression (a build, a
// load or a recorded kernel call that the baseline passes and the candidate does not).
// The summary `compare` leads with (stdout and compare.md): what broke, new warnings by kind,
// the known ones, compile-time and object-size deltas as median and worst.
std::string LeadingSummary(const corpus::CompareRecord &record,
                           const fuzzer::matrix::KnownWarnings &known, bool show_known);

int CompareCompilers(const CompareOptions &options, const support::ToolPaths &paths,
                     std::ostream &out);

} // namespace workflows
