#pragma once

#include "corpus/known_issues.h"
#include "fuzzer/campaign/journal.h"
#include "fuzzer/campaign/probe.h"
#include "fuzzer/generate/policy.h"
#include "fuzzer/matrix/compilers.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "support/shared_options.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

// What a campaign is told. The loop's own options are CampaignOptions' plain members; each
// stage of a case's journey (case_stages.h) reads one group of its own, named after it, and
// the stage's function takes that group alone, so what a stage depends on is its signature.
namespace fuzzer::campaign {

// The generate stage: which case comes next.
struct GenerateOptions {
  generate::GenerationPolicy policy = generate::GenerationPolicy::Default();
  // Coverage feedback: a case that brings a new codegen feature joins CORPUS/queue/ (needs the
  // analysis), and a share of the cases (policy "p_mutate") are mutations of queue cases.
  bool feedback = true;
  // Tests only: the worker of case i is made to crash, hang or allocate without bound, or the
  // disk is full when case i is stored.
  std::map<std::uint64_t, std::string> fault_injection;
};

// The run stage, and the worker processes every stage runs on.
struct RunOptions {
  std::chrono::seconds case_timeout{support::options::CaseTimeout::Default()};
  // Compiler outputs by content (capture.py's BuildCache): a build whose compiler, command and
  // inputs an earlier one had gets that output instead of a compile; every build is still
  // captured. Empty: every build runs its compiler.
  std::filesystem::path shared_builds;
  unsigned recycle_after_cases = 200;           // a fresh worker process after this many cases
  std::size_t worker_memory_limit = 6ull << 30; // and when its resident memory passes this
};

// The sanitizer stages.
struct SanitizerStageOptions {
  // Every case runs in workers whose kernels are built with these sanitizers: an error they
  // report in a kernel is a memory-error finding (the sanitizer_fold stage).
  std::optional<worker::SanitizerOptions> every_case;
  // A case that crashes runs again with these sanitizers; what they report in a kernel is a
  // memory-error finding of its own (the sanitizer_reruns stage; none: crashes are not looked
  // at again).
  std::optional<worker::SanitizerOptions> crashes;
};

// The matrix stage: every case whose index is a multiple of `every` (0: never) is rebuilt on
// these compilers and its recorded calls replayed; builds are cached by content in the corpus.
struct MatrixOptions {
  std::vector<matrix::Compiler> compilers;
  unsigned every = 0;
};

// The analysis stage: `check` on every captured TU, each Clang error a finding; the codegen
// features it reads are what coverage feedback counts.
struct AnalysisOptions {
  bool static_analysis = true;
};

struct CampaignOptions {
  std::optional<std::chrono::seconds> time_limit; // stop dispatching cases after this long
  std::optional<std::uint64_t> cases;             // the seed sequence's length: indices [0, N)
  unsigned jobs = 1;                              // workers, one case each at a time
  std::uint64_t seed = 1;
  Shard shard;
  std::filesystem::path corpus;
  corpus::KnownIssues known_issues;
  bool resume = false;
  std::string command_line;
  // Time kept from the cases for reducing each new bug afterwards (`fuzz --reduce`): with a
  // time limit, cases stop this much earlier per new bug, at most at half the limit.
  std::chrono::seconds reserve_per_new_bug{0};
  std::chrono::milliseconds progress_interval{30000}; // between status lines

  GenerateOptions generate;
  RunOptions run;
  SanitizerStageOptions sanitizers;
  // A wrong result or a crash runs again with each non-default setting put back, so that its
  // bug key says what it needs (probe.h); max_runs 0: no probe.
  ProbeOptions probe;
  MatrixOptions matrix;
  AnalysisOptions analysis;
};

} // namespace fuzzer::campaign
