#pragma once

#include <span>
#include <string_view>

namespace fuzzer::worker {

// One module of the worker's Python package (fuzzer/worker/python/inductor_fuzz_worker),
// compiled into the binary by CMake.
struct PythonModule {
  std::string_view name; // dotted: "inductor_fuzz_worker.oracles"
  std::string_view source;
  bool is_package; // the package's __init__.py
};

inline constexpr std::string_view kWorkerPackage = "inductor_fuzz_worker";

// Every module of the package, sorted by file name.
std::span<const PythonModule> WorkerPythonModules();

// The source of one module of the package; throws std::invalid_argument for an unknown name.
std::string_view WorkerModuleSource(std::string_view module);

} // namespace fuzzer::worker
