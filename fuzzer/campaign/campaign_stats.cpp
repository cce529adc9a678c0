#include "fuzzer/campaign/campaign_stats.h"

#include "corpus/bug_key.h"
#include "corpus/bugs.h"
#include "corpus/finding_kinds.h"
#include "support/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

// What a campaign found, counted and grouped into bugs, and its summary.json numbers.
namespace fuzzer::campaign {

using nlohmann::json;

std::string CaseFamily(const corpus::Case &c) {
  if (c.api == corpus::kIndexProgram && c.mask_mod &&
      c.mask_mod->source.find("\n    v0 = ") != std::string::npos)
    return "op_program";
  return c.api;
}

void AccountCaseTime(CampaignStats &stats, const corpus::Case &c, const json &result,
                     double case_seconds, const std::map<std::string, double> &stages) {
  auto &family = stats.time_by_family[CaseFamily(c)];
  family["cases"] += 1;
  family["wall"] += case_seconds;
  for (const auto &[stage, seconds] : stages)
    family[stage] += seconds;
  if (!result.is_object())
    return;
  double compiled = 0, compiles = 0;
  if (const auto phases = result.find("phases"); phases != result.end() && phases->is_object())
    for (const auto &[phase, seconds] : phases->items()) {
      if (!seconds.is_number())
        continue;
      if (phase == "eager_seconds")
        family["eager"] += seconds.get<double>();
      else if (phase.ends_with("compare_seconds"))
        family["compare"] += seconds.get<double>();
      else if (phase.ends_with("compiled_seconds"))
        compiled += seconds.get<double>();
    }
  if (const auto builds = result.find("builds"); builds != result.end() && builds->is_array())
    for (const auto &build : *builds) {
      if (!build.is_object())
        continue;
      if (build.contains("seconds") && build["seconds"].is_number())
        compiles += build["seconds"].get<double>();
      family["builds"] += 1;
      if (build.value("from_build_cache", false))
        family["shared_builds"] += 1; // an earlier case's output, no compiler run
      if (build.value("precompiled_prefix", false))
        family["prefixed_builds"] += 1; // its torch headers read from a precompiled prefix
    }
  family["cpp_compile"] += compiles;
  family["dynamo_inductor"] += std::max(0.0, compiled - compiles);
}

std::uint64_t CampaignStats::NewFindings() const {
  std::uint64_t total = 0;
  for (const auto &[kind, count] : new_by_kind)
    total += count;
  return total;
}

std::vector<CampaignBug> CampaignStats::Bugs() const {
  std::vector<CampaignBug> bugs;
  for (const auto &[root, members] : grouper.Groups()) {
    CampaignBug bug;
    std::vector<std::string> keys;
    bool hit_here = false, stored_before_here = false;
    for (const auto &member : members) {
      keys.push_back(grouper.KeyOf(member));
      bug.signatures.push_back(member);
      stored_before_here = stored_before_here || stored_before.contains(member);
      if (const auto known = known_issue_of.find(member);
          known != known_issue_of.end() && bug.known_issue.empty())
        bug.known_issue = known->second;
      if (const auto event = signatures.find(member); event != signatures.end()) {
        if (!hit_here)
          bug.kind = event->second.kind;
        hit_here = true;
        bug.detectors.insert(std::string(corpus::DetectorOf(event->second.kind)));
      }
      if (const auto hits = hits_of.find(member); hits != hits_of.end())
        bug.hits.insert(bug.hits.end(), hits->second.begin(), hits->second.end());
      if (const auto seen = evidence_of.find(member); seen != evidence_of.end())
        bug.detectors.insert(seen->second.begin(), seen->second.end());
    }
    if (!hit_here)
      continue;
    std::sort(keys.begin(), keys.end());
    bug.key = keys.front();
    bug.id = corpus::BugId(keys);
    bug.is_new = !stored_before_here && bug.known_issue.empty();
    bugs.push_back(std::move(bug));
  }
  std::sort(bugs.begin(), bugs.end(),
            [](const CampaignBug &a, const CampaignBug &b) { return a.id < b.id; });
  return bugs;
}

std::uint64_t CampaignStats::NewBugs() const {
  std::uint64_t count = 0;
  for (const auto &bug : Bugs())
    count += bug.is_new;
  return count;
}

json SinceCorpusBefore(const CampaignStats &stats) {
  json new_bugs = json::array(), known_first_seen = json::array(), seen_again = json::array();
  for (const auto &bug : stats.Bugs()) {
    const bool stored_before =
        std::any_of(bug.signatures.begin(), bug.signatures.end(),
                    [&](const std::string &id) { return stats.stored_before.contains(id); });
    if (stored_before)
      seen_again.push_back(bug.id);
    else if (bug.is_new)
      new_bugs.push_back(bug.id);
    else
      known_first_seen.push_back(bug.id);
  }
  return {{"campaigns_before", stats.campaigns_before},
          {"signatures_before", stats.stored_before.size()},
          {"bugs_before", stats.bugs_before},
          {"features_before", stats.features_before},
          {"new_bugs", new_bugs},                 // neither in the corpus nor a known issue
          {"known_first_seen", known_first_seen}, // a known issue the corpus had not met
          {"seen_again", seen_again},
          {"new_features", stats.new_features}};
}

json StatsToJson(const CampaignStats &stats) {
  json signatures = json::array();
  for (const auto &[id, event] : stats.signatures)
    signatures.push_back({{"id", id},
                          {"kind", corpus::KindName(event.kind)},
                          {"signature", event.signature},
                          {"key", event.key},
                          {"new", event.Reportable()},
                          {"first_seen_here", event.is_new},
                          {"known_issue", event.known_issue}});
  json bugs = json::array();
  for (const auto &bug : stats.Bugs())
    bugs.push_back({{"id", bug.id},
                    {"key", bug.key},
                    {"key_version", corpus::kBugKeyVersion},
                    {"kind", corpus::KindName(bug.kind)},
                    {"new", bug.is_new},
                    {"known_issue", bug.known_issue},
                    {"signatures", bug.signatures},
                    {"detectors", bug.detectors},
                    {"hits", bug.hits}});
  return {{"cases", stats.cases},
          {"by_status", stats.by_status},
          {"new_bugs", stats.NewBugs()},
          {"bugs", bugs},
          {"new_by_kind", stats.new_by_kind},
          {"known_by_kind", stats.known_by_kind},
          {"new_findings", stats.NewFindings()},
          {"signatures", signatures},
          {"worker_restarts", stats.worker_restarts},
          {"sanitized_reruns", stats.sanitized_reruns},
          {"probe_reruns", stats.probe_reruns},
          {"probes_reused", stats.probes_reused},
          {"probe_reruns_spared", stats.probe_reruns_spared},
          {"revealed_by_probe", stats.revealed_by_probe},
          {"resumed_cases", stats.resumed_cases},
          {"matrix_cases", stats.matrix_cases},
          {"matrix_builds", stats.matrix_builds},
          {"build_cache_hits", stats.build_cache_hits},
          {"runtime_replays", stats.runtime_replays},
          {"worker_resident", stats.worker_resident},
          {"seconds", stats.seconds},
          {"interrupted", stats.interrupted},
          {"reduction_seconds", stats.reduction_seconds},
          {"reduced_bugs", stats.reduced_bugs},
          {"timeline", stats.timeline},
          {"time_by_family", stats.time_by_family},
          {"case_timeline", stats.case_timeline},
          {"coverage",
           {{"features", stats.features.size()},
            {"features_in_corpus", stats.features_in_corpus},
            {"queue", stats.pool_size},
            {"mutated_cases", stats.mutated_cases},
            {"new_feature_cases", stats.new_feature_cases},
            {"feature_timeline", stats.feature_timeline},
            {"feature_list", stats.features}}}};
}

std::string CampaignStatusLine(const CampaignStats &stats, double elapsed,
                               std::optional<std::chrono::seconds> time_limit,
                               std::chrono::seconds reserve, std::optional<double> mutating) {
  std::map<std::string, std::uint64_t> new_kinds;
  std::uint64_t known = 0, bugs = 0;
  for (const auto &bug : stats.Bugs()) {
    ++bugs;
    if (bug.is_new)
      ++new_kinds[std::string(corpus::KindName(bug.kind))];
    else
      ++known;
  }
  std::string kinds;
  for (const auto &[kind, count] : new_kinds)
    kinds += fmt::format(" {}:{}", kind, count);
  std::string left;
  if (time_limit)
    left = fmt::format(
        ", {:.0f} s left{}", std::max(0.0, static_cast<double>(time_limit->count()) - elapsed),
        reserve.count() ? fmt::format(" ({} s kept for reduction)", reserve.count()) : "");
  std::string matrix;
  if (stats.matrix_cases > 0)
    matrix = fmt::format(", matrix on {} case(s) ({}/{} builds cached)", stats.matrix_cases,
                         stats.build_cache_hits, stats.matrix_builds);
  const std::string coverage =
      fmt::format(", {} codegen feature(s) (queue {}{})", stats.features.size(), stats.pool_size,
                  mutating ? fmt::format(", {} mutated case(s), mutating {:.0f}%",
                                         stats.mutated_cases, 100 * *mutating)
                           : ", feedback off");
  return fmt::format("fuzz: {} case(s) in {:.0f} s ({:.1f}/min), {} invalid, new bugs{}{} "
                     "known {}, {} bug(s) from {} signature(s), {} worker restart(s){}{}{}",
                     stats.cases, elapsed, elapsed > 0 ? stats.cases * 60.0 / elapsed : 0.0,
                     stats.by_status.count("invalid-case") ? stats.by_status.at("invalid-case") : 0,
                     kinds.empty() ? " 0" : "", kinds, known, bugs, stats.signatures.size(),
                     stats.worker_restarts, coverage, matrix, left);
}

} // namespace fuzzer::campaign
