#pragma once

#include "corpus/bugs.h"
#include "corpus/finding_store.h"
#include "fuzzer/campaign/campaign_stats.h"

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace fuzzer::campaign {

struct ReportInput {
  CampaignStats stats;
  std::vector<corpus::StoredFinding> findings; // the corpus after the campaign
  corpus::KnownIssues known_issues;
  // The signatures (stored finding ids) of the bugs to report as new (CampaignStats::Bugs). A
  // stored bug is new when all its signatures are: the corpus may join a new signature to an
  // old bug that the campaign had not yet joined, and that bug is not new.
  std::set<std::string> new_signatures;
  nlohmann::json provenance; // tool, torch, command line, seed, shard
  // What is new against the corpus the campaign started from (SinceCorpusBefore), or against
  // `corpus report --since`'s; null: no such corpus.
  nlohmann::json since;
};

// The signatures of the new bugs of a campaign.
std::set<std::string> NewBugSignatures(const CampaignStats &stats);

// Writes summary.json, junit.xml, findings.sarif and report.html into `dir`: one entry per bug
// (corpus/bugs.h), new before known, with the signatures and evidence it holds.
void WriteReports(const std::filesystem::path &dir, const ReportInput &input);

// Each format of the bugs `bugs` (Ordered: grouped and ordered once, by WriteReports); the
// one-argument forms group them themselves.
std::string JunitReport(const ReportInput &input, const std::vector<corpus::Bug> &bugs);
nlohmann::json SarifReport(const ReportInput &input, const std::vector<corpus::Bug> &bugs);
std::string HtmlReport(const ReportInput &input, const std::vector<corpus::Bug> &bugs);
std::string JunitReport(const ReportInput &input);
nlohmann::json SarifReport(const ReportInput &input);
std::string HtmlReport(const ReportInput &input);

} // namespace fuzzer::campaign
