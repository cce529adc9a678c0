#include "cli/commands.h"
#include "workflows/convert.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

// `convert`: a mask module (or a case) to a self-contained case file.
Command AddConvertCommand(CLI::App &app) {
  struct State {
    workflows::ConvertOptions options;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto *command = app.add_subcommand(
      "convert",
      "Make a self-contained case file of your own mask module's functions: their source, the "
      "Python numbers they close over (as the case's constants) and the tensors they read (as "
      "its tensors, large ones in binary sidecars next to it). Anything that keeps the case "
      "from standing alone (an import of a package that is not torch or the standard library) "
      "is warned about. Every Inductor knob is left at Inductor's default. A case file given "
      "instead is stored again with large tensors in sidecars.\n"
      "Example: inductor-fuzz convert masks.py --mask sliding_window --shape 1,4,1024,1024 "
      "--out sliding.json\n"
      "Example: inductor-fuzz convert masks.py --mask causal --score softcap --out softcap.json");
  command->add_option("input", options.input, "A Python module, or a case file")->required();
  command->add_option("--out", options.out_file, "The case file to write")->required();
  AddMaskModuleOptions(command, options.module);
  return {command, [state](const Invocation &invocation) {
            auto options = state->options;
            options.module.command_line = invocation.command_line;
            return workflows::Convert(options, invocation.paths, invocation.out);
          }};
}

} // namespace cli
