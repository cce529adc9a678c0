#include "support/child_process.h"

// Boost 1.81's process v2 with std::filesystem misses these includes of its own.
#include <boost/optional.hpp>
#include <boost/type_traits/remove_pointer.hpp>
#include <type_traits>

#include <boost/asio/io_context.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/writable_pipe.hpp>
#include <boost/asio/write.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/start_dir.hpp>
#include <boost/process/v2/stdio.hpp>
#include <fmt/format.h>

#include <csignal>
#include <cstdlib>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace support {
namespace asio = boost::asio;
namespace bp2 = boost::process::v2;

namespace {

// Puts the child in a new process group before exec, so KillGroup reaches its descendants,
// and applies its memory limit.
struct NewProcessGroup {
  std::size_t memory_limit_bytes = 0;
  bool kill_with_parent = false;
  pid_t parent = ::getpid();
  template <typename Launcher>
  boost::system::error_code on_exec_setup(Launcher &, const std::filesystem::path &,
                                          const char *const *&) {
    ::setpgid(0, 0);
    if (kill_with_parent) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) // it died before the request took effect
        ::_exit(127);
    }
    if (memory_limit_bytes) {
      const rlimit limit{memory_limit_bytes, memory_limit_bytes};
      ::setrlimit(RLIMIT_AS, &limit);
    }
    return {};
  }
};

// Our environment with some variables replaced or added, handed to execve.
class ChildEnvironment {
public:
  explicit ChildEnvironment(const std::map<std::string, std::string> &overrides) {
    for (char **entry = environ; *entry; ++entry) {
      const std::string variable = *entry;
      if (!overrides.contains(variable.substr(0, variable.find('='))))
        variables_.push_back(variable);
    }
    for (const auto &[key, value] : overrides)
      variables_.push_back(key + "=" + value);
    for (const auto &variable : variables_)
      pointers_.push_back(variable.c_str());
    pointers_.push_back(nullptr);
  }
  template <typename Launcher>
  boost::system::error_code on_setup(Launcher &launcher, const std::filesystem::path &,
                                     const char *const *&) {
    launcher.env = pointers_.data();
    return {};
  }

private:
  std::vector<std::string> variables_;
  std::vector<const char *> pointers_;
};

ExitStatus FromNative(int native) {
  ExitStatus status;
  if (WIFEXITED(native))
    status.exit_code = WEXITSTATUS(native);
  else if (WIFSIGNALED(native))
    status.signal = WTERMSIG(native);
  return status;
}

std::filesystem::path ResolveProgram(const std::string &program) {
  if (program.find('/') != std::string::npos) {
    if (::access(program.c_str(), X_OK) != 0)
      throw SpawnError(fmt::format("{} is not an executable file", program));
    return program;
  }
  if (auto found = FindOnPath(program))
    return *found;
  throw SpawnError(fmt::format("{} was not found on PATH", program));
}

} // namespace

std::string ExitStatus::Describe() const {
  if (exit_code)
    return fmt::format("exit code {}", *exit_code);
  if (signal)
    return fmt::format("killed by signal {} ({})", *signal, ::strsignal(*signal));
  return "unknown exit status";
}

