#pragma once

#include "corpus/case.h"
#include "corpus/finding.h"
#include "corpus/matrix_record.h"
#include "fuzzer/matrix/compilers.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace parsers {
class Analyzer;
}
namespace fuzzer::worker {
class Worker;
struct CaseOutcome;
} // namespace fuzzer::worker
namespace fuzzer::matrix {
class BuildCache;
class PrefixCache;
} // namespace fuzzer::matrix

// The stages after a case's worker run, shared by `fuzz` and `replay`, so that a finding is
// verified by exactly the code that found it.
namespace fuzzer::campaign {

// Whether a finding of this kind comes from the compiler matrix (compiler-divergence,
// load-error, runtime-divergence).
bool IsMatrixKind(corpus::FindingKind kind);

// The compilers to rebuild a matrix finding's case with: `names` if any, else those the
// matrix.json beside its smallest case (in `smallest`) names. InputError when neither says.
std::vector<matrix::Compiler> MatrixCompilersOf(const std::vector<std::string> &names,
                                                const std::filesystem::path &smallest,
                                                const std::string &id);

// Whether the run captured a TU with its compile command (what analysis and the matrix need).
bool CapturedAnyBuild(const worker::CaseOutcome &outcome);

// `check` on every TU the run captured, with the TU's own flags: a finding per Clang error.
// Returns the codegen features of the TUs together (parsers/codegen_features.h).
std::set<std::string> AnalyseCapturedTus(parsers::Analyzer &analyzer,
                                         const worker::CaseOutcome &outcome,
                                         const std::filesystem::path &case_dir,
                                         std::vector<corpus::Finding> &findings);

// The op-surface cells a worker's result reached (its "surface": [op, dtype, path] triples), as
// coverage features (corpus/surface_table.h).
void AddSurfaceCells(const nlohmann::json &result, std::set<std::string> &features);

// The op surface's universe of the worker's torch release, also written into the corpus for
// later reports; null, with `problem` set, when the worker cannot say (then a table lists the
// reached cells only).
nlohmann::json AskSurfaceUniverse(worker::Worker &worker, const std::filesystem::path &corpus,
                                  std::string &problem);

struct MatrixRun {
  corpus::MatrixRecord record;
  std::uint64_t builds = 0;
  std::uint64_t cached = 0;   // of builds, taken from the build cache
  std::uint64_t replayed = 0; // of builds, replayed on the recorded calls
};

// What a case's matrix keeps for later cases, each optional: builds by content, precompiled
// prefixes.
struct MatrixCaches {
  matrix::BuildCache *builds = nullptr;
  matrix::PrefixCache *prefixes = nullptr;
};

// The corpus's own cache of the matrix's builds, kept under CORPUS/.cache/.
std::filesystem::path MatrixBuildsIn(const std::filesystem::path &corpus);

// The precompiled prefixes of the matrix's compilers and of the Clang analysis, kept in the
// user's cache for every campaign, replay and reduction on this machine: a prefix is keyed by
// what it is made from (compiler, flags, include block) and checked against its headers before
// use, so a new corpus need not make again what an earlier one made (a 30 to 70 MB precompiled
// header, 4 to 14 s each, a few dozen in a campaign's first half hour).
std::filesystem::path SharedMatrixPrefixes();
std::filesystem::path SharedAnalysisPrefixes();

// The run's TUs rebuilt on `compilers` (through `caches`), loaded into `worker` and replayed on
// the calls recorded in Inductor's own run (the run must have recorded into
// case_dir/recordings): compiler-divergence, load-error and runtime-divergence findings.
MatrixRun RunMatrixOnCase(worker::Worker &worker, const corpus::Case &c,
                          const worker::CaseOutcome &outcome, const std::filesystem::path &case_dir,
                          const std::vector<matrix::Compiler> &compilers,
                          const MatrixCaches &caches, std::chrono::seconds timeout,
                          std::vector<corpus::Finding> &findings);

} // namespace fuzzer::campaign
