#pragma once

#include <stdexcept>

// Every error type the tool reports to a user, and the exit codes they map to. Commands throw;
// only cli::RunCommandLine turns an error into a message and an exit code.
namespace support {

enum ExitCode : int {
  kExitNothingFound = 0,  // nothing found (or a command that finds nothing succeeded)
  kExitFindings = 1,      // findings
  kExitCannotRun = 2,     // bad input, a missing torch or compiler, a broken case
  kExitInterrupted = 130, // stopped by Ctrl-C or SIGTERM (after writing what it had), as shells say
};

// Input the user handed us that we cannot use: one line that says what is wrong and what to do.
class InputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A program that cannot be started at all (not found, not executable).
class SpawnError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A worker that could not be started or did not come up: a broken torch install, a missing
// venv. The message says what to do.
class WorkerStartError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace support
