#include "fuzzer/campaign/replay.h"

#include "fuzzer/support/scratch_dir.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"

#include <fmt/format.h>

namespace fuzzer::campaign {

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

std::vector<ReplayResult> ReplayCorpus(const ReplayOptions &options,
                                       const support::ToolPaths &paths,
                                       const std::function<void(const ReplayResult &)> &each) {
  const corpus::FindingStore store(options.corpus);
  const support::ScratchDir scratch("replay");
  worker::Worker worker({.worker_executable = paths.worker_executable,
                         .venv = paths.venv,
                         .scratch_dir = scratch / "worker",
                         .log_file = scratch / "worker.log"});
  std::vector<ReplayResult> results;
  std::size_t index = 0;
  for (const auto &finding : store.List()) {
    ReplayResult result{.id = finding.id, .signature = finding.signature};
    const auto case_file = finding.smallest / "case.json";
    const auto kind = finding.finding.kind;
    if (kind == corpus::FindingKind::kConflictingDeclaration ||
        kind == corpus::FindingKind::kAnalysisError || kind == corpus::FindingKind::kShadowing) {
      result.now = "static analysis: run `check` on its stored sources";
    } else if (finding.smallest.empty() || !std::filesystem::exists(case_file)) {
      result.now = "no stored case";
    } else {
      const corpus::Case c = corpus::LoadCaseFile(case_file);
      const auto outcome = worker::RunCaseOnWorker(
          worker, c, scratch / fmt::format("cache-{}", index++),
          std::chrono::duration_cast<std::chrono::milliseconds>(options.case_timeout));
      if (!outcome.finding) {
        result.verdict = ReplayVerdict::kFixed;
        result.now = std::string(outcome.Status());
      } else if (corpus::Signature(*outcome.finding) == finding.signature) {
        result.verdict = ReplayVerdict::kStillFailing;
        result.now = "same signature";
      } else {
        result.verdict = ReplayVerdict::kFailingDifferently;
        result.now = corpus::Signature(*outcome.finding);
      }
    }
    each(result);
    results.push_back(std::move(result));
  }
  return results;
}

} // namespace fuzzer::campaign
