#pragma once

#include "corpus/finding_store.h"
#include "corpus/known_issues.h"
#include "support/shared_options.h"
#include "support/tool_paths.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace workflows {

// What a stored finding does when its smallest case runs again, on today's torch.
enum class ReplayVerdict { kStillFailing, kFixed, kFailingDifferently, kNoCase };
std::string_view ReplayVerdictName(ReplayVerdict verdict);

struct ReplayResult {
  std::string id;
  std::string bug;       // the bug it belongs to (corpus/bugs.h)
  std::string signature; // as stored
  ReplayVerdict verdict = ReplayVerdict::kNoCase;
  std::string now; // the status, and the signature when it fails differently
};

struct ReplayOptions {
  std::filesystem::path corpus;
  std::chrono::seconds case_timeout{support::options::CaseTimeout::Default()};
  // The matrix findings' compilers; empty: the ones each finding's stored matrix names.
  std::vector<std::string> compilers;
};

// Reruns every stored finding's smallest case through the stage that found it, on today's torch
// and compilers: the worker's oracles, `check` on the captured TUs for static findings, the
// compiler matrix and runtime differential for matrix findings. Fix verification after a torch
// or compiler upgrade. A case that fails with another signature of the same bug (a reworded
// message, the same cause in another kernel) is still failing.
std::vector<ReplayResult> ReplayCorpus(const ReplayOptions &options,
                                       const support::ToolPaths &paths,
                                       const std::function<void(const ReplayResult &)> &each);

// After a replay on torch `torch_version`: every known issue that names a bug whose findings
// no longer reproduce gets status "fixed-in <torch_version>", unless the bug was found on that
// very release (a flaky failure that did not show this time is not a fix). Returns the ids of
// the issues changed; the caller writes the file.
std::vector<std::string> MarkFixedKnownIssues(const std::vector<ReplayResult> &results,
                                              const std::vector<corpus::StoredFinding> &findings,
                                              const std::string &torch_version,
                                              corpus::KnownIssues &known);

// `inductor-fuzz replay`: replays the corpus, printing a line per finding and per bug to `out`,
// and marks the known issues of `known_issues` (empty: the project's) whose bugs no longer
// reproduce as fixed in this torch. Exit 1 when a finding still fails or fails differently.
int ReplayAndReport(const ReplayOptions &options, const std::filesystem::path &known_issues,
                    const support::ToolPaths &paths, std::ostream &out);

} // namespace workflows
