#pragma once

#include <optional>
#include <string>
#include <vector>

namespace reducers {

// A C++ compile failure as Inductor reports it (torch._inductor.exc.CppCompileError): the
// command it ran and what the compiler printed.
struct LoggedCompileError {
  std::vector<std::string> command; // argv, argv[0] the compiler
  std::string output;               // the compiler's output, as logged
};

// The last CppCompileError in a log (a CI log, a pytest report, a script's stderr): the line
// after "Command:" and the lines after "Output:" up to the end of the exception text. Nothing
// when the log holds none. Leading CI timestamps ("2026-11-22T10:00:00.1234567Z ") are ignored.
std::optional<LoggedCompileError> FindCompileError(const std::string &log);

// A command line split as a shell would (quotes and backslashes), for the commands Inductor
// logs: it joins argv with spaces, so quoting is rare.
std::vector<std::string> SplitCommandLine(const std::string &line);

} // namespace reducers