std::optional<std::filesystem::path> FindOnPath(const std::string &program) {
  const char *path = std::getenv("PATH");
  std::string_view rest = path ? path : "/usr/bin:/bin";
  while (!rest.empty()) {
    auto colon = rest.find(':');
    std::filesystem::path candidate = std::filesystem::path(rest.substr(0, colon)) / program;
    if (::access(candidate.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(candidate))
      return candidate;
    rest = colon == std::string_view::npos ? "" : rest.substr(colon + 1);
  }
  return std::nullopt;
}

struct ChildProcess::State {
  asio::io_context context;
  asio::writable_pipe input{context};
  asio::readable_pipe output{context};
  asio::streambuf pending;
  std::optional<bp2::process> process;
  std::optional<ExitStatus> exit_status;
};

ChildProcess::ChildProcess(const std::vector<std::string> &argv, const SpawnOptions &options)
    : state_(std::make_unique<State>()) {
  if (argv.empty())
    throw SpawnError("no program given");
  const std::filesystem::path program = ResolveProgram(argv.front());
  const std::vector<std::string> arguments(argv.begin() + 1, argv.end());
  asio::readable_pipe child_input{state_->context};
  asio::writable_pipe child_output{state_->context};
  asio::connect_pipe(child_input, state_->input);
  asio::connect_pipe(state_->output, child_output);
  const std::filesystem::path directory = options.working_directory.empty()
                                              ? std::filesystem::current_path()
                                              : options.working_directory;
  boost::system::error_code error;
  ChildEnvironment environment(options.environment);
  if (options.stderr_file.empty()) {
    state_->process.emplace(state_->context.get_executor(), program, arguments,
                            bp2::process_stdio{child_input, child_output, child_output},
                            bp2::process_start_dir{directory}, environment,
                            NewProcessGroup{options.memory_limit_bytes, options.kill_with_parent});
  } else {
    FILE *log = std::fopen(options.stderr_file.c_str(), "a");
    if (!log)
      throw SpawnError(
          fmt::format("cannot open {} for the child's stderr", options.stderr_file.string()));
    try {
      state_->process.emplace(
          state_->context.get_executor(), program, arguments,
          bp2::process_stdio{child_input, child_output, log}, bp2::process_start_dir{directory},
          environment, NewProcessGroup{options.memory_limit_bytes, options.kill_with_parent});
    } catch (...) {
      std::fclose(log);
      throw;
    }
    std::fclose(log);
  }
}

ChildProcess::~ChildProcess() {
  if (!state_->exit_status) {
    KillGroup();
    Wait();
  }
}

int ChildProcess::pid() const { return state_->process->id(); }

ChildProcess::ReadStatus ChildProcess::ReadLine(std::string &line,
                                                std::chrono::milliseconds timeout) {
  boost::system::error_code error;
  bool done = false;
  asio::async_read_until(state_->output, state_->pending, '\n',
                         [&](const boost::system::error_code &ec, std::size_t) {
                           error = ec;
                           done = true;
                         });
  state_->context.restart();
  state_->context.run_for(timeout);
  if (!done) {
    state_->output.cancel();
    state_->context.restart();
    state_->context.run();
    if (!error || error == asio::error::operation_aborted)
      return ReadStatus::kTimeout;
  }
  std::istream stream(&state_->pending);
  if (error) {
    // The last line may have no newline: hand it over before reporting the end.
    if (state_->pending.size() == 0)
      return ReadStatus::kEndOfFile;
    line.assign(std::istreambuf_iterator<char>(stream), {});
    return ReadStatus::kLine;
  }
  std::getline(stream, line);
  return ReadStatus::kLine;
}

bool ChildProcess::WriteLine(const std::string &line) {
  boost::system::error_code error;
  std::string framed = line + "\n";
  asio::write(state_->input, asio::buffer(framed), error);
  return !error;
}

void ChildProcess::CloseInput() {
  boost::system::error_code ignored;
  state_->input.close(ignored);
}

void ChildProcess::KillGroup() {
  if (state_->exit_status)
    return;
  const int id = pid();
  if (id > 0) {
    ::kill(-id, SIGKILL);
    ::kill(id, SIGKILL);
  }
}

ExitStatus ChildProcess::Wait() {
  if (!state_->exit_status) {
    boost::system::error_code error;
    state_->process->wait(error);
    state_->exit_status = FromNative(state_->process->native_exit_code());
  }
  return *state_->exit_status;
}

CommandResult RunCommand(const std::vector<std::string> &argv, const SpawnOptions &options,
                         std::chrono::milliseconds timeout, std::size_t output_limit) {
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + timeout;
  CommandResult result;
  ChildProcess child(argv, options);
  child.CloseInput();
  std::string line;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    const auto status = child.ReadLine(line, left);
    if (status == ChildProcess::ReadStatus::kEndOfFile)
      break;
    if (status == ChildProcess::ReadStatus::kTimeout) {
      result.timed_out = true;
      break;
    }
    if (result.output.size() < output_limit)
      result.output += line + "\n";
  }
  if (result.timed_out)
    child.KillGroup();
  result.status = child.Wait();
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

} // namespace support
