#pragma once

#include "corpus/bugs.h"
#include "corpus/case.h"
#include "corpus/known_issues.h"
#include "fuzzer/campaign/journal.h"
#include "fuzzer/campaign/probe.h"
#include "fuzzer/generate/policy.h"
#include "fuzzer/matrix/compilers.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "support/tool_paths.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fuzzer::campaign {

struct CampaignOptions {
  std::optional<std::chrono::seconds> time_limit; // stop dispatching cases after this long
  std::optional<std::uint64_t> cases;             // the seed sequence's length: indices [0, N)
  unsigned jobs = 1;                              // workers, one case each at a time
  std::uint64_t seed = 1;
  Shard shard;
  std::filesystem::path corpus;
  generate::GenerationPolicy policy = generate::GenerationPolicy::Default();
  corpus::KnownIssues known_issues;
  bool resume = false;
  std::chrono::seconds case_timeout{600};
  unsigned recycle_after_cases = 200;           // a fresh worker process after this many cases
  std::size_t worker_memory_limit = 6ull << 30; // and when its resident memory passes this
  bool static_analysis = true; // `check` on every captured TU: each Clang error is a finding
  // Compiler outputs by content (capture.py's BuildCache): a build whose compiler, command and
  // inputs an earlier one had gets that output instead of a compile; every build is still
  // captured. Empty: every build runs its compiler.
  std::filesystem::path shared_builds;
  // The compiler matrix and the runtime differential on every case whose index is a multiple of
  // matrix_every (0: never), with these compilers; builds are cached by content in the corpus.
  std::vector<matrix::Compiler> compilers;
  unsigned matrix_every = 0;
  // Every case runs in workers whose kernels are built with these sanitizers: an error they
  // report in a kernel is a memory-error finding.
  std::optional<worker::SanitizerOptions> sanitize;
  // A case that crashes runs again with these sanitizers; what they report in a kernel is a
  // memory-error finding of its own (none: crashes are not looked at again).
  std::optional<worker::SanitizerOptions> sanitize_crashes;
  // A wrong result or a crash runs again with each non-default setting put back, so that its
  // bug key says what it needs (probe.h); max_runs 0: no probe.
  ProbeOptions probe;
  std::string command_line;
  // Time kept from the cases for reducing each new bug afterwards (`fuzz --reduce`): with a
  // time limit, cases stop this much earlier per new bug, at most at half the limit.
  std::chrono::seconds reserve_per_new_bug{0};
  std::chrono::milliseconds progress_interval{30000}; // between status lines
  // Coverage feedback: every captured TU's codegen features are counted (needs
  // static_analysis), a case that brings a new one joins CORPUS/queue/, and with `feedback` a
  // share of the cases (policy "p_mutate") are mutations of queue cases instead of new ones.
  bool feedback = true;
  // Tests only: the worker of case i is made to crash, hang or allocate without bound.
  std::map<std::uint64_t, std::string> fault_injection;
};

// What became of each finding a case produced.
struct FindingEvent {
  std::string id;
  std::string kind;
  std::string signature;
  std::string key;         // its bug key (corpus/bug_key.h)
  bool is_new = false;     // first seen in this corpus by this campaign
  std::string known_issue; // the matching known issue's id (by signature or key), if any
  bool Reportable() const { return is_new && known_issue.empty(); }
};

// A bug this campaign hit: its signatures grouped (corpus/bugs.h), with the cases that hit it
// here. New when none of its signatures was in the corpus before and no known issue names it.
struct CampaignBug {
  std::string id;
  std::string key;
  std::string kind;                    // of its first signature
  std::vector<std::string> signatures; // stored finding ids, also those stored before
  std::set<std::string> detectors;
  bool is_new = false;
  std::string known_issue;
  std::vector<nlohmann::json> hits; // {seed, index, case} of this campaign's cases
};

