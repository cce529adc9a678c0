#include "cli/commands.h"
#include "workflows/run_case.h"
#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <vector>

namespace cli {

// `run-case`: one case through a worker and every oracle.
Command AddRunCaseCommand(CLI::App &app) {
  struct State {
    workflows::RunCaseOptions options;
    std::vector<std::filesystem::path> case_files;
    long timeout_seconds = support::options::CaseTimeout::Default();
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto &timeout_seconds = state->timeout_seconds;
  auto *command = app.add_subcommand(
      "run-case",
      "Run a case file through a worker: torch.compile against eager, capturing every "
      "generated C++ source and its compile command. Several case files run one after the "
      "other on one worker, each into its own folder under --out.\n"
      "Example: inductor-fuzz run-case corpus/seeds/causal-151290.json --out out/causal\n"
      "         inductor-fuzz run-case tests/cases/*.json --out out/cases");
  command
      ->add_option("case", state->case_files,
                   "Case file (JSON), or your own Python module of masks with --mask/--score; "
                   "several case files: each runs into --out/STEM")
      ->required()
      ->expected(1, -1);
  command
      ->add_option("--out", options.out_dir,
                   "Folder for result.json, commands.json, sources/, wrappers/ (created; a "
                   "previous run-case output there is replaced); with several cases, a folder "
                   "per case in it")
      ->required();
  command->add_option("--timeout", timeout_seconds, "Seconds before the case is stopped")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  AddSharedOption<support::options::Sanitize>(command, options.sanitize);
  AddSharedOption<support::options::SanitizeCompiler>(command, options.sanitize_compiler);
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
            return workflows::RunCases(options, state->case_files, invocation.paths,
                                       invocation.out);
          }};
}

} // namespace cli
