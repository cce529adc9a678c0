#include "fuzzer/campaign/campaign.h"
#include "fuzzer/campaign/finished_case.h"
#include "fuzzer/campaign/first_failure.h"
#include "fuzzer/campaign/stage_timer.h"

#include "fuzzer/campaign/case_pipeline.h"
#include "fuzzer/campaign/mutation_share.h"
#include "fuzzer/campaign/seed_pool.h"

#include "corpus/bug_key.h"
#include "corpus/finding_kinds.h"
#include "corpus/finding_store.h"
#include "corpus/matrix_record.h"
#include "fuzzer/generate/generator.h"
#include "fuzzer/generate/mutator.h"
#include "fuzzer/matrix/build_cache.h"
#include "fuzzer/matrix/prefix_cache.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"
#include "fuzzer/worker/worker_python.h"
#include "parsers/clang_analysis.h"
#include "support/errors.h"
#include "support/scratch_dir.h"

#include <fmt/format.h>

#include <condition_variable>
#include <csignal>
#include <deque>
#include <fstream>
#include <mutex>
#include <thread>

namespace fuzzer::campaign {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

// The body a fault-injection switch puts into a case's mask_mod (tests only).
std::string FaultBody(const std::string &fault) {
  if (fault == "segfault")
    return "    import ctypes\n    ctypes.string_at(0)\n    return q_idx >= kv_idx\n";
  if (fault == "hang")
    return "    import time\n    time.sleep(100000)\n    return q_idx >= kv_idx\n";
  if (fault == "allocate")
    return "    hoard = []\n    while True:\n        hoard.append(bytearray(64 << 20))\n";
  throw support::InputError(
      fmt::format("fault '{}' is not one of segfault, hang, allocate, disk-full", fault));
}

std::size_t ResidentBytes(int pid) {
  std::ifstream status(fmt::format("/proc/{}/status", pid));
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with("VmRSS:"))
      return std::stoull(line.substr(6)) * 1024;
  return 0;
}

// One worker and what the campaign knows about it.
struct Slot {
  std::unique_ptr<worker::Worker> worker;
  std::atomic<int> pid{0}; // of the process serving the current case, 0 between
  std::atomic<bool> killed_for_memory{false};
  unsigned cases_on_process = 0;
  fs::path scratch;
};

class Campaign {
public:
  Campaign(const CampaignOptions &options, const support::ToolPaths &paths,
           const std::atomic<bool> &stop, const ProgressLine &progress)
      : options_(options), paths_(paths), stop_(stop), progress_(progress), store_(options.corpus),
        scratch_("campaign"), analyzer_({.prefix_cache_dir = SharedAnalysisPrefixes()}),
        build_cache_(MatrixBuildsIn(options.corpus)), prefix_cache_(SharedMatrixPrefixes()),
        pool_(options.corpus / "queue"), mutation_share_(options.policy) {}

  CampaignStats Run() {
    started_ = Clock::now();
    const auto stored_before = store_.List();
    // Opened once the corpus has read whole: a refused campaign leaves no journal behind.
    journal_.emplace(Journal::PathFor(options_.corpus, Header()), Header(), options_.resume);
    for (const auto &stored : stored_before) {
      stats_.grouper.Add(stored.id, stored.key);
      stats_.stored_before.insert(stored.id);
      if (const auto *known = KnownIssueOf(stored.signature, stats_.grouper.KeyOf(stored.id)))
        stats_.known_issue_of[stored.id] = known->id;
    }
    for (const auto &stored : stored_before)
      for (const auto &hit : stored.hits)
        for (const auto &other : hit.same_bug_as)
          stats_.grouper.Join(stored.id, other);
    for (const auto &[index, entry] : journal_->Entries())
      stats_.resumed_cases += options_.shard.Owns(index);
    RecordCorpusBefore();
    std::vector<std::unique_ptr<Slot>> slots;
    for (unsigned job = 0; job < std::max(1u, options_.jobs); ++job) {
      auto slot = std::make_unique<Slot>();
      slot->scratch = scratch_ / fmt::format("worker-{}", job);
      slot->worker = std::make_unique<worker::Worker>(worker::WorkerOptions{
          .worker_executable = paths_.worker_executable,
          .venv = paths_.venv,
          .confine = paths_.confine_workers,
          .scratch_dir = slot->scratch / "process",
          .log_file = slot->scratch / "worker.log",
          .environment = options_.sanitize ? worker::SanitizerEnvironment(
                                                 *options_.sanitize, slot->scratch / "sanitizer")
                                           : std::map<std::string, std::string>{},
          .share_warm_up_builds = !options_.shared_builds.empty()});
      slots.push_back(std::move(slot));
    }
    // Start the first worker here, so that a broken torch is one clear error, not N findings.
    torch_version_ = slots.front()->worker->Ready().value("torch_version", "");
    std::string no_universe;
    stats_.surface_universe =
        AskSurfaceUniverse(*slots.front()->worker, options_.corpus, no_universe);
    if (!no_universe.empty())
      progress_("fuzz: " + no_universe, false);

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
      std::lock_guard lock(mutex_);
      finished_ = true;
    }
    wake_.notify_all();
    monitor.join();
    for (auto &slot : slots)
      slot->worker->Shutdown();
    failure_.RethrowIfAny(options_.corpus);
    std::lock_guard lock(mutex_);
    stats_.seconds = Elapsed();
    stats_.interrupted = stop_.load();
    progress_(StatusLine(), true);
    return stats_;
  }