struct CampaignStats {
  std::uint64_t cases = 0;
  std::map<std::string, std::uint64_t> by_status;     // pass, expected, finding, invalid-case
  std::map<std::string, std::uint64_t> new_by_kind;   // findings new to the corpus
  std::map<std::string, std::uint64_t> known_by_kind; // seen before or a known issue
  std::map<std::string, FindingEvent> signatures;     // distinct signatures hit, by id
  // Every signature of the corpus, before and during the campaign, grouped into bugs; which were
  // there before; the known issue of each (by signature or key); this campaign's hits of each.
  corpus::BugGrouper grouper;
  std::set<std::string> stored_before;
  std::map<std::string, std::string> known_issue_of;
  std::map<std::string, std::vector<nlohmann::json>> hits_of;
  std::map<std::string, std::set<std::string>> evidence_of; // detectors beyond the kind's own
  std::uint64_t worker_restarts = 0;
  std::uint64_t sanitized_reruns = 0;    // crashes run again with the sanitizers
  std::uint64_t probe_reruns = 0;        // wrong results and crashes run again by their probe
  std::uint64_t probes_reused = 0;       // probes taken from an earlier case's (ProbeMemo)
  std::uint64_t probe_reruns_spared = 0; // crash reruns an earlier probe showed irrelevant
  std::uint64_t revealed_by_probe = 0;   // wrong results a crash hid that its probe's rerun showed
  std::uint64_t resumed_cases = 0;       // skipped because the journal had them
  std::uint64_t matrix_cases = 0;        // cases rebuilt on the compiler matrix
  std::uint64_t matrix_builds = 0;       // TU x compiler builds those cases needed
  std::uint64_t build_cache_hits = 0;
  std::uint64_t runtime_replays = 0; // builds whose recorded calls were replayed
  // The resident memory of the worker that ran each case, right after it: (cases done, bytes).
  std::vector<std::pair<std::uint64_t, std::size_t>> worker_resident;
  double seconds = 0;
  std::vector<std::pair<double, std::uint64_t>> timeline;      // (seconds, distinct signatures)
  std::vector<std::pair<double, std::uint64_t>> case_timeline; // (seconds, cases)
  std::uint64_t NewFindings() const;
  std::vector<CampaignBug> Bugs() const; // the bugs this campaign hit, by id
  std::uint64_t NewBugs() const;
  bool interrupted = false;
  // Coverage: the codegen features this campaign's cases reached, over time; the corpus's
  // queue; how many cases were mutations and how many of each origin brought a new feature.
  std::set<std::string> features;
  std::vector<std::pair<double, std::uint64_t>> feature_timeline; // (seconds, features)
  std::uint64_t features_in_corpus = 0;
  std::uint64_t pool_size = 0;
  std::uint64_t mutated_cases = 0;
  std::map<std::string, std::uint64_t> new_feature_cases; // by origin: generated, mutation
  // The corpus as the campaign opened it: the campaigns it had run (their journals' names),
  // its bugs and the codegen features it had reached; and the features new to it here.
  std::vector<std::string> campaigns_before;
  std::uint64_t bugs_before = 0;
  std::uint64_t features_before = 0;
  std::set<std::string> new_features;
  // Where the cases' time went, per family of case (CaseFamily): cases, and seconds of: wall
  // (generation to judgement, not counting the analysis), its stages (generate, run,
  // sanitizer_reruns, probe, matrix, worker_start: starting worker processes wherever it
  // happened), the run's own parts as the worker measured them (eager, dynamo_inductor,
  // cpp_compile, compare: the judgement against eager and the float64 references), and the
  // Clang analysis afterwards (analysis, overlapping the next case's run); and counts of the
  // builds Inductor ran (builds), of those an earlier case's output served (shared_builds) and
  // those compiled with a precompiled prefix of their headers (prefixed_builds).
  std::map<std::string, std::map<std::string, double>> time_by_family;
  // The op surface's universe as the installed release has it (corpus/surface_table.h), asked
  // of the first worker; null when it could not say. The reached cells are among `features`.
  nlohmann::json surface_universe;
  double reduction_seconds = 0; // after the cases, reducing new bugs (`fuzz --reduce`)
  std::uint64_t reduced_bugs = 0;
};

using ProgressLine = std::function<void(const std::string &line, bool final)>;

// Generates the campaign's cases, runs each on a pool of warm workers through every oracle,
// stores each finding once per signature in the corpus, and journals every finished case so
// that --resume continues where a killed campaign stopped. `stop` ends it early (Ctrl-C):
// cases in flight finish, none is started.
CampaignStats RunCampaign(const CampaignOptions &options, const support::ToolPaths &paths,
                          const std::atomic<bool> &stop, const ProgressLine &progress);

nlohmann::json StatsToJson(const CampaignStats &stats);

// A case's family for time accounting: "op_program" (fuzzer/generate/op_program.h), else its API.
std::string CaseFamily(const corpus::Case &c);
// Adds one finished case's time to stats.time_by_family: `case_seconds` its wall time, `stages`
// that time by stage and the analysis of its TUs, `result` the worker's (phases, builds).
void AccountCaseTime(CampaignStats &stats, const corpus::Case &c, const nlohmann::json &result,
                     double case_seconds, const std::map<std::string, double> &stages);
// summary.json's "since": the corpus as the campaign opened it and what is new against it (the
// bugs, the codegen features) or seen again.
nlohmann::json SinceCorpusBefore(const CampaignStats &stats);

// The campaign's progress line after `elapsed` seconds: cases, rate, new bugs by kind, known,
// coverage, the matrix's cache and the time left (`reserve` of it kept for reduction);
// `mutating` is the share of mutated cases, none without feedback.
std::string CampaignStatusLine(const CampaignStats &stats, double elapsed,
                               std::optional<std::chrono::seconds> time_limit,
                               std::chrono::seconds reserve, std::optional<double> mutating);

} // namespace fuzzer::campaign
