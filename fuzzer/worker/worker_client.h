#pragma once

#include "support/child_process.h"
#include "support/scratch_dir.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fuzzer::worker {

struct WorkerOptions {
  std::filesystem::path worker_executable;
  std::filesystem::path venv;
  // No network, and writes only beneath write_roots, scratch_dir, the worker's own temporary
  // folder and the shared builds (worker_confinement.h); the ready line says what held.
  bool confine = true;
  std::filesystem::path scratch_dir; // the worker's own temporary files
  std::filesystem::path log_file;    // the worker's stderr (torch warnings, compiler noise)
  std::chrono::milliseconds startup_timeout{std::chrono::minutes(5)};
  std::map<std::string, std::string> environment; // over ours: a sanitizer's runtime, say
  // Where the cases it runs are recorded; empty: the folder scratch_dir is in.
  std::vector<std::filesystem::path> write_roots;
  // Inductor's checks of the CPU, built by every new worker process (ten builds, 15 s or more),
  // come from ~/.cache/inductor-fuzz/builds once a worker on this machine built them.
  bool share_warm_up_builds = true;
};

enum class ReplyStatus { kOk, kCrashed, kTimedOut };

struct WorkerReply {
  ReplyStatus status = ReplyStatus::kOk;
  nlohmann::json message;    // the reply, when kOk
  std::string detail;        // how the worker died, when not kOk
  std::string stderr_tail;   // the last line of the worker's log, when not kOk
  std::string abort_message; // the last line glibc, the runtime or CPython wrote as it died
  support::ExitStatus exit;  // how the worker process ended, when not kOk
};

// The last non-empty line of a worker's log, and the last line in it that glibc, the C++
// runtime, CPython or the kernel wrote as they ended the process (or empty).
std::string LastLogLine(std::istream &log);
std::string AbortMessageIn(std::istream &log);

// Serves requests through one live worker process, replacing it after it crashes or hangs;
// the request that was running then comes back as kCrashed or kTimedOut.
class Worker {
public:
  explicit Worker(WorkerOptions options);
  ~Worker();
  Worker(const Worker &) = delete;
  Worker &operator=(const Worker &) = delete;

  WorkerReply Request(nlohmann::json request, std::chrono::milliseconds timeout);
  // The `ready` line of the current worker process (starting one if none is running).
  const nlohmann::json &Ready();
  int Pid();
  int processes_started() const { return processes_started_; }
  // Whether this worker may write beneath `path` (always, unconfined). A case run whose
  // folders it may not write would fail as if Inductor had: the driver checks first.
  bool MayWrite(const std::filesystem::path &path) const;
  // Seconds spent starting worker processes (importing torch), over this object's life.
  double startup_seconds() const { return startup_seconds_; }
  void Shutdown();

private:
  void Start();
  std::vector<std::filesystem::path> WriteRoots() const;
  std::string LogTail() const;
  std::string AbortMessage() const;

  WorkerOptions options_;
  std::unique_ptr<support::ChildProcess> process_;
  // The worker's $TMPDIR: removed with this object, and by the next run if this one was killed.
  std::optional<support::ScratchDir> temporary_;
  nlohmann::json ready_;
  int processes_started_ = 0;
  double startup_seconds_ = 0;
  std::uintmax_t log_offset_ = 0; // where the current process's part of the log starts
  long next_id_ = 1;
};

} // namespace fuzzer::worker
