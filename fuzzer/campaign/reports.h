#pragma once

#include "corpus/finding_store.h"
#include "fuzzer/campaign/campaign.h"

#include <filesystem>
#include <string>
#include <vector>

namespace fuzzer::campaign {

struct ReportInput {
  CampaignStats stats;
  std::vector<corpus::StoredFinding> findings; // the corpus after the campaign
  corpus::KnownIssues known_issues;
  nlohmann::json provenance; // tool, torch, command line, seed, shard
};

// Writes summary.json, junit.xml, findings.sarif and report.html into `dir`.
void WriteReports(const std::filesystem::path &dir, const ReportInput &input);

std::string JunitReport(const ReportInput &input);
nlohmann::json SarifReport(const ReportInput &input);
std::string HtmlReport(const ReportInput &input);

} // namespace fuzzer::campaign
