#pragma once

// A subcommand as the table in cli/commands.h holds it: its options, registered on the parser,
// and the function that runs its workflow once the command line is parsed.

#include "support/tool_paths.h"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

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

// The one --sanitize-compiler of every command that builds sanitized kernels.
void AddSanitizeCompilerOption(CLI::App *command, std::string &compiler);

// The probe's --probe-runs and --probe-time of `fuzz` and `run-case`.
void AddProbeOptions(CLI::App *command, unsigned &runs, long &seconds);

// --mask, --score, --shape, ... of a user's own mask module (`run-case` and `convert`).
void AddMaskModuleOptions(CLI::App *command, workflows::MaskModuleOptions &module);

// argv as one line, as the command line a stored case records.
std::string JoinArguments(int argc, char **argv);

} // namespace cli
