#include "workflows/baseline_labels.h"

#include "corpus/bug_key.h"

#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace workflows {

std::vector<BaselineLabel>
LabelAgainstBaseline(const corpus::FindingStore &store, const std::vector<std::string> &finding_ids,
                     const support::TorchEnvironment &baseline, const support::ToolPaths &paths,
                     std::chrono::seconds case_timeout, const std::filesystem::path &scratch) {
  std::vector<BaselineLabel> labels;
  if (finding_ids.empty())
    return labels;
  fuzzer::worker::Worker worker(
      fuzzer::worker::WorkerOptions{.worker_executable = paths.worker_executable,
                                    .venv = baseline.venv,
                                    .confine = paths.confine_workers,
                                    .scratch_dir = scratch / "baseline-worker",
                                    .log_file = scratch / "baseline-worker.log"});
  const std::string &version = baseline.torch_version;
  for (const auto &id : finding_ids) {
    const auto stored = store.Load(id);
    const corpus::Case c = corpus::LoadCaseFile(stored.smallest / "case.json");
    const auto cache = scratch / "baseline-cache";
    std::error_code ignored;
    std::filesystem::remove_all(cache, ignored);
    const auto outcome = fuzzer::worker::RunCaseOnWorker(worker, c, cache, case_timeout);
    std::filesystem::remove_all(cache, ignored);
    BaselineLabel label{.finding_id = stored.id, .baseline_torch = version};
    if (outcome.finding)
      label.baseline_signature = corpus::Signature(*outcome.finding);
    // The same bug reworded on the baseline release is the same bug (corpus::ReleaseAnchors).
    if (label.baseline_signature == stored.signature ||
        (outcome.finding && corpus::ShareAnAnchor(corpus::ReleaseAnchors(*outcome.finding),
                                                  corpus::ReleaseAnchors(stored.finding))))
      label.label = "also in " + version;
    else if (outcome.status == corpus::CaseStatus::kPass ||
             outcome.status == corpus::CaseStatus::kExpected)
      label.label = "regression since " + version;
    else if (outcome.status == corpus::CaseStatus::kInvalidCase)
      label.label = "invalid on " + version;
    else
      label.label = "fails differently on " + version;
    support::WriteFileAtomically(stored.folder / fmt::format("baseline-{}.json", version),
                                 nlohmann::json{{"baseline_torch", version},
                                                {"baseline_venv", baseline.venv.string()},
                                                {"label", label.label},
                                                {"baseline_status", outcome.Status()},
                                                {"baseline_signature", label.baseline_signature},
                                                {"signature", stored.signature},
                                                {"time", corpus::UtcNow()}}
                                         .dump(2) +
                                     "\n");
    labels.push_back(std::move(label));
  }
  worker.Shutdown();
  return labels;
}

} // namespace workflows
