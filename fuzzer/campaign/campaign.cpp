#include "fuzzer/campaign/campaign.h"

#include "fuzzer/campaign/case_pipeline.h"
#include "fuzzer/campaign/case_source.h"
#include "fuzzer/campaign/case_stages.h"
#include "fuzzer/campaign/first_failure.h"
#include "fuzzer/campaign/mutation_share.h"
#include "fuzzer/campaign/seed_pool.h"
#include "fuzzer/campaign/stage_timer.h"

#include "corpus/finding_kinds.h"
#include "corpus/finding_store.h"
#include "fuzzer/generate/generator.h"
#include "fuzzer/matrix/build_cache.h"
#include "fuzzer/matrix/prefix_cache.h"
#include "fuzzer/worker/worker_client.h"
#include "parsers/clang_analysis.h"
#include "support/errors.h"
#include "support/scratch_dir.h"

#include <fmt/format.h>

#include <condition_variable>
#include <csignal>
#include <deque>
#include <mutex>
#include <thread>

namespace fuzzer::campaign {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

class Campaign {
public:
  Campaign(const CampaignOptions &options, const support::ToolPaths &paths,
           const std::atomic<bool> &stop, const ProgressLine &progress)
      : options_(options), paths_(paths), stop_(stop), progress_(progress), store_(options.corpus),
        scratch_("campaign"), analyzer_({.prefix_cache_dir = SharedAnalysisPrefixes()}),
        build_cache_(MatrixBuildsIn(options.corpus)), prefix_cache_(SharedMatrixPrefixes()),
        pool_(options.corpus / "queue"), mutation_share_(options.generate.policy),
        cases_(options, paths, pool_, mutation_share_, progress) {}

  CampaignStats Run() {
    tally_.Start();
    const auto stored_before = store_.List();
    // Opened once the corpus has read whole: a refused campaign leaves no journal behind.
    journal_.emplace(Journal::PathFor(options_.corpus, Header()), Header(), options_.resume);
    CountCorpusBefore(stored_before);
    std::vector<std::unique_ptr<WorkerSlot>> slots;
    for (unsigned job = 0; job < std::max(1u, options_.jobs); ++job)
      slots.push_back(MakeSlot(job));
    // Start the first worker here, so that a broken torch is one clear error, not N findings.
    torch_version_ = slots.front()->worker->Ready().value("torch_version", "");
    services_.emplace(CampaignServices{.paths = paths_,
                                       .cases = cases_,
                                       .probe_memo = probe_memo_,
                                       .build_cache = build_cache_,
                                       .prefix_cache = prefix_cache_,
                                       .analyzer = analyzer_,
                                       .pool = pool_,
                                       .mutation_share = mutation_share_,
                                       .store = store_,
                                       .journal = *journal_,
                                       .torch_version = torch_version_,
                                       .tally = tally_});

    const auto wake_all = [this] {
      ran_changed_.notify_all();
      wake_.notify_all();
    };
    std::thread monitor([&] { failure_.Run([&] { Monitor(slots); }, wake_all); });
    std::thread analysis(
        [this, &wake_all] { failure_.Run([this] { AnalyseAndStore(); }, wake_all); });
    std::vector<std::thread> threads;
    for (auto &slot : slots)
      threads.emplace_back(
          [this, &slot, &wake_all] { failure_.Run([this, &slot] { Serve(*slot); }, wake_all); });
    for (auto &thread : threads)
      thread.join();
    {
      std::lock_guard lock(ran_mutex_);
      serving_done_ = true;
    }
    ran_changed_.notify_all();
    analysis.join();
    {
      std::lock_guard lock(tally_.Mutex());
      finished_ = true;
    }
    wake_.notify_all();
    monitor.join();
    for (auto &slot : slots)
      if (slot != slots.front())
        slot->worker->Shutdown();
    failure_.RethrowIfAny(options_.corpus);
    AskUniverseForTheReport(*slots.front()->worker);
    slots.front()->worker->Shutdown();
    std::lock_guard lock(tally_.Mutex());
    stats().seconds = tally_.Elapsed();
    stats().interrupted = stop_.load();
    progress_(StatusLine(), true);
    return stats();
  }

private:
  // The op-surface table's universe, asked after the cases: it is for the report only, and
  // its first derivation on a machine (half a minute, then cached) would delay the first case.
  void AskUniverseForTheReport(worker::Worker &worker) {
    std::string no_universe = "the op-surface table lists reached cells only (interrupted)";
    nlohmann::json universe;
    if (!stop_.load()) {
      no_universe.clear();
      try { // a worker that cannot start again costs the table its universe, not the report
        universe = AskSurfaceUniverse(worker, options_.corpus, no_universe);
      } catch (const std::exception &error) {
        no_universe = fmt::format("no op-surface universe ({}); the table lists reached cells "
                                  "only",
                                  error.what());
      }
    }
    std::lock_guard lock(tally_.Mutex());
    stats().surface_universe = std::move(universe);
    if (!no_universe.empty())
      progress_("fuzz: " + no_universe, false);
  }

