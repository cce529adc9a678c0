#include "corpus/known_issues.h"

#include "corpus/field_reader.h"
#include "fuzzer/support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace corpus {
const std::vector<std::string> &KnownIssueStatuses() {
  static const std::vector<std::string> statuses = {"investigating", "unreported", "reported",
                                                    "fixed-upstream", "wont-fix"};
  return statuses;
}

const KnownIssue *KnownIssues::Match(const std::string &signature) const {
  for (const auto &issue : issues)
    if (fuzzer::support::GlobMatches(issue.match, signature))
      return &issue;
  return nullptr;
}

KnownIssues ReadKnownIssues(const std::filesystem::path &path) {
  const auto document = ReadJsonDocument(path, "known-issues file", "fix it or pass another");
  try {
    FieldReader reader(document, "", "the known-issues file");
    const auto version = reader.Integer("format_version", 0);
    if (version != kKnownIssuesFormatVersion)
      throw FormatError(fmt::format("format_version is {}; this build reads {}", version,
                                    kKnownIssuesFormatVersion));
    const auto &list = reader.Required("issues");
    if (!list.is_array())
      throw FormatError("field 'issues' must be a list");
    KnownIssues known;
    for (std::size_t i = 0; i < list.size(); ++i) {
      FieldReader entry(list[i], fmt::format("issues[{}]", i));
      KnownIssue issue{.id = entry.String("id"),
                       .match = entry.String("match"),
                       .status = entry.String("status"),
                       .link = entry.String("link"),
                       .title = entry.String("title")};
      const auto &statuses = KnownIssueStatuses();
      if (std::find(statuses.begin(), statuses.end(), issue.status) == statuses.end())
        throw FormatError(fmt::format("{} is '{}'; use one of {}", entry.Label("status"),
                                      issue.status, fmt::join(statuses, ", ")));
      if (issue.match.empty() || issue.match == "*")
        throw FormatError(fmt::format("{} would match every finding", entry.Label("match")));
      entry.RejectUnknown();
      known.issues.push_back(std::move(issue));
    }
    reader.RejectUnknown();
    return known;
  } catch (const FormatError &error) {
    throw FormatError(fmt::format("{}: {}", path.string(), error.what()));
  }
}

} // namespace corpus
