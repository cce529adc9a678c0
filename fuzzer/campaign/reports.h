#pragma once

#include "corpus/finding_store.h"
#include "fuzzer/campaign/campaign.h"

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace fuzzer::campaign {

struct ReportInput {
  CampaignStats stats;
  std::vector<corpus::StoredFinding> findings; // the corpus after the campaign
  corpus::KnownIssues known_issues;
  std::set<std::string> new_bugs; // ids of the bugs to report as new (CampaignStats::Bugs)
  nlohmann::json provenance;      // tool, torch, command line, seed, shard
};

// The ids of the new bugs of a campaign.
std::set<std::string> NewBugIds(const CampaignStats &stats);

// Writes summary.json, junit.xml, findings.sarif and report.html into `dir`: one entry per bug
// (corpus/bugs.h), new before known, with the signatures and evidence it holds.
void WriteReports(const std::filesystem::path &dir, const ReportInput &input);

std::string JunitReport(const ReportInput &input);
nlohmann::json SarifReport(const ReportInput &input);
std::string HtmlReport(const ReportInput &input);

} // namespace fuzzer::campaign
