#pragma once

// The option tables of the larger subcommands, kept out of cli.cpp; RunCommandLine registers
// them and dispatches.

#include "cli/fuzz_command.h"
#include "cli/reduce_command.h"

#include <string>

namespace CLI {
class App;
}

namespace cli {

// The one --sanitize-compiler of every command that builds sanitized kernels.
void AddSanitizeCompilerOption(CLI::App *command, std::string &compiler);

// The probe's --probe-runs and --probe-time of `fuzz` and `run-case`.
void AddProbeOptions(CLI::App *command, unsigned &runs, long &seconds);

// `fuzz` and its options, parsed into `options`.
CLI::App *AddFuzzCommand(CLI::App &app, FuzzOptions &options);

// `reduce` and its options, parsed into `options`.
CLI::App *AddReduceCommand(CLI::App &app, ReduceOptions &options);

enum class ReduceInput { kCase, kSource };
// What reduce was given, a case (or finding) or a source; an InputError for options that do not
// go together.
ReduceInput CheckReduceInputs(const ReduceOptions &options);

} // namespace cli
