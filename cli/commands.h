#pragma once

// Every subcommand, in the order `--help` lists them. A new command is its own
// cli/NAME_command.cpp (its options and the workflow it runs) and one row here.

#include "cli/command.h"

#include <array>

namespace cli {

Command AddFuzzCommand(CLI::App &app);
Command AddReduceCommand(CLI::App &app);
Command AddCorpusCommand(CLI::App &app);
Command AddReplayCommand(CLI::App &app);
Command AddRunCaseCommand(CLI::App &app);
Command AddConvertCommand(CLI::App &app);
Command AddCaptureCommand(CLI::App &app);
Command AddReproCommand(CLI::App &app);
Command AddBisectCommand(CLI::App &app);
Command AddDoctorCommand(CLI::App &app);
Command AddGenCommand(CLI::App &app);
Command AddCheckCommand(CLI::App &app);
Command AddMatrixCommand(CLI::App &app);
Command AddCompareCommand(CLI::App &app);

inline constexpr std::array<AddCommand, 14> kCommands = {
    AddFuzzCommand,    AddReduceCommand,  AddCorpusCommand, AddReplayCommand,  AddRunCaseCommand,
    AddConvertCommand, AddCaptureCommand, AddReproCommand,  AddBisectCommand,  AddDoctorCommand,
    AddGenCommand,     AddCheckCommand,   AddMatrixCommand, AddCompareCommand,
};

} // namespace cli
