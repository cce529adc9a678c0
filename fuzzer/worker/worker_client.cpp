#include "fuzzer/worker/worker_client.h"

#include "support/tool_paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <vector>

namespace fuzzer::worker {
namespace {

// The worker's "unsupported" line names the torch it found and every reason it cannot run on it.
std::string UnsupportedTorchMessage(const nlohmann::json &event,
                                    const std::filesystem::path &venv) {
  std::string reasons;
  for (const auto &reason : event.value("reasons", nlohmann::json::array()))
    reasons += (reasons.empty() ? "" : "; ") + reason.get<std::string>();
  const auto version = event.value("torch_version", nlohmann::json());
  return fmt::format("{} in {} cannot run the worker: {}; inductor-fuzz runs on torch 2.6 to "
                     "2.15 (scripts/setup --with-torch VERSION installs one next to .venv)",
                     version.is_string() ? "torch " + version.get<std::string>() : "torch",
                     venv.string(), reasons.empty() ? "no reason given" : reasons);
}

// Where the worker's temporary files go: Inductor compiles in a fresh folder there and writes its
// path into compiler commands unquoted, so a $TMPDIR with a space or an odd character is not used.
std::filesystem::path CompilerSafeTemporaryBase() {
  const auto base = std::filesystem::temp_directory_path();
  const std::string text = base.string();
  const bool safe = std::all_of(text.begin(), text.end(), [](unsigned char ch) {
    return std::isalnum(ch) || ch == '/' || ch == '.' || ch == '_' || ch == '-' || ch == '+';
  });
  return safe ? base : std::filesystem::path("/tmp");
}

} // namespace

Worker::Worker(WorkerOptions options) : options_(std::move(options)) {}

bool Worker::MayWrite(const std::filesystem::path &path) const {
  if (!options_.confine)
    return true;
  const auto target = std::filesystem::absolute(path).lexically_normal();
  for (const auto &root : WriteRoots()) {
    const auto relative = target.lexically_relative(root);
    if (!relative.empty() && *relative.begin() != "..")
      return true;
  }
  return false;
}

std::vector<std::filesystem::path> Worker::WriteRoots() const {
  std::vector<std::filesystem::path> roots = options_.write_roots;
  if (roots.empty())
    roots.push_back(options_.scratch_dir.parent_path());
  roots.push_back(options_.scratch_dir);
  if (temporary_)
    roots.push_back(temporary_->path());
  // Shared compiler outputs (capture.py's BuildCache), the precompiled prefixes beside them
  // (prefix_headers.py), the op surface's universe (surface.py: half a minute to derive, asked
  // by every campaign; confined without it, it was derived again every time) and /dev/null,
  // /dev/shm.
  std::error_code ignored;
  for (const char *shared : {"builds", "gcc-prefixes", "surface-universe"}) {
    const auto folder = support::UserCacheDir(shared);
    std::filesystem::create_directories(folder, ignored);
    roots.push_back(folder);
  }
  roots.push_back("/dev");
  std::erase_if(roots, [](const std::filesystem::path &root) { return root.empty(); });
  for (auto &root : roots)
    root = std::filesystem::absolute(root).lexically_normal();
  return roots;
}

Worker::~Worker() { Shutdown(); }

void Worker::Start() {
  const auto started = std::chrono::steady_clock::now();
  struct AddStartup {
    double &total;
    std::chrono::steady_clock::time_point started;
    ~AddStartup() {
      total += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    }
  } add_startup{startup_seconds_, started};
  std::filesystem::create_directories(options_.scratch_dir);
  if (!options_.log_file.empty())
    std::filesystem::create_directories(options_.log_file.parent_path());
  if (!temporary_)
    temporary_.emplace("worker", CompilerSafeTemporaryBase());
  std::vector<std::string> argv = {options_.worker_executable.string(), "--venv",
                                   options_.venv.string(), "--scratch",
                                   options_.scratch_dir.string()};
  if (options_.share_warm_up_builds) {
    argv.push_back("--shared-builds");
    argv.push_back(support::UserCacheDir("builds").string());
  }
  if (options_.confine) {
    argv.push_back("--confine");
    for (const auto &root : WriteRoots()) {
      argv.push_back("--write-root");
      argv.push_back(root.string());
    }
  }
  std::error_code size_error;
  log_offset_ =
      options_.log_file.empty() ? 0 : std::filesystem::file_size(options_.log_file, size_error);
  if (size_error)
    log_offset_ = 0;
  try {
    support::SpawnOptions spawn;
    spawn.stderr_file = options_.log_file;
    spawn.environment = options_.environment;
    spawn.environment.emplace("TMPDIR", temporary_->path().string());
    spawn.environment.emplace("PYTHONDONTWRITEBYTECODE", "1"); // no __pycache__ beside torch
    spawn.kill_with_parent = true;
    process_ = std::make_unique<support::ChildProcess>(argv, spawn);
  } catch (const support::SpawnError &error) {
    throw support::WorkerStartError(
        fmt::format("cannot start the worker: {}; run scripts/setup to build it", error.what()));
  }
  ++processes_started_;
  std::string line;
  const auto status = process_->ReadLine(line, options_.startup_timeout);
  if (status == support::ChildProcess::ReadStatus::kLine) {
    auto ready = nlohmann::json::parse(line, nullptr, false);
    if (ready.is_object() && ready.value("event", "") == "ready") {
      ready_ = std::move(ready);
      return;
    }
    if (ready.is_object() && ready.value("event", "") == "unsupported") {
      process_->KillGroup();
      process_->Wait();
      process_.reset();
      throw support::WorkerStartError(UnsupportedTorchMessage(ready, options_.venv));
    }
  }
  process_->KillGroup();
  const auto exit = process_->Wait();
  process_.reset();
  throw support::WorkerStartError(
      fmt::format("the worker did not start ({}; last log line: {}); check that {} has torch "
                  "(scripts/setup installs it) and see `inductor-fuzz doctor`",
                  status == support::ChildProcess::ReadStatus::kTimeout ? "no ready line in time"
                                                                        : exit.Describe(),
                  LogTail().empty() ? "none" : LogTail(), options_.venv.string()));
}

std::string LastLogLine(std::istream &log) {
  std::string line, last;
  while (std::getline(log, line))
    if (!line.empty())
      last = line;
  return last;
}

std::string AbortMessageIn(std::istream &log) {
  // What glibc, the C++ runtime, CPython or the kernel say when they end a process; torch's
  // own log lines ("W1122 12:00:00 ... No CUDA runtime") are noise that varies by machine.
  static const std::vector<std::string> kMarkers = {"corrupted",
                                                    "free():",
                                                    "malloc",
                                                    "double free",
                                                    "Fatal Python error",
                                                    "terminate called",
                                                    "what():",
                                                    "stack smashing",
                                                    "Segmentation fault",
                                                    "Aborted",
                                                    "realloc():",
                                                    "munmap_chunk",
                                                    "Illegal instruction",
                                                    "Bus error",
                                                    "assertion",
                                                    "Assertion",
                                                    "out of memory",
                                                    "Killed"};
  std::string line, found;
  while (std::getline(log, line))
    for (const auto &marker : kMarkers)
      if (line.find(marker) != std::string::npos) {
        found = line;
        break;
      }
  return found;
}

std::string Worker::LogTail() const {
  std::ifstream log(options_.log_file);
  log.seekg(static_cast<std::streamoff>(log_offset_));
  return LastLogLine(log);
}

std::string Worker::AbortMessage() const {
  std::ifstream log(options_.log_file);
  log.seekg(static_cast<std::streamoff>(log_offset_));
  return AbortMessageIn(log);
}

const nlohmann::json &Worker::Ready() {
  if (!process_)
    Start();
  return ready_;
}

int Worker::Pid() {
  if (!process_)
    Start();
  return process_->pid();
}

WorkerReply Worker::Request(nlohmann::json request, std::chrono::milliseconds timeout) {
  if (!process_)
    Start();
  const long id = next_id_++;
  request["id"] = id;
  WorkerReply reply;
  if (process_->WriteLine(request.dump())) {
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      const auto status = left.count() > 0 ? process_->ReadLine(line, left)
                                           : support::ChildProcess::ReadStatus::kTimeout;
      if (status == support::ChildProcess::ReadStatus::kLine) {
        auto message = nlohmann::json::parse(line, nullptr, false);
        if (!message.is_object() || message.value("id", -1L) != id)
          continue; // not a reply to this request
        reply.message = std::move(message);
        return reply;
      }
      reply.status = status == support::ChildProcess::ReadStatus::kTimeout ? ReplyStatus::kTimedOut
                                                                           : ReplyStatus::kCrashed;
      break;
    }
  } else {
    reply.status = ReplyStatus::kCrashed;
  }
  if (reply.status == ReplyStatus::kTimedOut)
    process_->KillGroup();
  const auto exit = process_->Wait();
  reply.exit = exit;
  reply.detail = reply.status == ReplyStatus::kTimedOut
                     ? fmt::format("no reply within {} s; worker killed", timeout.count() / 1000.0)
                     : fmt::format("worker died: {}", exit.Describe());
  reply.stderr_tail = LogTail();
  reply.abort_message = AbortMessage();
  process_.reset();
  return reply;
}

void Worker::Shutdown() {
  if (!process_)
    return;
  std::string line;
  if (process_->WriteLine(R"({"op": "shutdown"})") &&
      process_->ReadLine(line, std::chrono::seconds(30)) ==
          support::ChildProcess::ReadStatus::kLine) {
    process_->CloseInput();
    process_->Wait();
  }
  process_.reset(); // kills the group if it has not exited
}

} // namespace fuzzer::worker
