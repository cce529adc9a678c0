#include "cli/commands.h"
#include "workflows/run_case.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

// `run-case`: one case through a worker and every oracle.
Command AddRunCaseCommand(CLI::App &app) {
  struct State {
    workflows::RunCaseOptions options;
    long timeout_seconds = 600;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto &timeout_seconds = state->timeout_seconds;
  auto *command = app.add_subcommand(
      "run-case",
      "Run one case file through a worker: torch.compile(create_block_mask) against "
      "eager, capturing every generated C++ source and its compile command.\n"
      "Example: inductor-fuzz run-case corpus/seeds/causal-151290.json --out out/causal");
  command
      ->add_option("case", options.case_file,
                   "Case file (JSON), or your own Python module of masks with --mask/--score")
      ->required();
  command
      ->add_option("--out", options.out_dir,
                   "Folder for result.json, commands.json, sources/, wrappers/ (created; a "
                   "previous run-case output there is replaced)")
      ->required();
  command->add_option("--timeout", timeout_seconds, "Seconds before the case is stopped")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_option(
      "--sanitize", options.sanitize,
      "address, undefined or both (comma-separated): Inductor's kernels are built with "
      "-fsanitize=... on top of their own flags and run with the runtime preloaded; the first "
      "error is a memory-error finding that names the kernel and the line");
  AddSanitizeCompilerOption(command, options.sanitize_compiler);
  AddProbeOptions(command, options.probe_runs, options.probe_seconds);
  command->add_option("--known-issues", options.known_issues,
                      "Known issues to match a finding against (default: the "
                      "project's corpus/known-issues.json)");

  // A user's own mask module: the same options for run-case MODULE.py and convert MODULE.py.
  AddMaskModuleOptions(command, options.module);
  return {command, [state](const Invocation &invocation) {
            auto options = state->options;
            options.timeout = std::chrono::seconds(state->timeout_seconds);
            if (options.known_issues.empty())
              options.known_issues = invocation.paths.project_root / "corpus" / "known-issues.json";
            options.command_line = invocation.command_line;
            return workflows::RunCase(options, invocation.paths, invocation.out);
          }};
}

} // namespace cli
