// The worker process: embeds CPython from the project's .venv, imports torch once and serves
// cases as JSON lines (inductor_fuzz_worker.serve, compiled in from fuzzer/worker/python/). The
// driver starts it; it never runs alone.
#include "fuzzer/worker/worker_confinement.h"
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
  std::filesystem::path shared_builds; // where the warm-up's builds are shared; empty: nowhere
  fuzzer::worker::ConfinementRequest confinement;
};

bool ParseArguments(int argc, char **argv, WorkerArguments &arguments) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--confine") {
      arguments.confinement.confine = true;
      continue;
    }
    if (i + 1 == argc)
      return false;
    const char *value = argv[++i];
    if (flag == "--venv")
      arguments.venv = value;
    else if (flag == "--scratch")
      arguments.scratch = value;
    else if (flag == "--shared-builds")
      arguments.shared_builds = value;
    else if (flag == "--write-root")
      arguments.confinement.write_roots.emplace_back(value);
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

// Makes the package compiled into this binary importable. The import system finds it before
// anything on sys.path, so a stray inductor_fuzz_worker installed in the venv never shadows
// it; get_source lets tracebacks show its lines.
constexpr const char *kEmbeddedPackageFinder = R"PY(
import importlib.abc
import importlib.util
import sys


class EmbeddedPackage(importlib.abc.MetaPathFinder, importlib.abc.InspectLoader):
    def __init__(self, modules):
        self.modules = modules  # name -> (source, is_package)

    def find_spec(self, name, path=None, target=None):
        if name not in self.modules:
            return None
        return importlib.util.spec_from_loader(
            name, self, origin=self.filename(name), is_package=self.modules[name][1]
        )

    def filename(self, name):
        tail = "/__init__.py" if self.modules[name][1] else ".py"
        return "<inductor-fuzz-worker>/" + name.replace(".", "/") + tail

    def is_package(self, name):
        return self.modules[name][1]

    def get_source(self, name):
        if name not in self.modules:
            raise ImportError(name=name)
        return self.modules[name][0]

    def get_code(self, name):
        return compile(self.get_source(name), self.filename(name), "exec", dont_inherit=True)

    def exec_module(self, module):
        exec(self.get_code(module.__name__), module.__dict__)


sys.meta_path.insert(0, EmbeddedPackage(modules))
)PY";

void InstallEmbeddedPackage() {
  py::dict modules;
  for (const auto &module : fuzzer::worker::WorkerPythonModules())
    modules[py::str(module.name.data(), module.name.size())] = py::make_tuple(
        py::str(module.source.data(), module.source.size()), py::bool_(module.is_package));
  py::dict scope;
  scope["__builtins__"] = py::module_::import("builtins");
  scope["modules"] = modules;
  py::exec(kEmbeddedPackageFinder, scope);
}

} // namespace

int main(int argc, char **argv) {
  WorkerArguments arguments;
  if (!ParseArguments(argc, argv, arguments)) {
    std::fprintf(stderr,
                 "usage: inductor-fuzz-worker --venv DIR --scratch DIR [--confine "
                 "--write-root DIR...] [--shared-builds DIR] (started by inductor-fuzz, not "
                 "by hand)\n");
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

  // Before Python starts a thread: a user namespace is for one-threaded processes only, and
  // Landlock binds the threads made after it.
  const auto confinement = fuzzer::worker::ApplyConfinement(arguments.confinement);

  InitializePython(venv_python);
  int exit_code = 0;
  try {
    InstallEmbeddedPackage();
    py::dict confined;
    confined["requested"] = arguments.confinement.confine;
    confined["network"] = confinement.network;
    confined["writes"] = confinement.writes;
    confined["network_cut"] = confinement.network_cut;
    confined["writes_limited"] = confinement.writes_limited;
    py::list roots;
    if (confinement.writes_limited)
      for (const auto &root : arguments.confinement.write_roots)
        roots.append(root.string());
    confined["write_roots"] = roots;
    py::object shared_builds = py::none();
    if (!arguments.shared_builds.empty())
      shared_builds = py::str(arguments.shared_builds.string());
    exit_code = py::module_::import("inductor_fuzz_worker.serve")
                    .attr("serve")(protocol_fd, arguments.scratch.string(), confined, shared_builds)
                    .cast<int>();
  } catch (const std::exception &error) {
    std::fprintf(stderr, "worker: %s\n", error.what());
    exit_code = kExitWorkerFailed;
  }
  std::fflush(stdout);
  // torch's atexit hooks and thread pools make a full interpreter shutdown slow and fragile;
  // everything the driver needs has been sent.
  std::_Exit(exit_code);
}
