#include "corpus/known_issues.h"

#include "corpus/field_reader.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

namespace corpus {
const std::vector<std::string> &KnownIssueStatuses() {
  static const std::vector<std::string> statuses = {"unreported",     "reported",
                                                    "fixed-upstream", "fixed-in <release>",
                                                    "investigating",  "wont-fix"};
  return statuses;
}

std::string FixedInRelease(const std::string &status) {
  constexpr std::string_view prefix = "fixed-in ";
  if (!status.starts_with(prefix) || status.size() == prefix.size())
    return "";
  const std::string release = status.substr(prefix.size());
  const bool plausible = std::isdigit(static_cast<unsigned char>(release.front())) &&
                         release.find_first_of(" \t") == std::string::npos;
  return plausible ? release : "";
}

bool IsKnownIssueStatus(const std::string &status) {
  const auto &statuses = KnownIssueStatuses();
  return !FixedInRelease(status).empty() ||
         (std::find(statuses.begin(), statuses.end(), status) != statuses.end() &&
          !status.starts_with("fixed-in"));
}

void WriteKnownIssues(const std::filesystem::path &path, const KnownIssues &known) {
  nlohmann::ordered_json issues = nlohmann::ordered_json::array();
  for (const auto &issue : known.issues) {
    nlohmann::ordered_json entry;
    entry["id"] = issue.id;
    entry["match"] = issue.match;
    entry["status"] = issue.status;
    entry["link"] = issue.link;
    if (!issue.reduced.empty())
      entry["reduced"] = issue.reduced;
    entry["title"] = issue.title;
    issues.push_back(entry);
  }
  nlohmann::ordered_json document;
  document["format_version"] = kKnownIssuesFormatVersion;
  document["issues"] = issues;
  fuzzer::support::WriteFileAtomically(path, document.dump(2) + "\n");
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
      if (const auto *reduced = entry.Optional("reduced")) {
        if (!reduced->is_string())
          throw FormatError(fmt::format("{} must be a string", entry.Label("reduced")));
        issue.reduced = reduced->get<std::string>();
      }
      const auto &statuses = KnownIssueStatuses();
      if (!IsKnownIssueStatus(issue.status))
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
