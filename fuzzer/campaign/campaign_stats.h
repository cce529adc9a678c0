#pragma once

#include "corpus/bugs.h"
#include "corpus/case.h"
#include "corpus/finding_kinds.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

// What a campaign counts: each finding's fate, the bugs it hit, the cases' statuses, the
// stages' reruns and builds, coverage and where the time went; summary.json is made of it.
namespace fuzzer::campaign {

// What became of each finding a case produced.
struct FindingEvent {
  std::string id;
  corpus::FindingKind kind = corpus::FindingKind::kException;
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
  corpus::FindingKind kind = corpus::FindingKind::kException; // of its first signature hit here
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

// A status line for the user; `final` for the campaign's last.
using ProgressLine = std::function<void(const std::string &line, bool final)>;

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
