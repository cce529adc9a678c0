#include "cli/commands.h"
#include "workflows/capture.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

// `capture`: a user's own program run with every Inductor compile captured.
Command AddCaptureCommand(CLI::App &app) {
  struct State {
    workflows::CaptureOptions options;
    long timeout_seconds = 3600;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto &timeout_seconds = state->timeout_seconds;
  auto *command = app.add_subcommand(
      "capture",
      "Run your own Python program (a model, a test, pytest) with every C++ compile Inductor "
      "runs captured and every kernel's calls recorded, into a folder that check, matrix and "
      "compare take, as they take run-case's. Each compiled graph's first calls also get a "
      "float64 reference of their outputs (the graph run eagerly in float64 on the same "
      "inputs), by which compare tells rounding from a miscompile. The program runs in the venv's "
      "python, its "
      "output shown and kept in DIR/output.log. Exit 0: the program exited 0; 1: it failed "
      "(what it compiled is stored all the same).\n"
      "Example: inductor-fuzz capture --out out/mine -- python train_step.py --steps 2\n"
      "Example: inductor-fuzz capture --out out/test -- python -m pytest test_attn.py -k causal");
  command
      ->add_option("--out", options.out_dir,
                   "Folder for capture.json, commands.json, sources/, wrappers/, recordings/ "
                   "(created; a previous capture there is replaced)")
      ->required();
  command->add_option("--timeout", timeout_seconds, "Seconds before the program is stopped")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  return {command, [state](const Invocation &invocation) {
            auto options = state->options;
            options.timeout = std::chrono::seconds(state->timeout_seconds);
            options.program = invocation.after_separator;
            options.command_line = invocation.command_line;
            return workflows::Capture(options, invocation.paths, invocation.out);
          }};
}

} // namespace cli
