#pragma once

#include "corpus/case.h"
#include "corpus/finding.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "reducers/case/case_passes.h"
#include "support/tool_paths.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fuzzer::worker {
class Worker;
struct CaseOutcome;
} // namespace fuzzer::worker

namespace reducers {

// A stage after the worker's run that a finding came from (the compiler matrix, for a matrix
// finding): given the worker that ran a candidate, the candidate, its outcome (its kernel calls
// recorded in case_dir/recordings) and case_dir, a folder of its own, the findings that stage
// makes of the run. The caller supplies it (the reducer knows only the worker's oracles); it runs
// on the pool's threads, `jobs` at once.
using AfterRunStage = std::function<std::vector<corpus::Finding>(
    fuzzer::worker::Worker &, const corpus::Case &, const fuzzer::worker::CaseOutcome &,
    const std::filesystem::path &case_dir)>;

struct CaseReduceOptions {
  unsigned jobs = 1;    // workers evaluating candidates side by side
  unsigned confirm = 0; // runs of the untouched case; 0: 3 for a crash or timeout, else 1
  std::chrono::seconds case_timeout{300};
  std::vector<const CasePass *> passes; // in order; the list repeats until nothing is accepted
  std::string signature;                // the one to keep; empty: the untouched case's
  // The settings the failure's probe found it needs ("dtype=16-bit"): a candidate that puts one
  // back would pass, so it is not run (fuzzer/campaign/probe.h names them).
  std::vector<std::string> needs;
  std::filesystem::path scratch; // workers' scratch and Inductor caches
  // A regression: every accepted candidate must also pass on the torch in this venv (the
  // baseline release), and so must the untouched case.
  std::optional<std::filesystem::path> baseline_venv;
  // A memory error: every worker builds and runs the kernels with these sanitizers, and the
  // first error they report in a kernel is a run's signature.
  std::optional<fuzzer::worker::SanitizerOptions> sanitizer;
  // With a stage, every run records its kernel calls and goes through it, and a run's signature
  // is the stage's finding with the signature to keep if there is one (else the stage's first,
  // else the worker's).
  AfterRunStage stage;
  // With a stage: the reduced case runs once more through it into this folder, which is kept
  // (its run record, sources, recordings and whatever the stage writes).
  std::filesystem::path final_run_dir;
};

struct CaseReduction {
  corpus::Case original;
  corpus::Case reduced;
  std::string signature;
  // The kept signature's kind, from the run that showed it (a returned reduction always has
  // one: the untouched case failed with it).
  corpus::FindingKind kind = corpus::FindingKind::kException;
  unsigned confirm_runs = 0;
  unsigned reproduced = 0;    // of confirm_runs
  unsigned steps = 0;         // candidates accepted
  unsigned tried = 0;         // candidates run
  unsigned baseline_runs = 0; // runs on the baseline release (a regression's reduction)
  unsigned invalid = 0;       // runs the worker called invalid-case (never kept)
  double seconds = 0;
  int nodes_before = 0;
  int nodes_after = 0;
  bool interrupted = false;
  std::vector<std::string> accepted_passes; // one per step
  std::string final_run_signature;          // the final run's, with a stage and final_run_dir
};

// Called with each line of progress, and with every new best case (for Ctrl-C to leave it).
struct ReduceCallbacks {
  std::function<void(const std::string &)> progress;
  std::function<void(const CaseReduction &)> improved;
};

// Reduces `c` while its failure keeps the same signature: the untouched case first (an
// InputError when it does not fail, or fails differently from options.signature), then each
// pass's candidates, `jobs` at a time, accepting the first in the pass's order that fails the
// same way. A candidate the worker calls invalid-case (eager fails, or it breaks an API
// contract, such as a mask that reads h with an H=None block mask) has no signature and is
// never accepted. A signature that reproduced only some of the time is given `confirm` tries per
// candidate. `stop` ends it early with the best case so far.
CaseReduction ReduceCase(const corpus::Case &c, const CaseReduceOptions &options,
                         const PassContext &context, const support::ToolPaths &paths,
                         const std::atomic<bool> &stop, const ReduceCallbacks &callbacks);

} // namespace reducers
