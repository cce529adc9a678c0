#include "reducers/case/case_reducer.h"

#include "corpus/finding.h"
#include "corpus/finding_kinds.h"
#include "fuzzer/campaign/probe.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "fuzzer/worker/worker_client.h"
#include "support/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>

namespace reducers {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

// What a run failed with: the signature it is judged by, and the kind of the finding that gave
// it (the row says how often a candidate must fail, the repro how it is written).
struct RunFailure {
  std::string signature;
  corpus::FindingKind kind;
};

RunFailure FailureOf(const corpus::Finding &finding) {
  return {corpus::Signature(finding), finding.kind};
}

// One thread per worker, for as long as the reduction: a worker process dies with the thread
// that started it (kill_with_parent), so it must be started, restarted and used by one
// long-lived thread, never by a thread per candidate.
class WorkerPool {
public:
  using Job = std::function<void(fuzzer::worker::Worker &, std::size_t index)>;

  // With `sanitizer`, each worker's kernels are built and run with it; its reports go to
  // SanitizerDir(i).
  // `kept_runs` is where a run the user keeps is recorded (the workers may write there too).
  WorkerPool(unsigned jobs, const support::ToolPaths &paths, const fs::path &scratch,
             const std::optional<fuzzer::worker::SanitizerOptions> &sanitizer,
             const fs::path &kept_runs = {})
      : slots_(std::max(1u, jobs)), scratch_(scratch), kept_runs_(kept_runs) {
    // A confined worker may write only beneath folders that exist when it starts (Landlock
    // holds the folder itself, not its path): the kept run's folder is made first.
    std::error_code ignored;
    if (!kept_runs_.empty())
      fs::create_directories(kept_runs_, ignored);
    for (std::size_t i = 0; i < slots_.size(); ++i)
      slots_[i].thread = std::thread([this, i, &paths, &sanitizer] { Serve(i, paths, sanitizer); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    changed_.notify_all();
    for (auto &slot : slots_)
      slot.thread.join();
  }
  std::size_t size() const { return slots_.size(); }
  fs::path SanitizerDir(std::size_t index) const {
    return scratch_ / fmt::format("worker-{}", index) / "sanitizer";
  }
  fs::path CacheDir(std::size_t index) const {
    return scratch_ / fmt::format("worker-{}", index) / "cache";
  }

  // Runs jobs[i] on worker i, all side by side, and returns when every one has finished.
  void RunBatch(const std::vector<Job> &jobs) {
    std::unique_lock lock(mutex_);
    for (std::size_t i = 0; i < jobs.size() && i < slots_.size(); ++i)
      slots_[i].job = jobs[i];
    changed_.notify_all();
    changed_.wait(lock, [&] {
      for (const auto &slot : slots_)
        if (slot.job)
          return false;
      return true;
    });
    for (auto &slot : slots_)
      if (auto error = std::exchange(slot.error, nullptr))
        std::rethrow_exception(error); // a broken torch: one clear error, from the caller
  }

private:
  struct Slot {
    std::thread thread;
    Job job;
    std::exception_ptr error;
  };

  void Serve(std::size_t index, const support::ToolPaths &paths,
             const std::optional<fuzzer::worker::SanitizerOptions> &sanitizer) {
    std::optional<fuzzer::worker::Worker> worker;
    try {
      worker.emplace(fuzzer::worker::WorkerOptions{
          .worker_executable = paths.worker_executable,
          .venv = paths.venv,
          .confine = paths.confine_workers,
          .scratch_dir = scratch_ / fmt::format("worker-{}", index) / "process",
          .log_file = scratch_ / fmt::format("worker-{}", index) / "worker.log",
          .environment = sanitizer
                             ? fuzzer::worker::SanitizerEnvironment(*sanitizer, SanitizerDir(index))
                             : std::map<std::string, std::string>{},
          .write_roots = {scratch_ / fmt::format("worker-{}", index), kept_runs_}});
    } catch (...) {
      std::lock_guard lock(mutex_);
      slots_[index].error = std::current_exception(); // reported by the first batch
    }
    while (true) {
      Job job;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return closing_ || slots_[index].job; });
        if (!slots_[index].job)
          break;
        job = slots_[index].job;
      }
      std::exception_ptr error;
      try {
        if (worker)
          job(*worker, index);
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard lock(mutex_);
        slots_[index].job = nullptr;
        if (error)
          slots_[index].error = error;
      }
      changed_.notify_all();
    }
    if (worker)
      worker->Shutdown();
  }