private:
  JournalHeader Header() const {
    return {.seed = options_.seed,
            .shard = options_.shard,
            .policy_sha256 = options_.policy.Sha256(),
            .generator_version = generate::kGeneratorVersion};
  }

  // What the corpus held when this campaign opened it (yesterday's night, or the shards before):
  // summary.json's "since" says what is new against it.
  void RecordCorpusBefore() {
    std::set<std::string> roots;
    for (const auto &id : stats_.stored_before)
      roots.insert(stats_.grouper.Root(id));
    stats_.bugs_before = roots.size();
    stats_.features_before = pool_.FeaturesSeen();
    const auto own = Journal::PathFor(options_.corpus, Header()).filename();
    std::error_code error;
    for (const auto &file : fs::directory_iterator(options_.corpus / "campaigns", error))
      if (file.path().extension() == ".jsonl" && file.path().filename() != own)
        stats_.campaigns_before.push_back(file.path().stem().string());
    std::sort(stats_.campaigns_before.begin(), stats_.campaigns_before.end());
  }

  const corpus::KnownIssue *KnownIssueOf(const std::string &signature,
                                         const std::string &key) const {
    return options_.known_issues.Match(signature, key);
  }

  // The end of the time limit kept for reducing the new bugs so far (caller holds mutex_).
  std::chrono::seconds Reserve() const {
    if (options_.reserve_per_new_bug.count() == 0 || !options_.time_limit)
      return std::chrono::seconds(0);
    const auto wanted = options_.reserve_per_new_bug * static_cast<long>(stats_.NewBugs());
    return std::min(wanted, *options_.time_limit / 2);
  }

  // The mean wall time of this campaign's finished cases (0 before the first); under mutex_.
  double MeanCaseSeconds() const {
    double cases = 0, wall = 0;
    for (const auto &[family, times] : stats_.time_by_family) {
      cases += times.contains("cases") ? times.at("cases") : 0;
      wall += times.contains("wall") ? times.at("wall") : 0;
    }
    return cases > 0 ? wall / cases : 0;
  }

  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }

  // The next case index this shard owns and has not finished, or none when the campaign ends:
  // stopped, out of cases, or out of time. No case starts when less time is left than the cases
  // so far took on average, so that a campaign ends within --time, not one case past it.
  std::optional<std::uint64_t> NextIndex() {
    std::lock_guard lock(mutex_);
    while (true) {
      if (stop_.load() || failure_.Halted() ||
          (options_.time_limit &&
           Elapsed() + MeanCaseSeconds() >=
               static_cast<double>((*options_.time_limit - Reserve()).count())))
        return std::nullopt;
      const std::uint64_t index = next_index_++;
      if (options_.cases && index >= *options_.cases)
        return std::nullopt;
      if (options_.shard.Owns(index) && !journal_->Done(index))
        return index;
    }
  }

  void Serve(Slot &slot) {
    while (const auto index = NextIndex()) {
      const auto case_started = Clock::now();
      std::map<std::string, double> stages; // AccountCaseTime's
      corpus::Case c;
      {
        StageTimer timer(stages, "generate", *slot.worker);
        c = NextCase(*index);
      }
      if (const auto fault = options_.fault_injection.find(*index);
          fault != options_.fault_injection.end() && fault->second != "disk-full" && c.mask_mod)
        c.mask_mod->source =
            "def " + c.mask_mod->name + "(b, h, q_idx, kv_idx):\n" + FaultBody(fault->second);
      const fs::path case_dir = slot.scratch / fmt::format("case-{}", *index);
      slot.pid = slot.worker->Pid();
      slot.killed_for_memory = false;
      worker::CaseOutcome outcome;
      {
        StageTimer timer(stages, "run", *slot.worker);
        outcome = worker::RunCaseOnWorker(
            *slot.worker, c, case_dir / "inductor-cache",
            std::chrono::duration_cast<std::chrono::milliseconds>(options_.case_timeout),
            {.record_dir = case_dir / "recordings", .build_cache = SharedBuilds()});
      }
      const std::size_t resident = ResidentBytes(slot.pid.exchange(0));
      if (outcome.finding && slot.killed_for_memory) {
        // The campaign killed it, not a signal of its own: say so, whatever stderr said last.
        for (auto &[key, value] : outcome.finding->essence.facts)
          if (key == "abort")
            value = "resident memory over the worker limit";
        outcome.finding->summary = fmt::format("worker killed: resident memory over {} MiB",
                                               options_.worker_memory_limit >> 20);
      }
      std::vector<corpus::Finding> findings;
      if (outcome.finding)
        findings.push_back(*outcome.finding);
      if (options_.sanitize) {
        auto errors =
            worker::CollectMemoryErrors(slot.scratch / "sanitizer", case_dir / "inductor-cache");
        // The sanitizer stopped the worker at its first error: the crash is that error.
        if (!errors.empty() && !findings.empty() &&
            findings.front().kind == corpus::FindingKind::kCrash)
          findings.erase(findings.begin());
        for (auto &error : errors) {
          error.subject = c.name;
          findings.push_back(std::move(error));
        }
        worker::ClearSanitizerReports(slot.scratch / "sanitizer");
      }
      nlohmann::json evidence = json::array(); // what the memory errors of this case explain
      std::optional<corpus::Finding> explained_crash;
      if (options_.sanitize_crashes && outcome.finding &&
          outcome.finding->kind == corpus::FindingKind::kCrash && !slot.killed_for_memory) {
        explained_crash = *outcome.finding;
        StageTimer timer(stages, "sanitizer_reruns", *slot.worker);
        auto errors = worker::RerunWithSanitizers(
            c, *options_.sanitize_crashes, paths_, case_dir / "sanitized",
            std::chrono::duration_cast<std::chrono::milliseconds>(options_.case_timeout));
        evidence = corpus::FoldExplainedCrash(findings, std::move(errors));
        if (!findings.empty() && findings.front().kind == corpus::FindingKind::kCrash)
          explained_crash.reset(); // not explained: it stays, and is probed as it is
        std::lock_guard lock(mutex_);
        ++stats_.sanitized_reruns;
      }
      std::optional<RevealedRun> revealed;
      if (!slot.killed_for_memory) {
        StageTimer timer(stages, "probe", *slot.worker);
        revealed = Probe(slot, c, case_dir, findings, explained_crash);
      }
      std::optional<corpus::MatrixRecord> matrix;
      if (MatrixDue(*index, outcome)) {
        StageTimer timer(stages, "matrix", *slot.worker);
        matrix = RunMatrix(slot, c, outcome, case_dir, findings);
      }
      Recycle(slot, outcome, resident);
      Submit({.c = std::move(c),
              .index = *index,
              .outcome = std::move(outcome),
              .findings = std::move(findings),
              .evidence = std::move(evidence),
              .case_dir = case_dir,
              .matrix = std::move(matrix),
              .revealed = std::move(revealed),
              .resident = resident,
              .seconds = std::chrono::duration<double>(Clock::now() - case_started).count(),
              .stages = std::move(stages)});
    }
    // Here, not later: a worker dies with the thread that started it (kill_with_parent).
    slot.worker->Shutdown();
  }

  // The case's probe (ProbeCase), its reruns on this slot's worker; the worker is replaced
  // when a rerun kills it, as for any case.
  std::optional<RevealedRun> Probe(Slot &slot, const corpus::Case &c, const fs::path &case_dir,
                                   std::vector<corpus::Finding> &findings,
                                   std::optional<corpus::Finding> explained_crash) {
    if (options_.probe.max_runs == 0)
      return std::nullopt;
    const auto run = [&slot, this](const corpus::Case &reverted, const fs::path &folder) {
      return worker::RunCaseOnWorker(
          *slot.worker, reverted, folder / "inductor-cache",
          std::chrono::duration_cast<std::chrono::milliseconds>(options_.probe.run_timeout),
          {.build_cache = SharedBuilds()});
    };
    auto probed =
        ProbeCase(c, case_dir, findings, explained_crash, options_.probe, run, &probe_memo_);
    std::lock_guard lock(mutex_);
    stats_.probe_reruns += probed.reruns;
    stats_.probes_reused = probe_memo_.Reused();
    stats_.probe_reruns_spared += probed.spared;
    if (probed.revealed)
      ++stats_.revealed_by_probe;
    return std::move(probed.revealed);
  }

  // Case `index`: new from the generator, or, with feedback and a pool, a mutation of a pool
  // case (its donor of subexpressions a pool case or a freshly generated one). Which, and
  // every choice after, comes from (seed, index); the parent is whatever the pool holds then.
  corpus::Case NextCase(std::uint64_t index) {
    const auto generated = [&](std::uint64_t i) {
      return generate::GenerateCase({options_.seed, i, options_.command_line}, options_.policy).c;
    };
    generate::Random choice(generate::CaseSeed(options_.seed, index) ^ 0x706f6f6cULL);
    if (!options_.feedback || !options_.static_analysis || !choice.Chance(mutation_share_.Share()))
      return generated(index);
    auto parent = pool_.Pick(choice);
    if (!parent)
      return generated(index);
    std::optional<PoolEntry> donor;
    if (!choice.Chance(options_.policy.Number("p_fresh_donor")))
      donor = pool_.Pick(choice);
    // A fresh donor: the case the generator would make at a far index, outside the sequence.
    const corpus::Case donor_case = donor ? donor->c : generated(index | (1ull << 62));
    try {
      auto mutated = generate::MutateCase(
          parent->c, donor_case,
          {.seed = options_.seed,
           .index = index,
           .command_line = options_.command_line,
           .parent_id = parent->id,
           .donor_id = donor ? donor->id
                             : fmt::format("generated s{}-{}", options_.seed, index | (1ull << 62)),
           .source_mutator =
               std::string(worker::WorkerModuleSource("inductor_fuzz_worker.mutate_source")),
           .python = paths_.venv / "bin" / "python"},
          options_.policy);
      // A mutant the case reader refuses would run, be stored, and never replay: it is not made.
      corpus::CaseFromJson(corpus::CaseToJson(mutated.c));
      std::lock_guard lock(mutex_);
      ++stats_.mutated_cases;
      return std::move(mutated.c);
    } catch (const std::exception &error) {
      // A mutation that cannot be made costs this case its parent, not the campaign.
      progress_(fmt::format("fuzz: mutating {} for case {} failed ({}); generating it instead",
                            parent->id, index, error.what()),
                false);
      return generated(index);
    }
  }

  // Hands a case to the analysis stage, so that its worker starts the next case while Clang
  // reads this one's TUs. No worker runs more than one case ahead of it.
  void Submit(RanCase ran) {
    std::unique_lock lock(ran_mutex_);
    ran_changed_.wait(
        lock, [&] { return ran_.size() < std::max(1u, options_.jobs) || failure_.Halted(); });
    if (failure_.Halted())
      return; // the analysis stage is gone: the case stays out of the journal, --resume reruns it
    ran_.push_back(std::move(ran));
    ran_changed_.notify_all();
  }

  // The analysis stage: `check` on each case's TUs, then the corpus and the journal.
  void AnalyseAndStore() {
    while (true) {
      RanCase ran;
      {
        std::unique_lock lock(ran_mutex_);
        ran_changed_.wait(lock,
                          [&] { return !ran_.empty() || serving_done_ || failure_.Halted(); });
        if (ran_.empty() || failure_.Halted())
          return;
        ran = std::move(ran_.front());
        ran_.pop_front();
      }
      ran_changed_.notify_all();
      const auto analysis_started = Clock::now();
      if (options_.static_analysis)
        ran.features = AnalyseCapturedTus(analyzer_, ran.outcome, ran.case_dir, ran.findings);
      const double analysis_seconds =
          std::chrono::duration<double>(Clock::now() - analysis_started).count();
      AddSurfaceCells(ran.outcome.result, ran.features);
      const bool mutated = ran.c.provenance.value("origin", "") == "mutation";
      const auto fresh = pool_.Offer(ran.c, ran.features,
                                     {.seconds = ran.seconds, .finding = !ran.findings.empty()});
      if (options_.feedback)
        mutation_share_.Record(mutated, fresh.size(), ran.seconds);
      Finish(ran, fresh);
      {
        std::lock_guard lock(mutex_);
        ran.stages["analysis"] += analysis_seconds;
        AccountCaseTime(stats_, ran.c, ran.outcome.result, ran.seconds, ran.stages);
        stats_.features.insert(ran.features.begin(), ran.features.end());
        stats_.feature_timeline.emplace_back(Elapsed(), stats_.features.size());
        stats_.features_in_corpus = pool_.FeaturesSeen();
        stats_.new_features.insert(fresh.begin(), fresh.end());
        stats_.pool_size = pool_.Size();
        if (!fresh.empty())
          ++stats_.new_feature_cases[ran.c.provenance.value("origin", "generated")];
      }
      std::error_code error;
      fs::remove_all(ran.case_dir, error);
    }
  }

  bool MatrixDue(std::uint64_t index, const worker::CaseOutcome &outcome) const {
    return !options_.compilers.empty() && options_.matrix_every != 0 &&
           index % options_.matrix_every == 0 && CapturedAnyBuild(outcome);
  }

  corpus::MatrixRecord RunMatrix(Slot &slot, const corpus::Case &c,
                                 const worker::CaseOutcome &outcome, const fs::path &case_dir,
                                 std::vector<corpus::Finding> &findings) {
    auto run =
        RunMatrixOnCase(*slot.worker, c, outcome, case_dir, options_.compilers,
                        {.builds = &build_cache_,
                         .prefixes = options_.shared_builds.empty() ? nullptr : &prefix_cache_},
                        options_.case_timeout, findings);
    std::lock_guard lock(mutex_);
    ++stats_.matrix_cases;
    stats_.matrix_builds += run.builds;
    stats_.build_cache_hits += run.cached;
    stats_.runtime_replays += run.replayed;
    return std::move(run.record);
  }

  void Finish(const RanCase &ran, const std::vector<std::string> &new_features) {
    const StoredCase stored =
        StoreFinishedCase(ran, new_features, options_, torch_version_, store_);
    journal_->Append(stored.entry);
    std::lock_guard lock(mutex_);
    CountStoredCase(ran, stored, options_.seed, stats_);
    stats_.timeline.emplace_back(Elapsed(), stats_.signatures.size());
    stats_.case_timeline.emplace_back(Elapsed(), stats_.cases);
    if (ran.resident > 0)
      stats_.worker_resident.emplace_back(stats_.cases, ran.resident);
  }

  void Recycle(Slot &slot, const worker::CaseOutcome &outcome, std::size_t resident) {
    // A worker that crashed or hung is gone already; the next case starts a new one.
    const bool died = outcome.finding && corpus::RowOf(outcome.finding->kind).ends_the_process;
    // Memory stays flat over a night: a fresh process every N cases or past the threshold.
    const bool recycle = !died && (++slot.cases_on_process >= options_.recycle_after_cases ||
                                   resident > options_.worker_memory_limit / 2);
    if (recycle)
      slot.worker->Shutdown();
    if (died || recycle) {
      slot.cases_on_process = 0;
      std::lock_guard lock(mutex_);
      ++stats_.worker_restarts;
    }
  }

  // Kills a worker whose resident memory passes the limit, and reports progress.
  void Monitor(const std::vector<std::unique_ptr<Slot>> &slots) {
    auto last_line = Clock::now();
    std::unique_lock lock(mutex_);
    while (!finished_ && !failure_.Halted()) {
      wake_.wait_for(lock, std::chrono::milliseconds(250));
      lock.unlock();
      for (const auto &slot : slots) {
        const int pid = slot->pid.load();
        if (pid > 0 && ResidentBytes(pid) > options_.worker_memory_limit) {
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

  fs::path SharedBuilds() const { return options_.shared_builds; }

  std::string StatusLine() const {
    const std::optional<double> mutating =
        options_.feedback ? std::optional<double>(mutation_share_.Share()) : std::nullopt;
    return CampaignStatusLine(stats_, Elapsed(), options_.time_limit, Reserve(), mutating);
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
  Clock::time_point started_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool finished_ = false;
  std::mutex ran_mutex_; // guards ran_ and serving_done_
  std::condition_variable ran_changed_;
  std::deque<RanCase> ran_;
  bool serving_done_ = false;
  std::uint64_t next_index_ = 0;
  SeedPool pool_;
  MutationShare mutation_share_;
  CampaignStats stats_;
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
