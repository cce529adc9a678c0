#include "cli/commands.h"
#include "workflows/bisect.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

// `bisect`: the first torch release with a failure.
Command AddBisectCommand(CLI::App &app) {
  struct State {
    workflows::BisectOptions options;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto *command = app.add_subcommand(
      "bisect",
      "Which torch release introduced a failure: run a case (or a finding's smallest case) on "
      "each installed torch release, oldest first, and report the first release that fails "
      "with the signature and the last one that passes before it. The signature is the "
      "finding's, or --signature, or the newest release's failure. Exit 1: some release fails "
      "with it; 0: none does.\n"
      "Example: inductor-fuzz bisect corpus/findings/lowering-exception-simdlen1-fp32.json "
      "--torch 2.6.0,2.14.1,2.15.0");
  command->add_option("input", options.input, "A case file, or a finding's folder")->required();
  command
      ->add_option("--torch", options.torch,
                   "Releases to run on, comma-separated versions or venv folders (default: every "
                   "one installed: .venv and each .venv-torch-VERSION)")
      ->delimiter(',');
  command->add_option("--signature", options.signature, "The failure to look for");
  AddSharedOption<support::options::CaseTimeout>(command, options.case_timeout_seconds,
                                                 "on each release");
  command->add_option("--json", options.json_out, "Write the result as JSON here");
  return {command, [state](const Invocation &invocation) {
            return workflows::Bisect(state->options, invocation.paths, invocation.out);
          }};
}

} // namespace cli
