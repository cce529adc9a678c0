#include "fuzzer/campaign/case_stages.h"

#include "corpus/bugs.h"
#include "corpus/finding_kinds.h"
#include "fuzzer/campaign/case_pipeline.h"
#include "fuzzer/campaign/finished_case.h"
#include "fuzzer/matrix/build_cache.h"
#include "fuzzer/matrix/prefix_cache.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "parsers/clang_analysis.h"

#include <fmt/format.h>

#include <fstream>

namespace fuzzer::campaign {
namespace {

namespace fs = std::filesystem;
using std::chrono::duration_cast;
using std::chrono::milliseconds;

bool Always(const CaseInFlight &, const CampaignOptions &) { return true; }

bool IsCrash(const worker::CaseOutcome &outcome) {
  return outcome.finding && outcome.finding->kind == corpus::FindingKind::kCrash;
}

void Generate(CaseInFlight &c, const CaseSource &cases) { c.c = cases.Next(c.index); }

// The case on its worker, watched by the campaign's monitor (WorkerSlot::pid) for its memory.
void Run(CaseInFlight &c, const RunOptions &options, WorkerSlot &slot) {
  slot.pid = slot.worker->Pid();
  slot.killed_for_memory = false;
  c.outcome = worker::RunCaseOnWorker(
      *slot.worker, c.c, c.case_dir / "inductor-cache",
      duration_cast<milliseconds>(options.case_timeout),
      {.record_dir = c.case_dir / "recordings", .build_cache = options.shared_builds});
  c.resident = ResidentBytes(slot.pid.exchange(0));
  c.killed_for_memory = slot.killed_for_memory;
  if (c.outcome.finding && c.killed_for_memory) {
    // The campaign killed it, not a signal of its own: say so, whatever stderr said last.
    for (auto &[key, value] : c.outcome.finding->essence.facts)
      if (key == "abort")
        value = "resident memory over the worker limit";
    c.outcome.finding->summary = fmt::format("worker killed: resident memory over {} MiB",
                                             options.worker_memory_limit >> 20);
  }
  if (c.outcome.finding)
    c.findings.push_back(*c.outcome.finding);
}

// The reports of the sanitizers every case's kernels were built with, as memory errors.
void FoldSanitizerReports(CaseInFlight &c, const WorkerSlot &slot) {
  const fs::path reports = slot.scratch / "sanitizer";
  auto errors = worker::CollectMemoryErrors(reports, c.case_dir / "inductor-cache");
  // The sanitizer stopped the worker at its first error: the crash is that error.
  if (!errors.empty() && !c.findings.empty() &&
      c.findings.front().kind == corpus::FindingKind::kCrash)
    c.findings.erase(c.findings.begin());
  for (auto &error : errors) {
    error.subject = c.c.name;
    c.findings.push_back(std::move(error));
  }
  worker::ClearSanitizerReports(reports);
}

bool CrashToExplain(const CaseInFlight &c, const CampaignOptions &options) {
  return options.sanitizers.crashes && IsCrash(c.outcome) && !c.killed_for_memory;
}

void RerunCrashWithSanitizers(CaseInFlight &c, const worker::SanitizerOptions &sanitizers,
                              const RunOptions &run, const support::ToolPaths &paths) {
  c.explained_crash = *c.outcome.finding;
  auto errors = worker::RerunWithSanitizers(c.c, sanitizers, paths, c.case_dir / "sanitized",
                                            duration_cast<milliseconds>(run.case_timeout));
  c.evidence = corpus::FoldExplainedCrash(c.findings, std::move(errors));
  if (!c.findings.empty() && c.findings.front().kind == corpus::FindingKind::kCrash)
    c.explained_crash.reset(); // not explained: it stays, and is probed as it is
  ++c.counts.sanitized_reruns;
}

// ProbeCase's reruns on the case's worker; the worker is replaced when a rerun kills it, as
// for any case.
void Probe(CaseInFlight &c, const ProbeOptions &options, const RunOptions &run, WorkerSlot &slot,
           ProbeMemo &memo) {
  const auto rerun = [&](const corpus::Case &reverted, const fs::path &folder) {
    return worker::RunCaseOnWorker(*slot.worker, reverted, folder / "inductor-cache",
                                   duration_cast<milliseconds>(options.run_timeout),
                                   {.build_cache = run.shared_builds});
  };
  auto probed = ProbeCase(c.c, c.case_dir, c.findings, c.explained_crash, options, rerun, &memo);
  c.counts.probe_reruns += probed.reruns;
  c.counts.probe_reruns_spared += probed.spared;
  c.counts.revealed_by_probe += probed.revealed ? 1 : 0;
  c.revealed = std::move(probed.revealed);
}

bool MatrixDue(const CaseInFlight &c, const CampaignOptions &options) {
  return !options.matrix.compilers.empty() && options.matrix.every != 0 &&
         c.index % options.matrix.every == 0 && CapturedAnyBuild(c.outcome);
}

void RebuildOnMatrix(CaseInFlight &c, const MatrixOptions &options, const RunOptions &run,
                     WorkerSlot &slot, matrix::BuildCache &builds, matrix::PrefixCache &prefixes) {
  auto matrix = RunMatrixOnCase(
      *slot.worker, c.c, c.outcome, c.case_dir, options.compilers,
      {.builds = &builds, .prefixes = run.shared_builds.empty() ? nullptr : &prefixes},
      run.case_timeout, c.findings);
  ++c.counts.matrix_cases;
  c.counts.matrix_builds += matrix.builds;
  c.counts.build_cache_hits += matrix.cached;
  c.counts.runtime_replays += matrix.replayed;
  c.matrix = std::move(matrix.record);
}

// `check` on the case's TUs, the op-surface cells it reached, and what coverage feedback
// learns from it (the queue, the share of mutations).
void Analyse(CaseInFlight &c, const AnalysisOptions &options, const GenerateOptions &generate,
             CampaignServices &services) {
  if (options.static_analysis)
    c.features = AnalyseCapturedTus(services.analyzer, c.outcome, c.case_dir, c.findings);
  AddSurfaceCells(c.outcome.result, c.features);
  const bool mutated = c.c.provenance.value("origin", "") == "mutation";
  c.new_features =
      services.pool.Offer(c.c, c.features, {.seconds = c.seconds, .finding = !c.findings.empty()});
  if (generate.feedback)
    services.mutation_share.Record(mutated, c.new_features.size(), c.seconds);
}

// The case's findings into the corpus, the case into the journal, and both into the counts.
void Store(CaseInFlight &c, const CampaignOptions &options, CampaignServices &services) {
  const StoredCase stored = StoreFinishedCase(c, options, services.torch_version, services.store);
  services.journal.Append(stored.entry);
  const double elapsed = services.tally.Elapsed();
  services.tally.Update([&](CampaignStats &stats) {
    CountStoredCase(c, stored, options.seed, stats);
    stats.probes_reused = services.probe_memo.Reused();
    stats.timeline.emplace_back(elapsed, stats.signatures.size());
    stats.case_timeline.emplace_back(elapsed, stats.cases);
    if (c.resident > 0)
      stats.worker_resident.emplace_back(stats.cases, c.resident);
    AccountCaseTime(stats, c.c, c.outcome.result, c.seconds, c.stages);
    stats.features.insert(c.features.begin(), c.features.end());
    stats.feature_timeline.emplace_back(elapsed, stats.features.size());
    stats.features_in_corpus = services.pool.FeaturesSeen();
    stats.new_features.insert(c.new_features.begin(), c.new_features.end());
    stats.pool_size = services.pool.Size();
    if (!c.new_features.empty())
      ++stats.new_feature_cases[c.c.provenance.value("origin", "generated")];
  });
}

} // namespace

std::size_t ResidentBytes(int pid) {
  std::ifstream status(fmt::format("/proc/{}/status", pid));
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with("VmRSS:"))
      return std::stoull(line.substr(6)) * 1024;
  return 0;
}

