#include "cli/commands.h"
#include "workflows/replay.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

// `replay`: every stored finding rerun on today's torch.
Command AddReplayCommand(CLI::App &app) {
  struct State {
    workflows::ReplayOptions options = {.corpus = "fuzz-corpus"};
    long case_timeout_seconds = support::options::CaseTimeout::Default();
    std::filesystem::path known_issues;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto &case_timeout_seconds = state->case_timeout_seconds;
  auto &known_issues = state->known_issues;
  auto *command = app.add_subcommand(
      "replay", "Fix verification: rerun every stored finding's smallest case on today's torch "
                "(static findings through `check`, matrix findings through the compiler matrix) "
                "and report it still-failing (same signature), fixed, or failing-differently. "
                "Exit 1 when any still fails or fails differently.\n"
                "Example: inductor-fuzz replay --corpus fuzz-corpus");
  command->add_option("--corpus", options.corpus, "The corpus to replay")->capture_default_str();
  command
      ->add_option("--compilers", options.compilers,
                   "Rebuild matrix findings on these compilers, comma-separated (default: the "
                   "ones each finding's matrix used): fix verification after a compiler upgrade")
      ->delimiter(',');
  std::filesystem::path replay_known_issues;
  command->add_option("--known-issues", known_issues,
                      "Known issues to update: an issue whose bug no longer reproduces "
                      "on this torch becomes \"fixed-in VERSION\" (default: the "
                      "project's corpus/known-issues.json)");
  AddSharedOption<support::options::CaseTimeout>(command, case_timeout_seconds);

  return {command, [state](const Invocation &invocation) {
            auto options = state->options;
            options.case_timeout = std::chrono::seconds(state->case_timeout_seconds);
            return workflows::ReplayAndReport(options, state->known_issues, invocation.paths,
                                              invocation.out);
          }};
}

} // namespace cli
