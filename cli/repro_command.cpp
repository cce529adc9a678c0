#include "cli/commands.h"
#include "workflows/repro.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

// `repro`: the standalone script of a case.
Command AddReproCommand(CLI::App &app) {
  struct State {
    workflows::ReproOptions options;
    long timeout_seconds = 900;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto &timeout_seconds = state->timeout_seconds;
  auto *command = app.add_subcommand(
      "repro",
      "Write the standalone Python script of any case (hand-written, generated, converted, or "
      "a finding's): it prints the torch version and settings, runs eager and torch.compile "
      "with the tool's own oracles, and exits 1 on a difference. To stdout, or --out FILE; "
      "--run runs it with the venv's python (exit 1: it reproduces, 0: it passes). Given a "
      "script and --signature, runs the script and judges its failure as the reducer does: "
      "one line, reproduces, passes or fails-differently (exit 1 only when it reproduces).\n"
      "Example: inductor-fuzz repro corpus/seeds/causal-151290.json --out options.py --run\n"
      "Example: inductor-fuzz repro pasted.py --signature 'compile-error|message=...'");
  command
      ->add_option("input", options.input,
                   "A case file, a run-case folder, or a corpus finding's folder; with "
                   "--signature, a repro script")
      ->required();
  auto *out_file = command->add_option("--out", options.out_file, "Write the script here");
  auto *run = command->add_flag("--run", options.run, "Run the script with the venv's python");
  command
      ->add_option("--signature", options.signature,
                   "Judge the repro script given as input against this signature (a finding's, "
                   "or a draft's Signature line): the judge the reducer and delivery use")
      ->excludes(run)
      ->excludes(out_file);
  command->add_option("--timeout", timeout_seconds, "Seconds the script may run with --run")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  return {command, [state](const Invocation &invocation) {
            auto options = state->options;
            options.timeout = std::chrono::seconds(state->timeout_seconds);
            return workflows::Repro(options, invocation.paths, invocation.out);
          }};
}

} // namespace cli
