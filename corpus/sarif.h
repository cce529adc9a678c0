#pragma once

// SARIF 2.1.0, the one writer: `check --format sarif` (a finding per result) and a campaign's
// findings.sarif (a bug per result) build their results here, so that both carry the same
// fields and fingerprints and code-scanning tools track a finding across runs the same way.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace corpus {

struct SarifLocation {
  std::string path;    // a file's path: written as a URI (file:// when absolute)
  unsigned line = 0;   // 0: the whole file
  unsigned column = 0; // 0: none
  std::string snippet; // the line's text, when known
  std::string message; // for a related location: what it is
};

struct SarifResult {
  std::string rule;  // the rule's id: a check's name or a finding kind
  std::string level; // error, warning or note
  std::string message;
  std::vector<SarifLocation> locations;
  std::vector<SarifLocation> related;
  // partialFingerprints: inductorFuzzSignature/v1 (the finding's signature, always) and
  // inductorFuzzBug/v1 (the bug's key, for a campaign's bug).
  std::string signature;
  std::string bug_key;
  nlohmann::json properties = nlohmann::json::object();
};

// The SARIF log of one run of inductor-fuzz `tool_version`; its rules are the results' rules,
// in order of first use.
nlohmann::json SarifLog(const std::string &tool_version, const std::vector<SarifResult> &results);

// A path as a SARIF artifactLocation.uri, which must be a URI reference: absolute paths become
// file:// URIs, and bytes outside RFC 3986's unreserved set and '/' are percent-encoded.
std::string SarifUri(const std::string &path);

} // namespace corpus
