#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace corpus {

// Findings somebody already knows about: a signature pattern, where it is tracked, and how far
// it got. A campaign reports a finding that matches as known, not new.
inline constexpr int kKnownIssuesFormatVersion = 1;

struct KnownIssue {
  std::string id;
  std::string match; // a signature, or a pattern where * stands for any text
  // investigating; unreported (reduced, and PyTorch's issues searched without a match);
  // reported; fixed-upstream; wont-fix
  std::string status;
  std::string link; // upstream issue or PR, or empty while investigating
  std::string title;
  bool operator==(const KnownIssue &) const = default;
};

struct KnownIssues {
  std::vector<KnownIssue> issues;
  // The first issue whose pattern matches the whole signature.
  const KnownIssue *Match(const std::string &signature) const;
};

// The statuses a known issue may have.
const std::vector<std::string> &KnownIssueStatuses();

// Reads and validates known-issues.json; FormatError names the entry and field.
KnownIssues ReadKnownIssues(const std::filesystem::path &path);

} // namespace corpus