  // The campaign's counts; under tally_.Mutex() once the threads run.
  CampaignStats &stats() { return tally_.Stats(); }
  const CampaignStats &stats() const { return tally_.Stats(); }

  JournalHeader Header() const {
    return {.seed = options_.seed,
            .shard = options_.shard,
            .policy_sha256 = options_.generate.policy.Sha256(),
            .generator_version = generate::kGeneratorVersion};
  }

  std::unique_ptr<WorkerSlot> MakeSlot(unsigned job) const {
    auto slot = std::make_unique<WorkerSlot>();
    slot->scratch = scratch_ / fmt::format("worker-{}", job);
    const auto &sanitize = options_.sanitizers.every_case;
    slot->worker = std::make_unique<worker::Worker>(worker::WorkerOptions{
        .worker_executable = paths_.worker_executable,
        .venv = paths_.venv,
        .confine = paths_.confine_workers,
        .scratch_dir = slot->scratch / "process",
        .log_file = slot->scratch / "worker.log",
        .environment = sanitize
                           ? worker::SanitizerEnvironment(*sanitize, slot->scratch / "sanitizer")
                           : std::map<std::string, std::string>{},
        .share_warm_up_builds = !options_.run.shared_builds.empty()});
    return slot;
  }

  // The corpus's findings as bugs (grouped, joined, their known issues) before any case runs.
  void CountCorpusBefore(const std::vector<corpus::StoredFinding> &stored_before) {
    auto &stats = this->stats();
    for (const auto &stored : stored_before) {
      stats.grouper.Add(stored.id, stored.key);
      stats.stored_before.insert(stored.id);
      if (const auto *known =
              options_.known_issues.Match(stored.signature, stats.grouper.KeyOf(stored.id)))
        stats.known_issue_of[stored.id] = known->id;
    }
    for (const auto &stored : stored_before)
      for (const auto &hit : stored.hits)
        for (const auto &other : hit.same_bug_as)
          stats.grouper.Join(stored.id, other);
    for (const auto &[index, entry] : journal_->Entries())
      stats.resumed_cases += options_.shard.Owns(index);
    RecordCorpusBefore();
  }

  // What the corpus held when this campaign opened it (yesterday's night, or the shards before):
  // summary.json's "since" says what is new against it.
  void RecordCorpusBefore() {
    auto &stats = this->stats();
    std::set<std::string> roots;
    for (const auto &id : stats.stored_before)
      roots.insert(stats.grouper.Root(id));
    stats.bugs_before = roots.size();
    stats.features_before = pool_.FeaturesSeen();
    const auto own = Journal::PathFor(options_.corpus, Header()).filename();
    std::error_code error;
    for (const auto &file : fs::directory_iterator(options_.corpus / "campaigns", error))
      if (file.path().extension() == ".jsonl" && file.path().filename() != own)
        stats.campaigns_before.push_back(file.path().stem().string());
    std::sort(stats.campaigns_before.begin(), stats.campaigns_before.end());
  }

