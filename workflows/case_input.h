#pragma once

#include "corpus/case.h"
#include "corpus/finding.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace workflows {

// What `reduce` and `bisect` take: a case file, or a corpus finding's folder (its smallest case
// and its signature).
struct CaseInput {
  corpus::Case c;
  std::string signature; // the stored finding's; empty for a case file
  std::optional<std::filesystem::path> finding_folder;
  std::vector<std::string> anchors;        // the stored finding's bug (corpus::ReleaseAnchors)
  std::optional<corpus::FindingKind> kind; // the stored finding's
  std::string id;                          // the stored finding's
  std::filesystem::path smallest;          // the folder of its smallest case (matrix.json)
  std::vector<std::string> needs; // what its probe found it needs (fuzzer/campaign/probe.h)
};

// Throws InputError for a folder that is not a finding's, CaseError for a bad case file.
CaseInput ReadCaseOrFinding(const std::filesystem::path &input);

} // namespace workflows
