// The worker process: embeds CPython from the project's .venv, imports torch once and serves
// cases as JSON lines (fuzzer/python/worker.py). The driver starts it; it never runs alone.
#include "fuzzer/worker/worker_python.h"

#include <pybind11/embed.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace py = pybind11;

namespace {

constexpr int kExitWorkerFailed = 3;

struct WorkerArguments {
  std::filesystem::path venv;
  std::filesystem::path scratch;
};

bool ParseArguments(int argc, char **argv, WorkerArguments &arguments) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--venv")
      arguments.venv = argv[i + 1];
    else if (flag == "--scratch")
      arguments.scratch = argv[i + 1];
    else
      return false;
  }
  return !arguments.venv.empty() && !arguments.scratch.empty();
}

// Python must believe it is the venv's interpreter: then sys.prefix is the venv, torch is found,
// and sys.executable (which torch uses to start helper processes) is a real Python.
void InitializePython(const std::filesystem::path &venv_python) {
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.parse_argv = 0;
  config.install_signal_handlers = 1;
  PyConfig_SetBytesString(&config, &config.program_name, venv_python.c_str());
  PyConfig_SetBytesString(&config, &config.executable, venv_python.c_str());
  const char *const python_argv[] = {venv_python.c_str()};
  py::initialize_interpreter(&config, 1, python_argv, false);
}

} // namespace

int main(int argc, char **argv) {
  WorkerArguments arguments;
  if (!ParseArguments(argc, argv, arguments)) {
    std::fprintf(stderr, "usage: inductor-fuzz-worker --venv DIR --scratch DIR "
                         "(started by inductor-fuzz, not by hand)\n");
    return 2;
  }
  const auto venv_python = arguments.venv / "bin" / "python";
  if (::access(venv_python.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "worker: %s is missing; run scripts/setup\n", venv_python.c_str());
    return kExitWorkerFailed;
  }
  // The protocol gets a private copy of stdout; fd 1 becomes stderr so that whatever torch,
  // Python or a compiler prints cannot interleave with a reply.
  const int protocol_fd = ::dup(STDOUT_FILENO);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);

  InitializePython(venv_python);
  int exit_code = 0;
  try {
    py::dict scope;
    scope["__name__"] = "inductor_fuzz_worker";
    scope["__builtins__"] = py::module_::import("builtins");
    py::exec(py::str(fuzzer::worker::kWorkerPython.data(), fuzzer::worker::kWorkerPython.size()),
             scope);
    exit_code = scope["serve"](protocol_fd, arguments.scratch.string()).cast<int>();
  } catch (const std::exception &error) {
    std::fprintf(stderr, "worker: %s\n", error.what());
    exit_code = kExitWorkerFailed;
  }
  std::fflush(stdout);
  // torch's atexit hooks and thread pools make a full interpreter shutdown slow and fragile;
  // everything the driver needs has been sent.
  std::_Exit(exit_code);
}