  std::vector<Slot> slots_;
  fs::path scratch_;
  fs::path kept_runs_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool closing_ = false;
};

class Reducer {
public:
  Reducer(const CaseReduceOptions &options, const PassContext &context,
          const support::ToolPaths &paths, const std::atomic<bool> &stop,
          const ReduceCallbacks &callbacks)
      : options_(options), context_(context), stop_(stop), callbacks_(callbacks),
        pool_(options.jobs, paths, options.scratch, options.sanitizer, options.final_run_dir),
        baseline_paths_(paths) {
    if (options.baseline_venv) {
      baseline_paths_.venv = *options.baseline_venv;
      baseline_pool_.emplace(1, baseline_paths_, options.scratch / "baseline", options.sanitizer);
    }
  }

  CaseReduction Run(const corpus::Case &c) {
    started_ = Clock::now();
    result_.original = result_.reduced = c;
    result_.nodes_before = result_.nodes_after = ExpressionNodes(c, context_);
    Confirm(c);
    bool progressed = true;
    while (progressed && !stop_) {
      progressed = false;
      for (const CasePass *pass : options_.passes) {
        while (!stop_) {
          auto candidates = pass->candidates(result_.reduced, context_);
          std::erase_if(candidates, [&](const corpus::Case &candidate) {
            return DropsANeededSetting(candidate);
          });
          const auto accepted = FirstThatFails(candidates, pass->name);
          if (!accepted)
            break;
          result_.reduced = *accepted;
          ++result_.steps;
          result_.accepted_passes.emplace_back(pass->name);
          result_.nodes_after = ExpressionNodes(result_.reduced, context_);
          progressed = true;
          Report(fmt::format("{}: accepted", pass->name));
          if (callbacks_.improved)
            callbacks_.improved(Snapshot());
        }
      }
    }
    if (options_.stage && !options_.final_run_dir.empty() && !stop_) {
      Report("the reduced case once more, kept in " + options_.final_run_dir.string());
      pool_.RunBatch({[&](fuzzer::worker::Worker &worker, std::size_t index) {
        const auto failure =
            RunFresh(result_.reduced, pool_, worker, index, nullptr, options_.final_run_dir);
        result_.final_run_signature = failure ? failure->signature : "";
      }});
    }
    return Snapshot();
  }

private:
  CaseReduction Snapshot() {
    result_.seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    result_.interrupted = stop_.load();
    result_.invalid = invalid_.load();
    return result_;
  }

  void Report(const std::string &what) {
    if (!callbacks_.progress)
      return;
    const double seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    callbacks_.progress(fmt::format(
        "reduce: {} nodes (from {}), volume {}, {} step(s), {} candidate(s) run in {:.0f} s "
        "({:.1f}/min): {}",
        result_.nodes_after, result_.nodes_before, CaseVolume(result_.reduced), result_.steps,
        result_.tried, seconds, seconds > 0 ? result_.tried * 60 / seconds : 0.0, what));
  }

