#include "cli/commands.h"
#include "workflows/doctor.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

// `doctor`: torch, the worker and every compiler checked.
Command AddDoctorCommand(CLI::App &app) {
  struct State {
    workflows::DoctorOptions options;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto *command = app.add_subcommand(
      "doctor", "Check torch, the worker, libtorch copies, the ABI flag and every compiler.\n"
                "Example: inductor-fuzz doctor --json");
  command->add_flag("--json", options.json, "Print the report as JSON");
  AddSharedOption<support::options::MatrixCompilers>(command, options.compilers,
                                                     "each one checked");
  return {command, [state](const Invocation &invocation) {
            return workflows::Doctor(state->options, invocation.paths, invocation.out);
          }};
}

} // namespace cli
