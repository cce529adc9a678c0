#pragma once

namespace cli {

// Parses the command line and runs one subcommand; returns the process exit code:
// 0 success or no finding, 1 findings, 2 the tool could not do what was asked.
int RunCommandLine(int argc, char **argv);

} // namespace cli
