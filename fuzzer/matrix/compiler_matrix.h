#pragma once

#include "corpus/finding.h"
#include "fuzzer/matrix/compiler_flags.h"
#include "fuzzer/matrix/compilers.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fuzzer::worker {
class Worker;
}

namespace fuzzer::matrix {

class BuildCache;
class PrefixCache;

// A TU Inductor compiled, as run-case stored it: its source and its exact command.
struct CapturedTu {
  std::string label; // folder/file, for tables
  std::filesystem::path source;
  std::vector<std::string> argv;
  std::filesystem::path recording;        // its kernel calls as Inductor's build ran them, if any
  std::string entry;                      // the recorded module's entry: kernel or cpp_wrapper's
  std::filesystem::path reference_module; // the .so Inductor built (the command's -o)
};

// Every TU of every run-case output folder at or under `roots` (folders with commands.json).
std::vector<CapturedTu> LoadCapturedTus(const std::vector<std::filesystem::path> &roots);

struct MatrixOptions {
  std::vector<Compiler> compilers;
  unsigned jobs = 2;
  std::chrono::seconds timeout{600};
  std::size_t memory_limit_bytes = std::size_t{8} << 30;
  std::filesystem::path work_dir; // objects go to work_dir/<compiler>/
  bool shared_prefix = true;      // precompile each TU's leading #includes once per flag set
  BuildCache *cache = nullptr;    // builds kept by content across matrices, if any
  // Prefixes kept across matrices, if any (else made in work_dir for this matrix alone).
  PrefixCache *prefix_cache = nullptr;
  // Also build each cpp_wrapper TU with kernel probes (kernel_probes.h), so that the replay
  // compares what every kernel inside the module wrote, not only what the module returned.
  bool kernel_probes = true;
};

// One TU built by one compiler.
struct TuBuild {
  std::string compiler;
  std::vector<std::string> argv; // exactly what ran
  bool built = false;
  bool timed_out = false;
  bool compiler_crashed = false; // killed by a signal: an internal compiler error
  std::string exit;
  double seconds = 0;
  std::uintmax_t object_size = 0;
  int errors = 0;
  std::vector<std::string> warnings; // WarningIdentity keys, for comparing compilers
  std::string signature;             // of the failure, when not built
  std::string first_error;
  std::filesystem::path output;
  bool used_prefix = false; // built against a shared precompiled prefix
  bool from_cache = false;  // not built: the build cache had this TU, flags and compiler
  std::string load_error;   // dlopen(RTLD_NOW) in a worker, demangled
  std::string runtime;      // recorded calls replayed: "same", "differs", "crashed", "timeout",
                            // "error"; empty when not replayed
  nlohmann::json runtime_detail; // the worst difference, or what went wrong
  double runtime_seconds = 0;    // replaying the recorded calls
  bool sanitized = false;        // a sanitizer column's build: replayed apart, never compared
  // The probed build of a cpp_wrapper TU (kernel_probes.h), when one was built, else why not;
  // and where its replay left each call's probes.
  std::filesystem::path probe_module;
  std::string probe_error;
  std::filesystem::path probe_dir;
  std::optional<corpus::Finding> memory_error; // what the sanitizer reported in this TU
};

struct TuMatrix {
  CapturedTu tu;
  std::vector<TuBuild> builds; // in the order of MatrixOptions::compilers
  // Inductor's own build replayed on its recording first: "same" (deterministic, builds are
  // compared), "differs" (nondeterministic, builds are not compared), "missing" (the .so is
  // gone; builds are compared with the recording alone) or empty (no recording).
  std::string reference_runtime;
};

using Progress = std::function<void(const std::string &)>;

// Builds every TU on every compiler, `jobs` at a time, each under time and memory limits.
std::vector<TuMatrix> BuildMatrix(const std::vector<CapturedTu> &tus, const MatrixOptions &options,
                                  const Progress &progress);

// Loads every built .so with immediate binding in the worker (which has torch's libtorch
// mapped, as a real run would), recording unresolved symbols, demangled. A TU built with a
// _GLIBCXX_USE_CXX11_ABI other than torch's is not loaded: the mismatch is explained instead.
void CheckLoads(std::vector<TuMatrix> &matrix, worker::Worker &worker);

// The _GLIBCXX_USE_CXX11_ABI a command builds with: its -D, else libstdc++'s default (1).
int CxxAbiOf(const std::vector<std::string> &argv);

// A compiler-divergence finding when some compilers build the TU and others do not (or crash).
std::optional<corpus::Finding> DivergenceFinding(const TuMatrix &row);

// A load-error finding for every build that did not load: the undefined symbol or the ABI.
std::vector<corpus::Finding> LoadErrorFindings(const TuMatrix &row);

// The bytes of a built module's .text section (by objcopy), to check that two ways of building
// a TU emit the same code. Empty when there is none or objcopy fails.
std::string TextSection(const std::filesystem::path &module);

} // namespace fuzzer::matrix
