#pragma once

#include "support/errors.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace support {

struct SpawnOptions {
  std::filesystem::path working_directory;        // empty: the caller's
  std::filesystem::path stderr_file;              // empty: stderr joins stdout
  std::size_t memory_limit_bytes = 0;             // address-space limit of the child; 0: none
  std::map<std::string, std::string> environment; // set in the child, over our own environment
  // SIGKILL the child when the thread that started it ends, the whole process included (a
  // driver killed with SIGKILL): a worker in the middle of a hanging case never learns of it
  // from its pipes.
  bool kill_with_parent = false;
};

struct ExitStatus {
  std::optional<int> exit_code; // set when the child exited
  std::optional<int> signal;    // set when a signal ended it
  std::string Describe() const;
  bool Succeeded() const { return exit_code == 0; }
};

// One child process, started from argv (never through a shell), in a process group of its own
// so that killing it also kills what it started (compilers, torch's helpers).
class ChildProcess {
public:
  ChildProcess(const std::vector<std::string> &argv, const SpawnOptions &options);
  ~ChildProcess();
  ChildProcess(const ChildProcess &) = delete;
  ChildProcess &operator=(const ChildProcess &) = delete;

  enum class ReadStatus { kLine, kEndOfFile, kTimeout };
  ReadStatus ReadLine(std::string &line, std::chrono::milliseconds timeout);
  bool WriteLine(const std::string &line);
  void CloseInput();
  void KillGroup();
  ExitStatus Wait();
  int pid() const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

struct CommandResult {
  ExitStatus status;
  bool timed_out = false;
  std::string output; // stdout and stderr together, cut at the limit
  double seconds = 0;
};

// Runs argv to completion, killing its process group after the timeout.
CommandResult RunCommand(const std::vector<std::string> &argv, const SpawnOptions &options,
                         std::chrono::milliseconds timeout, std::size_t output_limit = 1 << 20);

// The absolute path of a program name as the shell would find it on PATH, or nothing.
std::optional<std::filesystem::path> FindOnPath(const std::string &program);

} // namespace support
