#include "workflows/release_compare.h"

#include "corpus/bug_key.h"

#include "corpus/finding.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <future>
#include <thread>

namespace workflows {

using nlohmann::json;

std::string_view ReleaseVerdictName(ReleaseVerdict verdict) {
  switch (verdict) {
  case ReleaseVerdict::kSame:
    return "same";
  case ReleaseVerdict::kRegressed:
    return "regressed";
  case ReleaseVerdict::kFixed:
    return "fixed";
  case ReleaseVerdict::kFailingDifferently:
    return "failing-differently";
  case ReleaseVerdict::kBothFailing:
    return "both-failing";
  case ReleaseVerdict::kNotComparable:
    return "not-comparable";
  }
  return "?";
}

ReleaseVerdict ClassifyReleases(const ReleaseRun &baseline, const ReleaseRun &candidate) {
  if (baseline.Invalid() || candidate.Invalid())
    return ReleaseVerdict::kNotComparable;
  if (!baseline.Failed())
    return candidate.Failed() ? ReleaseVerdict::kRegressed : ReleaseVerdict::kSame;
  if (!candidate.Failed())
    return ReleaseVerdict::kFixed;
  // One bug on both: the same signature, or a release that reworded the message.
  return baseline.signature == candidate.signature ||
                 corpus::ShareAnAnchor(baseline.anchors, candidate.anchors)
             ? ReleaseVerdict::kBothFailing
             : ReleaseVerdict::kFailingDifferently;
}

std::vector<fuzzer::matrix::KernelFingerprint> CapturedKernels(const json &result) {
  std::vector<fuzzer::matrix::KernelFingerprint> kernels;
  for (const auto &build : result.value("builds", json::array()))
    for (const auto &source : build.value("sources", json::array())) {
      auto found = fuzzer::matrix::FingerprintKernels(source.value("text", ""));
      kernels.insert(kernels.end(), found.begin(), found.end());
    }
  return kernels;
}

namespace {

ReleaseRun RunOn(fuzzer::worker::Worker &worker, const corpus::Case &c,
                 const std::filesystem::path &dir, std::chrono::seconds timeout) {
  const auto outcome = fuzzer::worker::RunCaseOnWorker(worker, c, dir / "inductor-cache", timeout);
  ReleaseRun run{.torch_version = worker.Ready().value("torch_version", ""),
                 .status = std::string(outcome.Status())};
  if (outcome.finding) {
    run.signature = corpus::Signature(*outcome.finding);
    run.anchors = corpus::ReleaseAnchors(*outcome.finding);
    run.summary = support::FirstLine(outcome.finding->summary);
  } else if (outcome.status == corpus::CaseStatus::kInvalidCase) {
    run.summary =
        support::FirstLine(outcome.result.value("exception", json::object()).value("message", ""));
  }
  run.config_absent = outcome.result.value("config_absent", std::vector<std::string>{});
  run.kernels = CapturedKernels(outcome.result);
  const auto phases = outcome.result.value("phases", json::object());
  run.seconds = phases.value("eager_seconds", 0.0) + phases.value("compiled_seconds", 0.0);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored); // a generated TU per case adds up over 200 cases
  return run;
}

// Runs every case on one release, in order, on one warm worker that this thread starts and
// owns: a worker is killed when the thread that started it ends (PR_SET_PDEATHSIG). Stops
// between cases when the comparison is abandoned (the other release failed to start).
void RunSide(std::stop_token stop, const support::TorchEnvironment &environment,
             const std::string &side, const std::vector<ReleaseCase> &cases,
             const ReleaseCompareOptions &options, std::vector<std::promise<ReleaseRun>> &runs) {
  std::size_t next = 0;
  try {
    fuzzer::worker::Worker worker(
        fuzzer::worker::WorkerOptions{.worker_executable = options.worker_executable,
                                      .venv = environment.venv,
                                      .confine = options.confine_workers,
                                      .scratch_dir = options.scratch / side / "worker",
                                      .log_file = options.scratch / side / "worker.log",
                                      .write_roots = {options.scratch}});
    worker.Ready(); // an environment that cannot run the worker fails before any case
    for (; next < cases.size() && !stop.stop_requested(); ++next)
      runs[next].set_value(RunOn(worker, cases[next].c,
                                 options.scratch / "cases" / fmt::format("{:04}", next) / side,
                                 options.case_timeout));
  } catch (...) {
    for (; next < cases.size(); ++next)
      runs[next].set_exception(std::current_exception());
  }
}

} // namespace

std::vector<ReleaseComparison>
CompareReleases(const std::vector<ReleaseCase> &cases, const ReleaseCompareOptions &options,
                const std::function<void(std::size_t, const ReleaseComparison &)> &progress) {
  std::vector<std::promise<ReleaseRun>> baseline_runs(cases.size()), candidate_runs(cases.size());
  std::vector<std::future<ReleaseRun>> baseline, candidate;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    baseline.push_back(baseline_runs[i].get_future());
    candidate.push_back(candidate_runs[i].get_future());
  }
  // The two releases side by side, each on its own core.
  std::jthread baseline_side(RunSide, std::cref(options.baseline), "baseline", std::cref(cases),
                             std::cref(options), std::ref(baseline_runs));
  std::jthread candidate_side(RunSide, std::cref(options.candidate), "candidate", std::cref(cases),
                              std::cref(options), std::ref(candidate_runs));
  std::vector<ReleaseComparison> comparisons;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    ReleaseComparison comparison{.case_name = cases[i].c.name,
                                 .origin = cases[i].origin,
                                 .baseline = baseline[i].get(),
                                 .candidate = candidate[i].get()};
    comparison.verdict = ClassifyReleases(comparison.baseline, comparison.candidate);
    comparison.codegen =
        fuzzer::matrix::CompareCodegen(comparison.baseline.kernels, comparison.candidate.kernels);
    if (progress)
      progress(i, comparison);
    comparisons.push_back(std::move(comparison));
  }
  return comparisons;
}

json ReleaseComparisonToJson(const ReleaseComparison &comparison) {
  auto side = [](const ReleaseRun &run) {
    json kernels = json::array();
    for (const auto &kernel : run.kernels)
      kernels.push_back({{"name", kernel.name},
                         {"fingerprint", kernel.fingerprint},
                         {"declarations", kernel.declarations}});
    return json{{"torch_version", run.torch_version},
                {"status", run.status},
                {"signature", run.signature},
                {"summary", run.summary},
                {"config_absent", run.config_absent},
                {"seconds", run.seconds},
                {"kernels", kernels}};
  };
  const auto &codegen = comparison.codegen;
  return {{"case", comparison.case_name},
          {"origin", comparison.origin},
          {"verdict", ReleaseVerdictName(comparison.verdict)},
          {"baseline", side(comparison.baseline)},
          {"candidate", side(comparison.candidate)},
          {"codegen",
           {{"same", codegen.Same()},
            {"baseline_kernels", codegen.baseline_kernels},
            {"candidate_kernels", codegen.candidate_kernels},
            {"changed_kernels", codegen.changed_kernels},
            {"added_declarations", codegen.added_declarations},
            {"removed_declarations", codegen.removed_declarations}}}};
}

} // namespace workflows