  // The end of the time limit kept for reducing the new bugs so far (under the tally's lock).
  std::chrono::seconds Reserve() const {
    if (options_.reserve_per_new_bug.count() == 0 || !options_.time_limit)
      return std::chrono::seconds(0);
    const auto wanted = options_.reserve_per_new_bug * static_cast<long>(stats().NewBugs());
    return std::min(wanted, *options_.time_limit / 2);
  }

  // The mean wall time of this campaign's finished cases (0 before the first), under the lock.
  double MeanCaseSeconds() const {
    double cases = 0, wall = 0;
    for (const auto &[family, times] : stats().time_by_family) {
      cases += times.contains("cases") ? times.at("cases") : 0;
      wall += times.contains("wall") ? times.at("wall") : 0;
    }
    return cases > 0 ? wall / cases : 0;
  }

  // The next case index this shard owns and has not finished, or none when the campaign ends:
  // stopped, out of cases, or out of time. No case starts when less time is left than the cases
  // so far took on average, so that a campaign ends within --time, not one case past it.
  std::optional<std::uint64_t> NextIndex() {
    std::lock_guard lock(tally_.Mutex());
    while (true) {
      if (stop_.load() || failure_.Halted() ||
          (options_.time_limit &&
           tally_.Elapsed() + MeanCaseSeconds() >=
               static_cast<double>((*options_.time_limit - Reserve()).count())))
        return std::nullopt;
      const std::uint64_t index = next_index_++;
      if (options_.cases && index >= *options_.cases)
        return std::nullopt;
      if (options_.shard.Owns(index) && !journal_->Done(index))
        return index;
    }
  }

  // The stages of `thread` that apply to the case, in the table's order, each timed on its
  // row's key.
  void RunStages(CaseInFlight &c, StageThread thread, WorkerSlot *slot) {
    const StageContext context{.options = options_, .services = *services_, .slot = slot};
    for (const CaseStage &stage : CaseStages()) {
      if (stage.thread != thread || !stage.applies(c, options_))
        continue;
      if (!stage.timed) {
        stage.run(c, context);
        continue;
      }
      StageTimer timer(c.stages, std::string(stage.name), slot ? slot->worker.get() : nullptr);
      stage.run(c, context);
    }
  }

  void Serve(WorkerSlot &slot) {
    while (const auto index = NextIndex()) {
      const auto case_started = Clock::now();
      CaseInFlight c{.index = *index, .case_dir = slot.scratch / fmt::format("case-{}", *index)};
      RunStages(c, StageThread::kWorker, &slot);
      Recycle(slot, c.outcome, c.resident);
      c.seconds = std::chrono::duration<double>(Clock::now() - case_started).count();
      Submit(std::move(c));
    }
    // Here, not later: a worker dies with the thread that started it (kill_with_parent).
    slot.worker->Shutdown();
  }

  // Hands a case to the analysis thread, so that its worker starts the next case while Clang
  // reads this one's TUs. No worker runs more than one case ahead of it.
  void Submit(CaseInFlight c) {
    std::unique_lock lock(ran_mutex_);
    ran_changed_.wait(
        lock, [&] { return ran_.size() < std::max(1u, options_.jobs) || failure_.Halted(); });
    if (failure_.Halted())
      return; // the analysis thread is gone: the case stays out of the journal, --resume reruns it
    ran_.push_back(std::move(c));
    ran_changed_.notify_all();
  }

  // The analysis thread: the analysis stages of each case in the order its worker finished.
  void AnalyseAndStore() {
    while (true) {
      CaseInFlight c;
      {
        std::unique_lock lock(ran_mutex_);
        ran_changed_.wait(lock,
                          [&] { return !ran_.empty() || serving_done_ || failure_.Halted(); });
        if (ran_.empty() || failure_.Halted())
          return;
        c = std::move(ran_.front());
        ran_.pop_front();
      }
      ran_changed_.notify_all();
      RunStages(c, StageThread::kAnalysis, nullptr);
      std::error_code error;
      fs::remove_all(c.case_dir, error);
    }
  }

