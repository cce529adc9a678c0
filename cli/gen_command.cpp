#include "cli/commands.h"
#include "workflows/gen.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

// `gen`: cases from a seed.
Command AddGenCommand(CLI::App &app) {
  struct State {
    workflows::GenOptions options;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto *command = app.add_subcommand(
      "gen", "Generate cases from a seed: mask and score functions, shapes, dtypes and Inductor "
             "settings. The same seed, tool version and policy give byte-identical cases.\n"
             "Example: inductor-fuzz gen --seed 7 --count 3 --python\n"
             "Example: inductor-fuzz gen --seed 7 --count 20 --requests > requests.jsonl");
  command->add_option("--seed", options.seed, "First seed")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  command->add_option("--count", options.count, "Number of cases")->capture_default_str();
  command->add_option("--policy", options.policy_file,
                      "JSON file overriding weights and numbers of the default policy");
  command->add_flag("--python", options.python, "Print standalone Python scripts, not JSON lines");
  command->add_flag("--stats", options.stats,
                    "Print how often each operator, pattern, API, dtype and setting came up");
  command->add_flag("--requests", options.requests,
                    "Print run requests (the case with the Inductor config and compile arguments "
                    "its settings give), the cases file of the portable capture: python -m "
                    "inductor_fuzz_capture --cases FILE");
  command
      ->add_option("--from", options.from,
                   "With --requests: the case files to write as requests, not generated ones")
      ->check(CLI::ExistingFile);
  command->add_flag("--print-policy", options.print_policy, "Print the policy in force as JSON");
  return {command, [state](const Invocation &invocation) {
            auto options = state->options;
            options.command_line = invocation.command_line;
            return workflows::Generate(options, invocation.out);
          }};
}

} // namespace cli
