#include "workflows/replay.h"

#include "corpus/bug_key.h"
#include "corpus/bugs.h"
#include "corpus/finding_store.h"
#include "corpus/known_issues.h"
#include "support/torch_environments.h"

#include "corpus/finding_kinds.h"
#include "fuzzer/campaign/case_pipeline.h"
#include "fuzzer/matrix/build_cache.h"
#include "fuzzer/matrix/prefix_cache.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"
#include "parsers/clang_analysis.h"
#include "support/errors.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <vector>

namespace workflows {

std::string_view ReplayVerdictName(ReplayVerdict verdict) {
  switch (verdict) {
  case ReplayVerdict::kStillFailing:
    return "still-failing";
  case ReplayVerdict::kFixed:
    return "fixed";
  case ReplayVerdict::kFailingDifferently:
    return "failing-differently";
  case ReplayVerdict::kNoCase:
    break;
  }
  return "not-replayed";
}

namespace {

bool IsStatic(corpus::FindingKind kind) {
  return corpus::RowOf(kind).detector == corpus::Detector::kCheck;
}

} // namespace

std::vector<ReplayResult> ReplayCorpus(const ReplayOptions &options,
                                       const support::ToolPaths &paths,
                                       const std::function<void(const ReplayResult &)> &each) {
  const corpus::FindingStore store(options.corpus);
  const support::ScratchDir scratch("replay");
  fuzzer::worker::Worker worker({.worker_executable = paths.worker_executable,
                                 .venv = paths.venv,
                                 .confine = paths.confine_workers,
                                 .scratch_dir = scratch / "worker",
                                 .log_file = scratch / "worker.log"});
  parsers::Analyzer analyzer({.prefix_cache_dir = fuzzer::campaign::SharedAnalysisPrefixes()});
  fuzzer::matrix::BuildCache cache(fuzzer::campaign::MatrixBuildsIn(options.corpus));
  fuzzer::matrix::PrefixCache prefixes(fuzzer::campaign::SharedMatrixPrefixes());
  std::vector<ReplayResult> results;
  std::size_t index = 0;
  const auto stored = store.List();
  std::map<std::string, const corpus::Bug *> bug_of;
  const auto bugs = corpus::GroupIntoBugs(stored);
  for (const auto &bug : bugs)
    for (const auto &member : bug.members)
      bug_of[member.id] = &bug;
  for (const auto &finding : stored) {
    const corpus::Bug &bug = *bug_of.at(finding.id);
    ReplayResult result{.id = finding.id, .bug = bug.id, .signature = finding.signature};
    const auto case_file = finding.smallest / "case.json";
    const auto kind = finding.finding.kind;
    if (finding.smallest.empty() || !std::filesystem::exists(case_file)) {
      result.now = "no stored case";
      each(result);
      results.push_back(std::move(result));
      continue;
    }
    corpus::Case c;
    try {
      c = corpus::LoadCaseFile(case_file);
    } catch (const support::InputError &error) {
      // One case this build will not load (an older mutator stored it) leaves the others'
      // verdicts to be had: it is reported with the findings that hold no case.
      result.now = fmt::format("unreadable stored case: {}", error.what());
      each(result);
      results.push_back(std::move(result));
      continue;
    }
    const auto case_dir = scratch / fmt::format("case-{}", index++);
    const auto outcome = fuzzer::worker::RunCaseOnWorker(
        worker, c, case_dir / "inductor-cache",
        std::chrono::duration_cast<std::chrono::milliseconds>(options.case_timeout),
        {.record_dir = fuzzer::campaign::IsMatrixKind(kind) ? case_dir / "recordings"
                                                            : std::filesystem::path()});
    std::vector<corpus::Finding> findings;
    if (outcome.finding)
      findings.push_back(*outcome.finding);
    if (IsStatic(kind))
      fuzzer::campaign::AnalyseCapturedTus(analyzer, outcome, case_dir, findings);
    if (fuzzer::campaign::IsMatrixKind(kind) && fuzzer::campaign::CapturedAnyBuild(outcome))
      fuzzer::campaign::RunMatrixOnCase(
          worker, c, outcome, case_dir,
          fuzzer::campaign::MatrixCompilersOf(options.compilers, finding.smallest, finding.id),
          {.builds = &cache, .prefixes = &prefixes}, options.case_timeout, findings);
    // Judged against the findings of the stored one's kind: a crash of the case is not a
    // verdict on its static conflict.
    std::vector<std::string> same_kind;
    std::string same_bug;
    for (const auto &now : findings)
      if (now.kind == kind || (!IsStatic(kind) && !fuzzer::campaign::IsMatrixKind(kind))) {
        same_kind.push_back(corpus::Signature(now));
        if (std::binary_search(bug.keys.begin(), bug.keys.end(), corpus::BugKey(now)))
          same_bug = same_kind.back();
      }
    if (std::find(same_kind.begin(), same_kind.end(), finding.signature) != same_kind.end()) {
      result.verdict = ReplayVerdict::kStillFailing;
      result.now = "same signature";
    } else if (!same_bug.empty()) {
      result.verdict = ReplayVerdict::kStillFailing;
      result.now = "same bug, as " + same_bug;
    } else if (same_kind.empty()) {
      result.verdict = ReplayVerdict::kFixed;
      result.now = std::string(outcome.Status());
    } else {
      result.verdict = ReplayVerdict::kFailingDifferently;
      result.now = same_kind.front();
    }
    std::error_code ignored;
    std::filesystem::remove_all(case_dir, ignored);
    each(result);
    results.push_back(std::move(result));
  }
  return results;
}

std::vector<std::string> MarkFixedKnownIssues(const std::vector<ReplayResult> &results,
                                              const std::vector<corpus::StoredFinding> &findings,
                                              const std::string &torch_version,
                                              corpus::KnownIssues &known) {
  std::map<std::string, bool> still_failing; // by bug
  for (const auto &result : results)
    if (result.verdict != ReplayVerdict::kNoCase)
      still_failing[result.bug] = still_failing[result.bug] ||
                                  result.verdict == ReplayVerdict::kStillFailing ||
                                  result.verdict == ReplayVerdict::kFailingDifferently;
  std::map<std::string, const corpus::StoredFinding *> by_id;
  for (const auto &finding : findings)
    by_id[finding.id] = &finding;
  std::vector<std::string> changed;
  for (auto &issue : known.issues) {
    if (!corpus::FixedInRelease(issue.status).empty() || issue.status == "wont-fix")
      continue;
    bool named = false, fixed = true, found_on_this_release = false;
    for (const auto &result : results) {
      const auto finding = by_id.find(result.id);
      const bool matches =
          support::GlobMatches(issue.match, result.signature) ||
          (finding != by_id.end() && support::GlobMatches(issue.match, finding->second->key));
      if (!matches || !still_failing.contains(result.bug))
        continue;
      named = true;
      fixed = fixed && !still_failing[result.bug];
      if (finding != by_id.end())
        for (const auto &hit : finding->second->hits)
          found_on_this_release =
              found_on_this_release || (hit.provenance.is_object() &&
                                        hit.provenance.value("torch_version", "") == torch_version);
    }
    if (named && fixed && !found_on_this_release && !torch_version.empty()) {
      issue.status = "fixed-in " + torch_version;
      changed.push_back(issue.id);
    }
  }
  return changed;
}

int ReplayAndReport(const ReplayOptions &options, const std::filesystem::path &known_issues,
                    const support::ToolPaths &paths, std::ostream &out) {
  if (!std::filesystem::is_directory(options.corpus / "findings"))
    throw support::InputError(
        fmt::format("{} is not a corpus (no findings/ folder); pass the --corpus a campaign wrote",
                    options.corpus.string()));
  std::size_t failing = 0;
  std::vector<std::string> unreplayed; // findings with no case to run: a damaged corpus
  const auto results = ReplayCorpus(options, paths, [&](const ReplayResult &result) {
    failing += result.verdict == ReplayVerdict::kStillFailing ||
               result.verdict == ReplayVerdict::kFailingDifferently;
    if (result.now == "no stored case" || result.now.starts_with("unreadable stored case"))
      unreplayed.push_back(result.id);
    out << fmt::format("{:<20} {} ({})  {}\n", ReplayVerdictName(result.verdict), result.id,
                       result.bug, result.now);
  });
  // A bug still fails when any of its signatures' cases still fails the same way.
  std::map<std::string, bool> bugs;
  for (const auto &result : results)
    bugs[result.bug] = bugs[result.bug] || result.verdict == ReplayVerdict::kStillFailing;
  std::size_t bugs_failing = 0;
  for (const auto &[bug, still] : bugs) {
    bugs_failing += still;
    out << fmt::format("bug {:<20} {}\n", still ? "still-failing" : "not-reproduced", bug);
  }
  out << fmt::format("{} finding(s) of {} bug(s) replayed: {} bug(s) still failing, {} "
                     "finding(s) failing\n",
                     results.size(), bugs.size(), bugs_failing, failing);
  // Known issues whose bugs no longer reproduce on this torch are marked fixed in it.
  const auto known_file =
      known_issues.empty() ? paths.project_root / "corpus" / "known-issues.json" : known_issues;
  if (std::filesystem::exists(known_file)) {
    auto known = corpus::ReadKnownIssues(known_file);
    const std::string torch = support::InstalledTorchVersion(paths.venv);
    const auto fixed =
        MarkFixedKnownIssues(results, corpus::FindingStore(options.corpus).List(), torch, known);
    if (!fixed.empty()) {
      corpus::WriteKnownIssues(known_file, known);
      for (const auto &id : fixed)
        out << fmt::format("known issue {} is now fixed-in {} ({})\n", id, torch,
                           known_file.string());
    }
  }
  if (!unreplayed.empty()) {
    out << fmt::format("could not replay {} finding(s), which hold no stored case or one this "
                       "build will not load: {}; their verdicts are unknown (run the campaigns "
                       "that found them again)\n",
                       unreplayed.size(), fmt::join(unreplayed, ", "));
    return support::kExitCannotRun;
  }
  return failing ? support::kExitFindings : support::kExitNothingFound;
}

} // namespace workflows
