#include "workflows/corpus_actions.h"

#include "corpus/bug_key.h"
#include "corpus/bugs.h"
#include "corpus/finding_store.h"
#include "corpus/known_issues.h"
#include "fuzzer/campaign/reports.h"
#include "support/errors.h"
#include "support/version.h"

#include <fmt/format.h>

#include <iostream>
#include <ostream>

namespace workflows {
namespace {

// Merge reads other corpora into --into: the --corpus it would otherwise open plays no part.
int MergeCorpora(const CorpusOptions &options, std::ostream &out) {
  if (options.into.empty())
    throw support::InputError("corpus merge needs --into DIR");
  corpus::FindingStore into(options.into);
  std::size_t added = 0;
  for (const auto &source : options.sources)
    added += into.MergeFrom(source);
  const auto findings = into.List();
  out << fmt::format("merged {} corpus(es) into {}: {} new hit(s), {} finding(s)\n",
                     options.sources.size(), options.into.string(), added, findings.size());
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

// The campaign's reports for the whole corpus, as if one campaign had found it all: every bug no
// known issue names counts as new, and makes the exit status say so.
int ReportCorpus(const std::vector<corpus::StoredFinding> &findings,
                 const std::vector<corpus::Bug> &bugs, const CorpusOptions &options,
                 std::ostream &out) {
  if (options.report_dir.empty())
    throw support::InputError("corpus report needs --report DIR");
  fuzzer::campaign::ReportInput input{.stats = {},
                                      .findings = findings,
                                      .known_issues = corpus::ReadKnownIssues(options.known_issues),
                                      .provenance = {{"tool_version", support::ToolVersion()},
                                                     {"command_line", "corpus report"},
                                                     {"corpus", options.corpus.string()}}};
  std::size_t fresh = 0;
  for (const auto &bug : bugs)
    if (!bug.Known(input.known_issues)) {
      ++fresh;
      for (const auto &member : bug.members)
        input.new_signatures.insert(member.id);
    }
  for (const auto &finding : findings) {
    fuzzer::campaign::FindingEvent event{.id = finding.id,
                                         .kind =
                                             std::string(corpus::KindName(finding.finding.kind)),
                                         .signature = finding.signature,
                                         .is_new = true};
    if (const auto *known =
            input.known_issues.Match(finding.signature, corpus::BugKey(finding.finding)))
      event.known_issue = known->id;
    ++(event.Reportable() ? input.stats.new_by_kind : input.stats.known_by_kind)[event.kind];
    input.stats.signatures.emplace(finding.id, event);
  }
  fuzzer::campaign::WriteReports(options.report_dir, input);
  out << fmt::format("{} bug(s) from {} signature(s), {} not known; reports in {}\n", bugs.size(),
                     findings.size(), fresh, options.report_dir.string());
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
    return MergeCorpora(options, out);
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
