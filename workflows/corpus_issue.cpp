#include "corpus/bugs.h"
#include "corpus/finding_store.h"
#include "corpus/known_issues.h"
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

std::string KnownDraft(const corpus::KnownIssue &issue, const support::ToolPaths &paths) {
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
  return fuzzer::campaign::KnownIssueDraft(issue, paths.project_root, run);
}

} // namespace

int CorpusIssue(const CorpusOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  std::string draft;
  const auto known = fs::exists(options.known_issues)
                         ? corpus::ReadKnownIssues(options.known_issues)
                         : corpus::KnownIssues{};
  for (const auto &issue : known.issues)
    if (issue.id == options.id)
      draft = KnownDraft(issue, paths);
  if (draft.empty()) {
    if (!fs::is_directory(options.corpus / "findings"))
      throw support::InputError(fmt::format(
          "'{}' is no known issue of {}, and {} is not a corpus (no findings/ folder): pass a "
          "known issue's id, or --corpus with a bug id",
          options.id, options.known_issues.string(), options.corpus.string()));
    const corpus::FindingStore store(options.corpus);
    const auto findings = store.List();
    std::optional<corpus::StoredFinding> chosen; // a copy: the bugs are gone after the loop
    for (const auto &bug : corpus::GroupIntoBugs(findings)) {
      bool named = bug.id == options.id ||
                   (options.id.starts_with("bug-") && bug.id.starts_with(options.id));
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
    corpus::Delivery delivery;
    if (chosen->delivery && chosen->delivery->status != corpus::DeliveryStatus::kPending) {
      delivery = *chosen->delivery;
    } else {
      // Not delivered by a campaign: the smallest case's repro, run now.
      Progress(fmt::format("{} was not reduced (fuzz --reduce, or inductor-fuzz reduce {}): the "
                           "draft shows its unreduced repro",
                           chosen->id, chosen->folder.string()));
      delivery = {.finding_id = chosen->id,
                  .signature = chosen->signature,
                  .detail = "not reduced",
                  .tool_version = support::ToolVersion()};
      if (fs::exists(chosen->smallest / "repro.py"))
        workflows::RunReproOnReleases(chosen->smallest / "repro.py", paths,
                                      std::chrono::seconds(600), false, kNeverStop, Progress,
                                      delivery);
      delivery.environment = workflows::CollectEnvironment(paths.venv / "bin" / "python");
    }
    draft = fuzzer::campaign::IssueDraft(*chosen, delivery);
  }
  if (!options.out_file.empty())
    support::WriteFileAtomically(options.out_file, draft);
  out << draft;
  return support::kExitNothingFound;
}

} // namespace workflows
