#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace reducers {

// A C++ compile failure as Inductor reports it (torch._inductor.exc.CppCompileError): the
// command it ran and what the compiler printed.
struct LoggedCompileError {
  std::vector<std::string> command; // argv, argv[0] the compiler
  std::string output;               // the compiler's output, as logged
  std::size_t line = 0;             // the log's line (from 1) of its "Command:"
  std::size_t errors_in_log = 1;    // how many different CppCompileErrors the log holds
};

// The last CppCompileError in a log: the line after "Command:" and the lines after "Output:" up
// to the end of the exception text. Nothing when the log holds none. Read the way CI systems
// write logs: CRLF line ends, ANSI colours, GitHub Actions' and GitLab's timestamps
// ("2026-11-25T10:00:00.1234567Z ", "2026-11-25T10:00:00.123456Z 00O "), pytest-xdist's "[gw0] ",
// and pytest's report, whose exception lines start with "E" (with and without -q, at collection
// and inside a test); unittest's and torch._dynamo's wrappers (InductorError,
// BackendCompilerFailed) around the CppCompileError.
std::optional<LoggedCompileError> FindCompileError(const std::string &log);

// A command line split as a shell would (quotes and backslashes), for the commands Inductor
// logs: it joins argv with spaces, so quoting is rare.
std::vector<std::string> SplitCommandLine(const std::string &line);

} // namespace reducers