  // The failure of one run of `c` on worker `index` of `pool`, in a fresh Inductor cache;
  // none when it passed (or raised what it expects). With sanitizers, the first memory error
  // in a kernel is the failure, ahead of the crash it caused.
  // With a stage, its files go to `stage_dir` (default: a folder of the worker's, removed
  // after the run).
  std::optional<RunFailure> RunFresh(const corpus::Case &c, const WorkerPool &pool,
                                     fuzzer::worker::Worker &worker, std::size_t index,
                                     corpus::CaseStatus *status = nullptr,
                                     fs::path stage_dir = {}) {
    const fs::path cache = pool.CacheDir(index);
    std::error_code ignored;
    fs::remove_all(cache, ignored);
    const bool keep_stage_dir = !stage_dir.empty();
    if (options_.stage) {
      if (stage_dir.empty())
        stage_dir = cache.parent_path() / "stage";
      if (keep_stage_dir) {
        // Emptied, not replaced: a confined worker may write only into the folder it started
        // with (Landlock holds the folder, not its path).
        for (const auto &entry : fs::directory_iterator(stage_dir, ignored))
          fs::remove_all(entry.path(), ignored);
      } else {
        fs::remove_all(stage_dir, ignored);
      }
      fs::create_directories(stage_dir);
    }
    const auto outcome = fuzzer::worker::RunCaseOnWorker(
        worker, c, cache,
        std::chrono::duration_cast<std::chrono::milliseconds>(options_.case_timeout),
        {.record_dir = options_.stage ? stage_dir / "recordings" : fs::path()});
    if (status)
      *status = outcome.status;
    // An invalid case (eager failed, or the case breaks an API contract) has no finding, so no
    // signature: it is never kept, whatever its compiled run would have given.
    std::optional<RunFailure> failure;
    if (outcome.finding)
      failure = FailureOf(*outcome.finding);
    if (options_.stage && outcome.status != corpus::CaseStatus::kInvalidCase) {
      // Read before the cache goes: the stage replays Inductor's own modules from it.
      const auto findings = options_.stage(worker, c, outcome, stage_dir);
      const std::string &keep = result_.signature.empty() ? options_.signature : result_.signature;
      if (!findings.empty())
        failure = FailureOf(findings.front());
      for (const auto &finding : findings)
        if (!keep.empty() && corpus::Signature(finding) == keep)
          failure = FailureOf(finding);
      if (!keep_stage_dir)
        fs::remove_all(stage_dir, ignored);
    }
    if (options_.sanitizer) {
      // Read before the cache goes: a report names the kernel's TU there.
      const auto errors = fuzzer::worker::CollectMemoryErrors(pool.SanitizerDir(index), cache);
      fuzzer::worker::ClearSanitizerReports(pool.SanitizerDir(index));
      if (!errors.empty())
        failure = FailureOf(errors.front());
    }
    fs::remove_all(cache, ignored);
    return failure;
  }

  std::optional<RunFailure> RunOnce(const corpus::Case &c, fuzzer::worker::Worker &worker,
                                    std::size_t index) {
    corpus::CaseStatus status = corpus::CaseStatus::kPass;
    auto failure = RunFresh(c, pool_, worker, index, &status);
    if (status == corpus::CaseStatus::kInvalidCase)
      ++invalid_;
    return failure;
  }

  // Whether one run of `c` on worker `index` fails with the signature kept.
  bool FailsAsKept(const corpus::Case &c, fuzzer::worker::Worker &worker, std::size_t index) {
    const auto failure = RunOnce(c, worker, index);
    return failure && failure->signature == result_.signature;
  }

  // Whether `c` passes (or raises what it expects) on the baseline release.
  bool PassesOnBaseline(const corpus::Case &c) {
    bool passes = false;
    baseline_pool_->RunBatch({[&](fuzzer::worker::Worker &worker, std::size_t index) {
      passes = !RunFresh(c, *baseline_pool_, worker, index);
    }});
    ++result_.baseline_runs;
    return passes;
  }

  // The failure of one run of `c` on the first worker.
  std::optional<RunFailure> RunOnFirst(const corpus::Case &c) {
    std::optional<RunFailure> failure;
    pool_.RunBatch({[&](fuzzer::worker::Worker &worker, std::size_t index) {
      failure = RunOnce(c, worker, index);
    }});
    return failure;
  }