const std::vector<CaseStage> &CaseStages() {
  using enum StageThread;
  static const std::vector<CaseStage> stages = {
      {"generate", "the case from the generator, or a mutation of a queue case", kWorker, true,
       Always, [](CaseInFlight &c, const StageContext &s) { Generate(c, s.services.cases); }},
      {"run", "torch.compile on the case's worker through every oracle of the worker", kWorker,
       true, Always,
       [](CaseInFlight &c, const StageContext &s) { Run(c, s.options.run, *s.slot); }},
      {"sanitizer_fold",
       "what the sanitizers of a sanitized worker reported, as memory errors (--sanitize)", kWorker,
       false,
       [](const CaseInFlight &, const CampaignOptions &o) {
         return o.sanitizers.every_case.has_value();
       },
       [](CaseInFlight &c, const StageContext &s) { FoldSanitizerReports(c, *s.slot); }},
      {"sanitizer_reruns",
       "a crash run again with the sanitizers; the memory errors it shows explain it", kWorker,
       true, CrashToExplain,
       [](CaseInFlight &c, const StageContext &s) {
         RerunCrashWithSanitizers(c, *s.options.sanitizers.crashes, s.options.run,
                                  s.services.paths);
       }},
      {"probe", "a wrong result or crash run again with each non-default setting put back", kWorker,
       true,
       [](const CaseInFlight &c, const CampaignOptions &o) {
         return !c.killed_for_memory && o.probe.max_runs > 0;
       },
       [](CaseInFlight &c, const StageContext &s) {
         Probe(c, s.options.probe, s.options.run, *s.slot, s.services.probe_memo);
       }},
      {"matrix", "the case's TUs rebuilt on the compiler matrix and replayed on its calls", kWorker,
       true, MatrixDue,
       [](CaseInFlight &c, const StageContext &s) {
         RebuildOnMatrix(c, s.options.matrix, s.options.run, *s.slot, s.services.build_cache,
                         s.services.prefix_cache);
       }},
      {"analysis", "Clang's check of the case's TUs; their codegen features to the queue",
       kAnalysis, true, Always,
       [](CaseInFlight &c, const StageContext &s) {
         Analyse(c, s.options.analysis, s.options.generate, s.services);
       }},
      {"store", "the findings into the corpus, the case into the journal and the counts", kAnalysis,
       false, Always,
       [](CaseInFlight &c, const StageContext &s) { Store(c, s.options, s.services); }},
  };
  return stages;
}

} // namespace fuzzer::campaign
