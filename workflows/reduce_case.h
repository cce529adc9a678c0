#pragma once

#include "support/shared_options.h"
#include "support/tool_paths.h"

#include <chrono>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace workflows {

struct ReduceOptions {
  std::filesystem::path input;                  // a case file, or a finding's folder in a corpus
  std::optional<std::filesystem::path> out_dir; // default: FINDING/reduced or reduced-<case>
  unsigned jobs = 0;                            // 0: the number of cores
  unsigned confirm = 0;                         // 0: 3 for crashes and timeouts, else 1
  long case_timeout_seconds = support::options::ReductionCaseTimeout::Default();
  std::optional<std::filesystem::path> passes_file; // default: reducers/case/passes.json
  // "address,undefined": a memory error (default for such a finding, and for a memory crash
  // whose sanitized run reports one); "none": never sanitized
  std::string sanitize;
  std::string sanitize_compiler = support::options::SanitizeCompiler::Default();
  // A regression: keep candidates that also pass on this torch release (a version or a venv).
  std::optional<std::string> baseline_torch;
  // A source instead of a case: --cpp (with the command after `--`), --from-log or --script.
  std::optional<std::filesystem::path> cpp_file;
  std::vector<std::string> compile_command;
  std::optional<std::filesystem::path> interesting; // C-Vise-style script for --cpp
  std::vector<std::string> compilers; // --cpp: these compilers disagree on the TU (divergence)
  bool run_programs = false;          // with compilers: on what the programs they build print
  std::optional<std::filesystem::path> matrix_record; // `matrix --json`: a divergence it found
  std::string tu;                                     // its row (default: the first divergence)
  std::optional<std::filesystem::path> from_log;
  std::optional<std::filesystem::path> script;
  std::optional<std::filesystem::path> source_passes_file; // default: reducers/source/passes.json
  std::string command_line;
};

// `inductor-fuzz reduce`: a failing case (or a stored finding's smallest case) to a minimal
// case and repro.py. Exit 0: reduced, and repro.py fails standalone the same way; 1: reduced,
// but repro.py alone does not reproduce (case.json does, in the worker); 2: the tool failed.
int ReduceCase(const ReduceOptions &options, const support::ToolPaths &paths, std::ostream &out);

// The command line that runs ReduceCase on `input` (a finding's folder, or a reduction's best
// case) in a child process of `tool` (inductor-fuzz): delivery reduces each bug in a child so
// that its time limit can stop it (SIGTERM: it keeps its best case and still writes repro.py)
// and a hang or a crash in a reduction cannot take the campaign down.
std::vector<std::string> ReduceInChildCommandLine(const std::filesystem::path &tool,
                                                  const std::filesystem::path &venv,
                                                  const std::filesystem::path &input,
                                                  const std::filesystem::path &out, unsigned jobs,
                                                  std::chrono::seconds case_timeout);

enum class ReduceInput { kCase, kSource };
// What reduce was given, a case (or finding) or a source; an InputError for options that do not
// go together.
ReduceInput CheckReduceInputs(const ReduceOptions &options);

} // namespace workflows