  void Confirm(const corpus::Case &c) {
    const auto first = RunOnFirst(c);
    if (!first && invalid_ > 0)
      throw support::InputError(
          "the case is invalid, not a finding: eager fails on it or it breaks an API contract "
          "(see docs/contracts.md); nothing to reduce (`inductor-fuzz run-case` on it says why)");
    if (!first)
      throw support::InputError(
          "the case does not fail on this torch: nothing to reduce (try `inductor-fuzz "
          "run-case` on it)");
    result_.confirm_runs =
        options_.confirm ? options_.confirm : corpus::RowOf(first->kind).confirm_runs;
    // A memory bug shows as a segfault one run and a glibc abort the next: without a signature
    // to keep, the one seen most often (the first among equals) is kept.
    std::vector<std::string> seen = {first->signature};
    std::map<std::string, corpus::FindingKind> kind_of = {{first->signature, first->kind}};
    for (unsigned run = 1; run < result_.confirm_runs; ++run) {
      const auto again = RunOnFirst(c);
      seen.push_back(again ? again->signature : "");
      if (again)
        kind_of.emplace(again->signature, again->kind);
    }
    result_.signature = options_.signature;
    if (result_.signature.empty())
      for (const auto &signature : seen)
        if (!signature.empty() && (result_.signature.empty() ||
                                   std::count(seen.begin(), seen.end(), signature) >
                                       std::count(seen.begin(), seen.end(), result_.signature)))
          result_.signature = signature;
    result_.reproduced =
        static_cast<unsigned>(std::count(seen.begin(), seen.end(), result_.signature));
    if (result_.reproduced == 0)
      throw support::InputError(
          fmt::format("the case fails, but not with the signature to keep ({}); it gave {}",
                      result_.signature, first->signature));
    result_.kind = kind_of.at(result_.signature); // seen, so its kind is known
    if (baseline_pool_ && !PassesOnBaseline(c))
      throw support::InputError(fmt::format(
          "the case does not pass on the baseline torch ({}): it is no regression; reduce it "
          "without --baseline-torch",
          options_.baseline_venv->string()));
    tries_ = result_.reproduced == result_.confirm_runs ? 1 : result_.confirm_runs;
    Report(fmt::format("the untouched case fails {} time(s) of {} with {}", result_.reproduced,
                       result_.confirm_runs, result_.signature));
  }

  // The first candidate, in order, that fails with the signature; `jobs` run side by side.
  // Whether a candidate no longer has a setting the failure needs (its probe's verdict).
  bool DropsANeededSetting(const corpus::Case &candidate) const {
    if (options_.needs.empty())
      return false;
    std::set<std::string> has;
    for (const auto &setting : fuzzer::campaign::ProbeSettings(candidate))
      has.insert(setting.name);
    for (const auto &needed : options_.needs)
      if (!has.contains(needed))
        return true;
    return false;
  }

  std::optional<corpus::Case> FirstThatFails(const std::vector<corpus::Case> &candidates,
                                             std::string_view pass) {
    for (std::size_t start = 0; start < candidates.size() && !stop_; start += pool_.size()) {
      const std::size_t count = std::min(pool_.size(), candidates.size() - start);
      std::vector<char> fails(count, 0);
      std::vector<WorkerPool::Job> jobs;
      for (std::size_t i = 0; i < count; ++i)
        jobs.push_back([&, i](fuzzer::worker::Worker &worker, std::size_t index) {
          for (unsigned attempt = 0; attempt < tries_ && !fails[i]; ++attempt)
            fails[i] = FailsAsKept(candidates[start + i], worker, index);
        });
      pool_.RunBatch(jobs);
      result_.tried += count;
      Report(fmt::format("{} {}/{}", pass, start + count, candidates.size()));
      for (std::size_t i = 0; i < count; ++i)
        if (fails[i] && (!baseline_pool_ || PassesOnBaseline(candidates[start + i])))
          return candidates[start + i];
    }
    return std::nullopt;
  }

  const CaseReduceOptions &options_;
  const PassContext &context_;
  const std::atomic<bool> &stop_;
  const ReduceCallbacks &callbacks_;
  WorkerPool pool_;
  support::ToolPaths baseline_paths_; // the baseline pool's workers read it
  std::optional<WorkerPool> baseline_pool_;
  CaseReduction result_;
  unsigned tries_ = 1;
  std::atomic<unsigned> invalid_{0}; // runs the worker called invalid-case
  Clock::time_point started_;
};

} // namespace

CaseReduction ReduceCase(const corpus::Case &c, const CaseReduceOptions &options,
                         const PassContext &context, const support::ToolPaths &paths,
                         const std::atomic<bool> &stop, const ReduceCallbacks &callbacks) {
  if (options.passes.empty())
    throw support::InputError("no case passes to run: the pass order file lists none");
  Reducer reducer(options, context, paths, stop, callbacks);
  return reducer.Run(c);
}

} // namespace reducers
