#include "fuzzer/campaign/draft_upstream.h"

#include "support/errors.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>
#include <set>

namespace fuzzer::campaign {
namespace {

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Words that say nothing of one bug in PyTorch's tracker.
bool IsCommon(const std::string &word) {
  static const std::set<std::string> common = {
      "the",     "and",     "with",  "from",    "that",     "this",      "does",     "when",
      "only",    "into",    "than",  "then",    "there",    "their",     "compiled", "generated",
      "result",  "differs", "eager", "raises",  "torch",    "compile",   "call",     "process",
      "crashes", "returns", "never", "kernel",  "inductor", "error",     "declared", "scope",
      "value",   "values",  "other", "another", "compiler", "memory",    "bounds",   "accesses",
      "name",    "twice",   "some",  "rows",    "columns",  "everywhere"};
  return word.size() < 4 || common.contains(word);
}

} // namespace

std::vector<UpstreamIssue> ReadUpstreamIssues(const std::filesystem::path &file) {
  const std::string what = "--upstream " + file.string();
  if (!std::filesystem::is_regular_file(file))
    throw support::InputError(fmt::format("{}: no such file; export the tracker's issues with `gh "
                                          "issue list --repo pytorch/pytorch --json "
                                          "number,title,body,state --limit 5000 > FILE`",
                                          what));
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(support::ReadTextFile(file, "--upstream file", 512u << 20));
  } catch (const nlohmann::json::exception &error) {
    throw support::InputError(fmt::format(
        "{} is not JSON ({}): give the output of `gh issue list --json number,title,body,state`",
        what, error.what()));
  }
  if (!document.is_array())
    throw support::InputError(
        fmt::format("{} is no JSON array of issues: give the output of `gh issue list --json "
                    "number,title,body,state`",
                    what));
  std::vector<UpstreamIssue> issues;
  for (std::size_t i = 0; i < document.size(); ++i) {
    const auto &entry = document[i];
    if (!entry.is_object() || !entry.contains("number") || !entry["number"].is_number_integer() ||
        !entry.contains("title") || !entry["title"].is_string())
      throw support::InputError(fmt::format(
          "{}: entry {} has no integer \"number\" and string \"title\": export with `gh issue "
          "list --json number,title,body,state`",
          what, i));
    const auto text = [&](const char *key) {
      return entry.contains(key) && entry[key].is_string() ? entry[key].get<std::string>() : "";
    };
    issues.push_back({.number = entry["number"].get<long>(),
                      .title = text("title"),
                      .body = text("body"),
                      .state = text("state")});
  }
  return issues;
}

std::vector<std::string> KeyTerms(const std::string &failure, const std::string &api) {
  std::vector<std::string> terms;
  const auto add = [&](std::string term) {
    term = Lower(term);
    if (!IsCommon(term) && std::find(terms.begin(), terms.end(), term) == terms.end())
      terms.push_back(term);
  };
  if (!api.empty())
    add(api);
  // Identifiers keep their underscores (full_kv_num_blocks, accum_t); the rest splits into words.
  static const std::regex word(R"([A-Za-z_][A-Za-z0-9_]*)");
  for (std::sregex_iterator it(failure.begin(), failure.end(), word), end; it != end; ++it)
    add(it->str());
  return terms;
}

std::vector<UpstreamMatch> LikelyDuplicates(const std::vector<UpstreamIssue> &issues,
                                            const std::vector<std::string> &terms,
                                            std::size_t limit) {
  std::vector<UpstreamMatch> matches;
  const std::size_t needed = std::max<std::size_t>(2, (terms.size() + 1) / 2);
  for (const auto &issue : issues) {
    const std::string text = Lower(issue.title + "\n" + issue.body);
    UpstreamMatch match{.issue = issue, .terms = {}};
    for (const auto &term : terms)
      if (text.find(term) != std::string::npos)
        match.terms.push_back(term);
    if (match.terms.size() >= needed)
      matches.push_back(std::move(match));
  }
  std::stable_sort(matches.begin(), matches.end(),
                   [](const auto &a, const auto &b) { return a.terms.size() > b.terms.size(); });
  if (matches.size() > limit)
    matches.resize(limit);
  return matches;
}

std::string UpstreamSection(const std::vector<UpstreamMatch> &matches, std::size_t searched,
                            const std::vector<std::string> &terms) {
  std::string terms_text;
  for (const auto &term : terms)
    terms_text += (terms_text.empty() ? "`" : ", `") + term + "`";
  if (matches.empty())
    return fmt::format("**Likely duplicates:** none of the {} exported PyTorch issues holds "
                       "most of {}.\n",
                       searched, terms_text);
  std::string text = fmt::format("**Likely duplicates** (of {} exported PyTorch issues, by {}; "
                                 "check each before filing):\n",
                                 searched, terms_text);
  for (const auto &match : matches) {
    std::string held;
    for (const auto &term : match.terms)
      held += (held.empty() ? "" : ", ") + term;
    text +=
        fmt::format("- #{} {} ({}; holds {})\n", match.issue.number, match.issue.title,
                    match.issue.state.empty() ? "state unknown" : Lower(match.issue.state), held);
  }
  return text;
}

} // namespace fuzzer::campaign
