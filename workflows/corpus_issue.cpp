#include "corpus/bug_key.h"
#include "corpus/bugs.h"
#include "corpus/finding_store.h"
#include "corpus/known_issues.h"
#include "fuzzer/campaign/draft_upstream.h"
#include "fuzzer/campaign/issue_draft.h"
#include "support/errors.h"
#include "support/text_file.h"
#include "support/version.h"
#include "workflows/corpus_actions.h"
#include "workflows/delivery.h"

#include <fmt/format.h>

#include <iostream>
#include <optional>
#include <ostream>

namespace workflows {
namespace {

namespace fs = std::filesystem;

// Progress of the runs goes to stderr: stdout is the draft, to paste or redirect.
void Progress(const std::string &line) { std::cerr << "corpus issue: " << line << "\n"; }

const std::atomic<bool> kNeverStop{false};

// The known issue's repro run on the installed releases (or on the venv's alone when its
// releases are stored); nothing when the issue has no reduced repro.
corpus::Delivery RunKnownRepro(const corpus::KnownIssue &issue, const support::ToolPaths &paths) {
  const fs::path folder = paths.project_root / issue.reduced;
  corpus::Delivery run{.signature = issue.match};
  if (!issue.reduced.empty() && fs::exists(folder / "repro.py")) {
    // Its releases are stored (releases.json) when bisected; else every installed one runs.
    const bool stored_releases = fs::exists(folder / "releases.json");
    workflows::RunReproOnReleases(folder / "repro.py", paths, std::chrono::seconds(600),
                                  !stored_releases, kNeverStop, Progress, run);
    if (stored_releases)
      run.releases.clear();
    run.environment = workflows::CollectEnvironment(paths.venv / "bin" / "python");
  }
  return run;
}

// The finding a bug id, a finding id or a prefix names: of a bug's members, a delivered one.
corpus::StoredFinding ChosenFinding(const CorpusOptions &options) {
  if (!fs::is_directory(options.corpus / "findings"))
    throw support::InputError(fmt::format(
        "'{}' is no known issue of {}, and {} is not a corpus (no findings/ folder): pass a "
        "known issue's id, or --corpus with a bug id",
        options.id, options.known_issues.string(), options.corpus.string()));
  const corpus::FindingStore store(options.corpus);
  const auto findings = store.List();
  std::optional<corpus::StoredFinding> chosen; // a copy: the bugs are gone after the loop
  for (const auto &bug : corpus::GroupIntoBugs(findings)) {
    bool named =
        bug.id == options.id || (options.id.starts_with("bug-") && bug.id.starts_with(options.id));
    for (const auto &member : bug.members)
      named = named || member.id == options.id;
    if (!named)
      continue;
    for (const auto &member : bug.members)
      if (!chosen || (member.delivery && !chosen->delivery))
        chosen = member;
  }
  if (!chosen)
    throw support::InputError(fmt::format(
        "'{}' is neither a bug or finding of {} nor a known issue's id; `inductor-fuzz corpus "
        "list` shows the bugs",
        options.id, options.corpus.string()));
  return *chosen;
}

// A campaign's delivery of the finding, or, where none ran, its smallest case's repro run now.
corpus::Delivery DeliveryOf(const corpus::StoredFinding &chosen, const support::ToolPaths &paths) {
  if (chosen.delivery && chosen.delivery->status != corpus::DeliveryStatus::kPending)
    return *chosen.delivery;
  Progress(fmt::format("{} was not reduced (fuzz --reduce, or inductor-fuzz reduce {}): the "
                       "draft shows its unreduced repro",
                       chosen.id, chosen.folder.string()));
  corpus::Delivery delivery = {.finding_id = chosen.id,
                               .signature = chosen.signature,
                               .status = corpus::DeliveryStatus::kReduced,
                               .detail = "not reduced",
                               .tool_version = support::ToolVersion()};
  if (fs::exists(chosen.smallest / "repro.py"))
    workflows::RunReproOnReleases(chosen.smallest / "repro.py", paths, std::chrono::seconds(600),
                                  false, kNeverStop, Progress, delivery);
  delivery.environment = workflows::CollectEnvironment(paths.venv / "bin" / "python");
  return delivery;
}

// The API a match names (its `api` fact), if it names one.
std::string ApiOfMatch(const std::string &match) {
  if (const auto facts = corpus::ParseKeyFacts(match))
    for (const auto &[name, value] : facts->facts)
      if (name == "api")
        return value;
  return "";
}

// The upstream section: the tracker export's issues that hold most of the bug's key terms.
std::string UpstreamNotes(const std::vector<fuzzer::campaign::UpstreamIssue> &upstream,
                          const std::string &failure, const std::string &api) {
  const auto terms = fuzzer::campaign::KeyTerms(failure, api);
  return fuzzer::campaign::UpstreamSection(fuzzer::campaign::LikelyDuplicates(upstream, terms),
                                           upstream.size(), terms);
}

} // namespace

int CorpusIssue(const CorpusOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  // Bad input is refused before any repro runs.
  const auto upstream = options.upstream.empty()
                            ? std::vector<fuzzer::campaign::UpstreamIssue>{}
                            : fuzzer::campaign::ReadUpstreamIssues(options.upstream);
  const auto known = fs::exists(options.known_issues)
                         ? corpus::ReadKnownIssues(options.known_issues)
                         : corpus::KnownIssues{};
  std::string draft;
  std::optional<std::string> no_draft;
  const corpus::KnownIssue *known_issue = nullptr;
  for (const auto &issue : known.issues)
    if (issue.id == options.id)
      known_issue = &issue;
  if (known_issue) {
    const corpus::Delivery run = RunKnownRepro(*known_issue, paths);
    const bool has_repro = !known_issue->reduced.empty() &&
                           fs::exists(paths.project_root / known_issue->reduced / "repro.py");
    // Without a repro, KnownIssueDraft says what is missing.
    no_draft = has_repro ? fuzzer::campaign::WhyNoDraft(run) : std::nullopt;
    const std::string notes =
        upstream.empty()
            ? ""
            : UpstreamNotes(upstream, fuzzer::campaign::FailureFromKey(known_issue->match),
                            ApiOfMatch(known_issue->match));
    if (!no_draft)
      draft = fuzzer::campaign::KnownIssueDraft(*known_issue, paths.project_root, run, notes);
  } else {
    const corpus::StoredFinding chosen = ChosenFinding(options);
    const corpus::Delivery delivery = DeliveryOf(chosen, paths);
    no_draft = fuzzer::campaign::WhyNoDraft(delivery);
    std::string notes;
    // A bug a known issue names says so, with its upstream link.
    if (const auto *match = known.Match(chosen.signature, chosen.key))
      notes = fmt::format("Known to inductor-fuzz as `{}` ({}){}.\n", match->id, match->status,
                          match->link.empty() ? "" : ", upstream: " + match->link);
    if (!upstream.empty())
      notes += (notes.empty() ? "" : "\n") +
               UpstreamNotes(upstream, fuzzer::campaign::FailureFromKey(chosen.key), "");
    if (!no_draft)
      draft = fuzzer::campaign::IssueDraft(chosen, delivery, notes);
  }
  if (no_draft) {
    out << fmt::format("corpus issue: {}: no draft: {}\n", options.id, *no_draft);
    return support::kExitFindings;
  }
  if (!options.out_file.empty())
    support::WriteFileAtomically(options.out_file, draft);
  out << draft;
  return support::kExitNothingFound;
}

} // namespace workflows
