#pragma once

// Likely duplicates of a bug among PyTorch's issues, from an export of the tracker the user made
// (`gh issue list --repo pytorch/pytorch --json number,title,body,state --limit 5000`): the tool
// reaches no network, and a draft only suggests; the reporter decides.

#include <filesystem>
#include <string>
#include <vector>

namespace fuzzer::campaign {

struct UpstreamIssue {
  long number = 0;
  std::string title;
  std::string body;
  std::string state; // OPEN, CLOSED
};

// The issues of a JSON export: an array of objects with at least a number and a title. Throws
// support::InputError (one line: the file, what is wrong, what to do) for a missing, unreadable
// or malformed file.
std::vector<UpstreamIssue> ReadUpstreamIssues(const std::filesystem::path &file);

// The words a tracker issue about the bug would use: identifiers, the exception's type, the
// message's words, the API; lower case, each once.
std::vector<std::string> KeyTerms(const std::string &failure, const std::string &api);

struct UpstreamMatch {
  UpstreamIssue issue;
  std::vector<std::string> terms; // the key terms its title and body hold
};

// The issues that hold most of the terms (at least half, and at least two), best first, at
// most `limit`.
std::vector<UpstreamMatch> LikelyDuplicates(const std::vector<UpstreamIssue> &issues,
                                            const std::vector<std::string> &terms,
                                            std::size_t limit = 5);

// The draft's section that lists them, or says none matched.
std::string UpstreamSection(const std::vector<UpstreamMatch> &matches, std::size_t searched,
                            const std::vector<std::string> &terms);

} // namespace fuzzer::campaign
