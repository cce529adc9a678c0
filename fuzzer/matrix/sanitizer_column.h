#pragma once

#include "corpus/finding.h"
#include "fuzzer/matrix/compiler_matrix.h"
#include "fuzzer/matrix/runtime_differential.h"
#include "fuzzer/worker/sanitizer_worker.h"

#include <filesystem>
#include <vector>

namespace fuzzer::worker {
class Worker;
}

namespace fuzzer::matrix {

// The matrix's sanitizer column (`matrix --sanitize`): every captured TU rebuilt by one gcc with
// -fsanitize=... on top of Inductor's flags, then replayed on its recorded calls in a worker of
// its own, started with that gcc's runtime preloaded (SanitizerEnvironment), so that torch
// itself runs uninstrumented. A report whose stack passes through the TU is the build's
// memory error.
Compiler SanitizerColumn(const worker::SanitizerOptions &options);

// Replays each sanitized build that built, one at a time, in `worker` (whose reports go under
// `work_dir`, as SanitizerEnvironment(options, work_dir) set it up). A worker the sanitizer
// stopped restarts for the next build.
void ReplaySanitizedBuilds(std::vector<TuMatrix> &matrix, worker::Worker &worker,
                           const std::filesystem::path &work_dir, const RuntimeOptions &options,
                           const Progress &progress);

// The memory-error findings of a row, one per sanitized build the sanitizer stopped.
std::vector<corpus::Finding> MemoryErrorFindings(const TuMatrix &row);

// What the sanitizer column cost: its builds and replays, and the same compiler's plain ones
// when that compiler is also a column of the matrix.
struct SanitizerCost {
  std::string column, plain_column; // plain_column empty: not in the matrix
  double build_seconds = 0, plain_build_seconds = 0;
  double replay_seconds = 0, plain_replay_seconds = 0;
  std::size_t builds = 0, cached = 0, replays = 0;
};
SanitizerCost MeasureSanitizerCost(const std::vector<TuMatrix> &matrix,
                                   const std::vector<Compiler> &compilers);

} // namespace fuzzer::matrix
