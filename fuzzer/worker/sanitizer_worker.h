#pragma once

#include "corpus/case.h"
#include "corpus/finding.h"
#include "support/shared_options.h"
#include "support/tool_paths.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fuzzer::worker {

// Inductor's kernels built with sanitizers and run on the calls Inductor makes: the worker gets
// a compiler wrapper as Inductor's CXX (the captured command plus the sanitizer flags) and the
// sanitizer's runtime preloaded; torch itself runs uninstrumented.
struct SanitizerOptions {
  std::vector<std::string> checks; // "address", "undefined"
  // A g++ or clang++: its runtime is the one preloaded.
  std::string compiler = support::options::SanitizeCompiler::Default();
};

// "address,undefined" (either or both), checked; the compiler must be a g++ or clang++ on PATH.
// An InputError names what is wrong.
SanitizerOptions ParseSanitizerOptions(const std::string &checks, const std::string &compiler);

// The compiler flags the sanitizers add to Inductor's own.
std::vector<std::string> SanitizerFlags(const SanitizerOptions &options);

// Writes the wrapper into `work_dir` and returns the worker's environment: CXX, LD_PRELOAD,
// and ASAN_OPTIONS/UBSAN_OPTIONS from the checked-in fuzzer/worker/sanitizer_settings.txt (a
// long-lived Python host: no leak check, stop at the first error), with the reports written
// under work_dir/reports.
std::map<std::string, std::string> SanitizerEnvironment(const SanitizerOptions &options,
                                                        const std::filesystem::path &work_dir);

// Python that a standalone repro.py starts with, before it imports torch: unless it already is,
// the script runs itself again with Inductor's kernels built by the options' compiler plus
// SanitizerFlags (a wrapper named CXX), the runtime preloaded, and the checked-in runtime
// settings, so that the memory error is reported as the worker reported it. ASAN_OPTIONS,
// UBSAN_OPTIONS and TORCHINDUCTOR_CACHE_DIR already set are kept (log_path, say).
std::string SanitizedReproPrelude(const SanitizerOptions &options);

// Each sanitizer report written under work_dir/reports whose stack passes through a TU
// Inductor generated (a file under `inductor_cache`), as a memory-error finding, oldest first.
// The TU is read from there. Reports in no such TU (Python's own segfault, our worker) are not
// Inductor's.
std::vector<corpus::Finding> CollectMemoryErrors(const std::filesystem::path &work_dir,
                                                 const std::filesystem::path &inductor_cache);

// Removes the reports read, so that a long-lived sanitized worker's next case starts clean.
void ClearSanitizerReports(const std::filesystem::path &work_dir);

// Runs `c` again in a worker of its own with the sanitizers (a crash's second look): its
// memory-error findings, each about the case. Scratch, reports and Inductor's cache stay in
// work_dir.
std::vector<corpus::Finding> RerunWithSanitizers(const corpus::Case &c,
                                                 const SanitizerOptions &options,
                                                 const support::ToolPaths &paths,
                                                 const std::filesystem::path &work_dir,
                                                 std::chrono::milliseconds timeout);

} // namespace fuzzer::worker
