#include "workflows/corpus_actions.h"

#include "corpus/bug_key.h"
#include "corpus/bugs.h"
#include "corpus/finding_store.h"
#include "corpus/known_issues.h"
#include "corpus/surface_table.h"
#include "fuzzer/campaign/corpus_merge.h"
#include "fuzzer/campaign/reports.h"
#include "fuzzer/campaign/seed_pool.h"
#include "support/errors.h"
#include "support/version.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <ostream>
#include <set>

namespace workflows {
namespace {

// Merge reads other corpora into --into: the --corpus it would otherwise open plays no part.
int Merge(const CorpusOptions &options, std::ostream &out) {
  const auto merged = fuzzer::campaign::MergeCorpora(options.sources, options.into);
  for (const auto &note : merged.notes)
    std::cerr << "corpus: " << note << "\n";
  out << fmt::format("merged {} corpus(es) into {}: {} new hit(s), {} finding(s), {} queue "
                     "entry(ies) added, {} campaign journal(s)\n",
                     options.sources.size(), options.into.string(), merged.hits_added,
                     merged.findings, merged.queue_added, merged.journals);
  return support::kExitNothingFound;
}

void RequireCorpus(const std::filesystem::path &root) {
  if (!std::filesystem::is_directory(root / "findings"))
    throw support::InputError(
        fmt::format("{} is not a corpus (no findings/ folder); pass the --corpus a campaign wrote",
                    root.string()));
}

// On stderr: stdout is the command's answer (JSON with --json), the migration a side effect.
void ReportMigration(const corpus::FindingStore &store, const std::filesystem::path &root) {
  if (const auto &migrated = store.migration(); migrated.from_signature_version > 0)
    std::cerr << fmt::format(
        "corpus: migrated {} from signature version {} to {}: {} folder(s), {} "
        "re-signed, {} merged into another, {} hit(s) kept\n",
        root.string(), migrated.from_signature_version, corpus::kSignatureVersion, migrated.folders,
        migrated.resigned, migrated.moved, migrated.hits);
}

int MigrateCorpus(corpus::FindingStore &store, const CorpusOptions &options, std::ostream &out) {
  const auto again = store.Migrate();
  out << fmt::format("corpus: {} is at signature version {}: {} finding folder(s), {} hit(s)\n",
                     options.corpus.string(), corpus::kSignatureVersion, again.folders, again.hits);
  return support::kExitNothingFound;
}

// A bug id (or a prefix of one starting "bug-") shows the bug with all its findings; anything
// else names a single finding, shown with the bug it belongs to.
int ShowBugOrFinding(const corpus::FindingStore &store, const std::vector<corpus::Bug> &bugs,
                     const CorpusOptions &options, std::ostream &out) {
  for (const auto &bug : bugs)
    if (bug.id == options.id ||
        (options.id.starts_with("bug-") && bug.id.starts_with(options.id))) {
      nlohmann::json shown = bug.Summary();
      shown["findings"] = nlohmann::json::array();
      for (const auto &member : bug.members) {
        nlohmann::json finding = member.Summary();
        finding["finding"] = corpus::FindingToJson(member.finding);
        shown["findings"].push_back(finding);
      }
      out << shown.dump(2) << "\n";
      return support::kExitNothingFound;
    }
  if (options.id.starts_with("bug-"))
    throw support::InputError(
        fmt::format("no bug in {} has the id '{}'; `inductor-fuzz corpus list` shows the ids",
                    options.corpus.string(), options.id));
  const auto finding = store.Load(options.id);
  nlohmann::json shown = finding.Summary();
  for (const auto &bug : bugs)
    for (const auto &member : bug.members)
      if (member.id == finding.id)
        shown["bug"] = bug.id;
  shown["finding"] = corpus::FindingToJson(finding.finding);
  out << shown.dump(2) << "\n";
  return support::kExitNothingFound;
}

// Every codegen feature a corpus's campaigns reached (CORPUS/queue/features-reached.json).
std::set<std::string> FeaturesReached(const std::filesystem::path &corpus) {
  std::set<std::string> features;
  for (const auto &[feature, cases] :
       fuzzer::campaign::ReadQueueFiles(corpus / "queue").cases_reaching)
    features.insert(feature);
  return features;
}

std::vector<std::string> CampaignJournals(const std::filesystem::path &corpus) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto &file : std::filesystem::directory_iterator(corpus / "campaigns", error))
    if (file.path().extension() == ".jsonl")
      names.push_back(file.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The corpus against an earlier copy of it (the night before): which bugs it did not hold, which
// it held and were hit again, and what else is new. Fills `new_signatures` with the members of
// the new bugs that no known issue names.
nlohmann::json SinceEarlierCorpus(const std::vector<corpus::Bug> &bugs,
                                  const corpus::KnownIssues &known, const CorpusOptions &options,
                                  std::set<std::string> &new_signatures) {
  RequireCorpus(options.since);
  const corpus::FindingStore earlier(options.since);
  ReportMigration(earlier, options.since);
  std::set<std::string> ids, hits;
  for (const auto &finding : earlier.List()) {
    ids.insert(finding.id);
    for (const auto &hit : finding.hits)
      hits.insert(hit.id);
  }
  const auto bugs_before = corpus::GroupIntoBugs(earlier.List()).size();
  nlohmann::json new_bugs = nlohmann::json::array(), known_first_seen = nlohmann::json::array(),
                 seen_again = nlohmann::json::array();
  std::size_t hits_since = 0;
  for (const auto &bug : bugs) {
    std::size_t bug_hits_since = 0;
    for (const auto &hit : bug.hit_ids)
      bug_hits_since += !hits.contains(hit);
    hits_since += bug_hits_since;
    const bool held = std::any_of(bug.members.begin(), bug.members.end(),
                                  [&](const auto &member) { return ids.contains(member.id); });
    if (!held && bug.Known(known)) {
      known_first_seen.push_back(bug.id);
    } else if (!held) {
      new_bugs.push_back(bug.id);
      for (const auto &member : bug.members)
        new_signatures.insert(member.id);
    } else if (bug_hits_since > 0) {
      seen_again.push_back(bug.id);
    }
  }
  const auto features_before = FeaturesReached(options.since);
  std::vector<std::string> new_features;
  for (const auto &feature : FeaturesReached(options.corpus))
    if (!features_before.contains(feature))
      new_features.push_back(feature);
  const auto campaigns_before = CampaignJournals(options.since);
  std::vector<std::string> campaigns_since;
  for (const auto &name : CampaignJournals(options.corpus))
    if (std::find(campaigns_before.begin(), campaigns_before.end(), name) == campaigns_before.end())
      campaigns_since.push_back(name);
  return {{"corpus", options.since.string()},
          {"campaigns_before", campaigns_before},
          {"campaigns_since", campaigns_since},
          {"signatures_before", ids.size()},
          {"bugs_before", bugs_before},
          {"features_before", features_before.size()},
          {"new_bugs", new_bugs},
          {"known_first_seen", known_first_seen},
          {"seen_again", seen_again},
          {"hits_since", hits_since},
          {"new_features", new_features}};
}

// The campaign's reports for the whole corpus, as if one campaign had found it all: every bug no
// known issue names counts as new (with --since: and that the earlier corpus did not hold), and
// makes the exit status say so.
int ReportCorpus(const std::vector<corpus::StoredFinding> &findings,
                 const std::vector<corpus::Bug> &bugs, const CorpusOptions &options,
                 std::ostream &out) {
  if (options.report_dir.empty())
    throw support::InputError("corpus report needs --report DIR");
  if (!options.since.empty() && !std::filesystem::exists(options.since))
    throw support::InputError(
        fmt::format("corpus report --since {}: no such corpus; give the corpus of the night before",
                    options.since.string()));
  fuzzer::campaign::ReportInput input{.stats = {},
                                      .findings = findings,
                                      .known_issues = corpus::ReadKnownIssues(options.known_issues),
                                      .provenance = {{"tool_version", support::ToolVersion()},
                                                     {"command_line", "corpus report"},
                                                     {"corpus", options.corpus.string()}}};
  // The op-surface table of every campaign that ran on the corpus (or on the shards merged
  // into it): the cells the queue's reach counts hold, against the universe a campaign wrote.
  for (const auto &[feature, cases] :
       fuzzer::campaign::ReadQueueFiles(options.corpus / "queue").cases_reaching)
    input.stats.features.insert(feature);
  if (const auto universe = corpus::ReadSurfaceUniverse(options.corpus))
    input.stats.surface_universe = corpus::SurfaceUniverseToJson(*universe);
  if (!options.since.empty()) {
    input.since = SinceEarlierCorpus(bugs, input.known_issues, options, input.new_signatures);
    input.provenance["since"] = options.since.string();
  } else {
    for (const auto &bug : bugs)
      if (!bug.Known(input.known_issues))
        for (const auto &member : bug.members)
          input.new_signatures.insert(member.id);
  }
  std::size_t fresh = 0;
  for (const auto &bug : bugs)
    fresh += input.new_signatures.contains(bug.members.front().id);
  for (const auto &finding : findings) {
    fuzzer::campaign::FindingEvent event{.id = finding.id,
                                         .kind = finding.finding.kind,
                                         .signature = finding.signature,
                                         .is_new = input.new_signatures.contains(finding.id)};
    if (const auto *known = input.known_issues.Match(finding.signature, finding.key))
      event.known_issue = known->id;
    ++(event.Reportable() ? input.stats.new_by_kind
                          : input.stats.known_by_kind)[std::string(corpus::KindName(event.kind))];
    input.stats.signatures.emplace(finding.id, event);
  }
  fuzzer::campaign::WriteReports(options.report_dir, input);
  out << fmt::format(
      "{} bug(s) from {} signature(s), {}; reports in {}\n", bugs.size(), findings.size(),
      options.since.empty()
          ? fmt::format("{} not known", fresh)
          : fmt::format("{} new since {} (not known, not in it), {} seen again", fresh,
                        options.since.string(), input.since["seen_again"].size()),
      options.report_dir.string());
  return fresh == 0 ? support::kExitNothingFound : support::kExitFindings;
}

int ListSignatures(const std::vector<corpus::StoredFinding> &findings, const CorpusOptions &options,
                   std::ostream &out) {
  if (options.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto &finding : findings)
      list.push_back(finding.Summary());
    out << list.dump(2) << "\n";
    return support::kExitNothingFound;
  }
  out << fmt::format("{:<40} {:>5}  {:<20}  {}\n", "id", "hits", "last seen", "summary");
  for (const auto &finding : findings)
    out << fmt::format("{:<40} {:>5}  {:<20}  {}\n", finding.id, finding.HitCount(),
                       finding.LastSeen(), finding.finding.summary.substr(0, 100));
  out << fmt::format("{} signature(s) in {}\n", findings.size(), options.corpus.string());
  return support::kExitNothingFound;
}

// Upstream status of a known bug, else how far its delivery got (`fuzz --reduce`).
std::string BugStatus(const corpus::Bug &bug, const corpus::KnownIssues &known) {
  std::string status = "new";
  if (const auto *issue = bug.Known(known))
    status = issue->id.substr(0, 16) + ": " + issue->status;
  else
    for (const auto &member : bug.members)
      if (member.delivery)
        status = fmt::format("new, {}", corpus::DeliveryStatusName(member.delivery->status));
  return status;
}

int ListBugs(const std::vector<corpus::StoredFinding> &findings,
             const std::vector<corpus::Bug> &bugs, const CorpusOptions &options,
             std::ostream &out) {
  if (options.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto &bug : bugs)
      list.push_back(bug.Summary());
    out << list.dump(2) << "\n";
    return support::kExitNothingFound;
  }
  const auto known = std::filesystem::exists(options.known_issues)
                         ? corpus::ReadKnownIssues(options.known_issues)
                         : corpus::KnownIssues{};
  out << fmt::format("{:<21} {:>5} {:>4}  {:<22} {:<20}  {:<28}  {}\n", "bug", "hits", "sigs",
                     "detectors", "last seen", "status", "summary");
  for (const auto &bug : bugs) {
    std::string detectors;
    for (const auto &detector : bug.detectors)
      detectors += (detectors.empty() ? "" : ",") + detector;
    out << fmt::format("{:<21} {:>5} {:>4}  {:<22} {:<20}  {:<28}  {}\n", bug.id,
                       bug.hit_ids.size(), bug.members.size(), detectors, bug.last_seen,
                       BugStatus(bug, known), bug.members.front().finding.summary.substr(0, 90));
  }
  out << fmt::format("{} bug(s) from {} signature(s) in {}\n", bugs.size(), findings.size(),
                     options.corpus.string());
  return support::kExitNothingFound;
}

} // namespace

int CorpusAction(const CorpusOptions &options, std::ostream &out) {
  if (options.action == "merge")
    return Merge(options, out);
  RequireCorpus(options.corpus);
  corpus::FindingStore store(options.corpus);
  ReportMigration(store, options.corpus);
  if (options.action == "migrate")
    return MigrateCorpus(store, options, out);
  const auto findings = store.List();
  const auto bugs = corpus::GroupIntoBugs(findings);
  if (options.action == "show")
    return ShowBugOrFinding(store, bugs, options, out);
  if (options.action == "report")
    return ReportCorpus(findings, bugs, options, out);
  if (options.signatures)
    return ListSignatures(findings, options, out);
  return ListBugs(findings, bugs, options, out);
}

} // namespace workflows
