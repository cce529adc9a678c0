#pragma once

// A subcommand as the table in cli/commands.h holds it: its options, registered on the parser,
// and the function that runs its workflow once the command line is parsed.

#include "support/shared_options.h"
#include "support/tool_paths.h"

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace workflows {
struct MaskModuleOptions;
}

namespace cli {

// What every command's run is given once the command line is parsed.
struct Invocation {
  const support::ToolPaths &paths;
  std::string command_line;                 // argv joined: recorded in what a command stores
  std::vector<std::string> after_separator; // the arguments after `--` (compile flags, a program)
  std::ostream &out;
};

// A registered subcommand: its parser node, which holds its options, and its run, which holds
// the values they are parsed into. run returns the exit code (0 nothing found, 1 findings, 2
// the tool could not do what was asked) or throws support::InputError.
struct Command {
  CLI::App *app = nullptr;
  std::function<int(const Invocation &)> run;
};

// Registers one subcommand and its options on the parser.
using AddCommand = Command (*)(CLI::App &app);

// Adds a shared option's row to `command` (support/shared_options.def), with its flag, its help
// and its check, parsed into `value`: the one definition of the option in every command that takes
// it, so its words cannot drift apart. `note`: what the option does in this command alone,
// appended to the row's help. The value starts at the row's default (the option struct's
// initialiser); a list left empty by its struct is "those of the default installed", and the
// help says so.
template <typename Value>
CLI::Option *AddSharedOptionRow(CLI::App *command, const support::options::SharedOptionRow &row,
                                Value &value, const Value &default_value, std::string_view note);

template <typename Option>
CLI::Option *AddSharedOption(CLI::App *command, typename Option::Value &value,
                             std::string_view note = {}) {
  return AddSharedOptionRow(command, Option::kRow, value, Option::Default(), note);
}

// The probe's --probe-runs and --probe-time of `fuzz` and `run-case` (shared options).
void AddProbeOptions(CLI::App *command, unsigned &runs, long &seconds);

// --mask, --score, --shape, ... of a user's own mask module (`run-case` and `convert`).
void AddMaskModuleOptions(CLI::App *command, workflows::MaskModuleOptions &module);

// argv as one line, as the command line a stored case records.
std::string JoinArguments(int argc, char **argv);

} // namespace cli