  void Recycle(WorkerSlot &slot, const worker::CaseOutcome &outcome, std::size_t resident) {
    // A worker that crashed or hung is gone already; the next case starts a new one.
    const bool died = outcome.finding && corpus::RowOf(outcome.finding->kind).ends_the_process;
    // Memory stays flat over a night: a fresh process every N cases or past the threshold.
    const bool recycle = !died && (++slot.cases_on_process >= options_.run.recycle_after_cases ||
                                   resident > options_.run.worker_memory_limit / 2);
    if (recycle)
      slot.worker->Shutdown();
    if (died || recycle) {
      slot.cases_on_process = 0;
      tally_.Update([](CampaignStats &stats) { ++stats.worker_restarts; });
    }
  }

  // Kills a worker whose resident memory passes the limit, and reports progress.
  void Monitor(const std::vector<std::unique_ptr<WorkerSlot>> &slots) {
    auto last_line = Clock::now();
    std::unique_lock lock(tally_.Mutex());
    while (!finished_ && !failure_.Halted()) {
      wake_.wait_for(lock, std::chrono::milliseconds(250));
      lock.unlock();
      for (const auto &slot : slots) {
        const int pid = slot->pid.load();
        if (pid > 0 && ResidentBytes(pid) > options_.run.worker_memory_limit) {
          slot->killed_for_memory = true;
          ::kill(pid, SIGKILL);
        }
      }
      lock.lock();
      if (Clock::now() - last_line >= options_.progress_interval) {
        progress_(StatusLine(), false);
        last_line = Clock::now();
      }
    }
  }

  // Under the tally's lock.
  std::string StatusLine() const {
    const std::optional<double> mutating =
        options_.generate.feedback ? std::optional<double>(mutation_share_.Share()) : std::nullopt;
    return CampaignStatusLine(stats(), tally_.Elapsed(), options_.time_limit, Reserve(), mutating);
  }

  const CampaignOptions &options_;
  const support::ToolPaths &paths_;
  const std::atomic<bool> &stop_;
  const ProgressLine &progress_;
  corpus::FindingStore store_;
  std::optional<Journal> journal_; // from Run()
  support::ScratchDir scratch_;
  FirstFailure failure_;
  parsers::Analyzer analyzer_;
  matrix::BuildCache build_cache_;
  matrix::PrefixCache prefix_cache_;
  ProbeMemo probe_memo_;
  std::string torch_version_;
  SeedPool pool_;
  MutationShare mutation_share_;
  CaseSource cases_;
  CampaignTally tally_;                      // its mutex also guards finished_ and next_index_
  std::optional<CampaignServices> services_; // from Run(), once the journal is open
  std::condition_variable wake_;
  bool finished_ = false;
  std::mutex ran_mutex_; // guards ran_ and serving_done_
  std::condition_variable ran_changed_;
  std::deque<CaseInFlight> ran_;
  bool serving_done_ = false;
  std::uint64_t next_index_ = 0;
};

} // namespace

CampaignStats RunCampaign(const CampaignOptions &options, const support::ToolPaths &paths,
                          const std::atomic<bool> &stop, const ProgressLine &progress) {
  if (!options.time_limit && !options.cases)
    throw support::InputError("a campaign needs an end: give --time or --cases");
  if (options.shard.count == 0 || options.shard.index >= options.shard.count)
    throw support::InputError(fmt::format("--shard {}/{} is not a shard: use I/N with 0 <= I < N",
                                          options.shard.index, options.shard.count));
  Campaign campaign(options, paths, stop, progress);
  return campaign.Run();
}

} // namespace fuzzer::campaign
