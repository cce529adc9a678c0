#include "workflows/bisect.h"

#include "corpus/bug_key.h"

#include "corpus/finding.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"
#include "support/errors.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/torch_environments.h"
#include "support/version.h"
#include "workflows/case_input.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fmt/ranges.h>
#include <iostream>
#include <ranges>

namespace workflows {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ReleaseOutcome {
  support::TorchEnvironment environment;
  std::string status;
  std::string signature;
  std::vector<std::string> anchors; // its bug's, across releases
};

// The releases to run, oldest first, each version once: a bisection needs two at least.
std::vector<support::TorchEnvironment> ReleasesToBisect(const BisectOptions &options,
                                                        const support::ToolPaths &paths) {
  std::vector<support::TorchEnvironment> releases;
  if (options.torch.empty())
    releases = support::FindTorchEnvironments(paths.project_root);
  else
    for (const auto &spec : options.torch)
      releases.push_back(support::ResolveTorchEnvironment(spec, paths.project_root));
  std::ranges::stable_sort(releases, [](const auto &a, const auto &b) {
    return support::TorchVersionLess(a.torch_version, b.torch_version);
  });
  const auto same_release = [](const auto &a, const auto &b) {
    return a.torch_version == b.torch_version;
  };
  releases.erase(std::ranges::unique(releases, same_release).begin(), releases.end());
  if (releases.size() < 2)
    throw support::InputError(
        fmt::format("bisect needs two torch releases or more, {} {}; add one with scripts/setup "
                    "--with-torch VERSION",
                    releases.size(), options.torch.empty() ? "installed" : "given with --torch"));
  return releases;
}

// Each release gets a worker of its own and a fresh Inductor cache, so that no release reuses
// another's compiled kernels.
std::vector<ReleaseOutcome>
RunOnEachRelease(const CaseInput &input, const std::vector<support::TorchEnvironment> &releases,
                 const BisectOptions &options, const support::ToolPaths &paths,
                 const support::ScratchDir &scratch, std::ostream &out) {
  std::vector<ReleaseOutcome> outcomes;
  out << fmt::format("bisect {} over torch {}\n", input.c.name,
                     fmt::join(releases | std::views::transform([](const auto &release) {
                                 return release.torch_version;
                               }),
                               ", "));
  for (const auto &release : releases) {
    const fs::path dir = scratch / release.torch_version;
    fuzzer::worker::Worker worker(
        fuzzer::worker::WorkerOptions{.worker_executable = paths.worker_executable,
                                      .venv = release.venv,
                                      .confine = paths.confine_workers,
                                      .scratch_dir = dir / "worker",
                                      .log_file = dir / "worker.log"});
    const auto outcome =
        fuzzer::worker::RunCaseOnWorker(worker, input.c, dir / "inductor-cache",
                                        std::chrono::seconds(options.case_timeout_seconds));
    worker.Shutdown();
    outcomes.push_back(
        {release, std::string(outcome.Status()),
         outcome.finding ? corpus::Signature(*outcome.finding) : "",
         outcome.finding ? corpus::ReleaseAnchors(*outcome.finding) : std::vector<std::string>{}});
    std::cerr << fmt::format("bisect: torch {}: {}\n", release.torch_version,
                             outcomes.back().signature.empty() ? outcomes.back().status
                                                               : outcomes.back().signature);
  }
  return outcomes;
}

struct SoughtBug {
  std::string signature; // empty: no release fails
  std::vector<std::string> anchors;
};

// The signature looked for: the one given, the finding's, else the newest release's failure.
// A release that fails with another signature of the same bug (a reworded message) counts as
// failing with it.
SoughtBug ChooseSoughtBug(const BisectOptions &options, const CaseInput &input,
                          const std::vector<ReleaseOutcome> &outcomes) {
  SoughtBug sought{.signature = !options.signature.empty() ? options.signature : input.signature,
                   .anchors =
                       options.signature.empty() ? input.anchors : std::vector<std::string>{}};
  if (sought.signature.empty())
    for (auto it = outcomes.rbegin(); it != outcomes.rend() && sought.signature.empty(); ++it) {
      sought.signature = it->signature;
      sought.anchors = it->anchors;
    }
  return sought;
}

// Points into the outcomes judged.
struct BisectVerdict {
  const ReleaseOutcome *first_failing = nullptr;
  const ReleaseOutcome *last_passing = nullptr; // before the first failing one
  json releases_json = json::array();
};

// Prints each release's verdict, oldest first, and finds where the bug came in.
BisectVerdict JudgeReleases(const std::vector<ReleaseOutcome> &outcomes, const SoughtBug &sought,
                            std::ostream &out) {
  BisectVerdict result;
  for (const auto &outcome : outcomes) {
    std::string verdict;
    if (!sought.signature.empty() && outcome.signature == sought.signature) {
      verdict = "fails with the signature";
      if (!result.first_failing)
        result.first_failing = &outcome;
    } else if (!outcome.signature.empty() &&
               corpus::ShareAnAnchor(outcome.anchors, sought.anchors)) {
      verdict = "fails with the same bug: " + outcome.signature;
      if (!result.first_failing)
        result.first_failing = &outcome;
    } else if (!outcome.signature.empty()) {
      verdict = "fails differently: " + outcome.signature;
    } else if (outcome.status == "pass" || outcome.status == "expected") {
      verdict = "passes";
      if (!result.first_failing)
        result.last_passing = &outcome;
    } else {
      verdict = outcome.status;
    }
    out << fmt::format("  torch {:<14} {}\n", outcome.environment.torch_version, verdict);
    result.releases_json.push_back({{"torch", outcome.environment.torch_version},
                                    {"venv", outcome.environment.venv.string()},
                                    {"status", outcome.status},
                                    {"signature", outcome.signature},
                                    {"verdict", verdict}});
  }
  return result;
}

void PrintConclusion(const std::string &signature, const BisectVerdict &verdict,
                     std::ostream &out) {
  if (signature.empty())
    out << "no release fails: nothing to bisect\n";
  else
    out << fmt::format("signature: {}\nfirst release failing with it: {}\nlast release passing "
                       "before it: {}\n",
                       signature,
                       verdict.first_failing ? verdict.first_failing->environment.torch_version
                                             : "none",
                       verdict.last_passing ? verdict.last_passing->environment.torch_version
                                            : "none of those installed");
}

void WriteBisectJson(const fs::path &path, const CaseInput &input, const std::string &signature,
                     const BisectVerdict &verdict) {
  support::WriteFileAtomically(
      path, json{{"case", input.c.name},
                 {"signature", signature},
                 {"first_failing", verdict.first_failing
                                       ? json(verdict.first_failing->environment.torch_version)
                                       : json(nullptr)},
                 {"last_passing", verdict.last_passing
                                      ? json(verdict.last_passing->environment.torch_version)
                                      : json(nullptr)},
                 {"releases", verdict.releases_json},
                 {"tool_version", support::ToolVersion()}}
                .dump(2));
}

} // namespace

int Bisect(const BisectOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  const CaseInput input = ReadCaseOrFinding(options.input);
  const auto releases = ReleasesToBisect(options, paths);
  const support::ScratchDir scratch("bisect");
  const auto outcomes = RunOnEachRelease(input, releases, options, paths, scratch, out);
  const SoughtBug sought = ChooseSoughtBug(options, input, outcomes);
  const BisectVerdict verdict = JudgeReleases(outcomes, sought, out);
  PrintConclusion(sought.signature, verdict, out);
  if (options.json_out)
    WriteBisectJson(*options.json_out, input, sought.signature, verdict);
  return verdict.first_failing ? support::kExitFindings : support::kExitNothingFound;
}

} // namespace workflows
