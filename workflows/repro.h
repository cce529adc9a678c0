#pragma once

#include "support/tool_paths.h"

#include <chrono>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>

namespace workflows {

struct ReproOptions {
  std::filesystem::path input; // a case file, a run-case or capture folder, or a finding folder
  std::optional<std::filesystem::path> out_file; // empty: the script goes to stdout
  bool run = false;                              // run it with the venv's python too
  std::chrono::seconds timeout{900};
  // With a script as input (a draft's pasted block, a reduced repro.py): run it and judge its
  // failure against this signature, as the reducer and delivery judge theirs.
  std::optional<std::string> signature;
};

// `inductor-fuzz repro CASE.json | DIR`: the standalone script of any case, hand-written or
// generated, through the one repro emitter (fuzzer::worker::EmitPythonScript). With --run it is run
// with the venv's python: exit 1 when it fails (it reproduces), 0 when it passes. Given a script
// and a signature, the script is judged instead (fuzzer::worker::RunStandalone, the one judge):
// one line `repro: VERDICT: HOW` (reproduces, passes or fails-differently), exit 1 when it
// reproduces, 0 otherwise.
int Repro(const ReproOptions &options, const support::ToolPaths &paths, std::ostream &out);

} // namespace workflows
