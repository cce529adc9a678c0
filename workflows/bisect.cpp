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

} // namespace

int Bisect(const BisectOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  const CaseInput input = ReadCaseOrFinding(options.input);
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

  const support::ScratchDir scratch("bisect");
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

  // The signature looked for: the one given, the finding's, else the newest release's failure.
  // A release that fails with another signature of the same bug (a reworded message) counts as
  // failing with it.
  std::string signature = !options.signature.empty() ? options.signature : input.signature;
  std::vector<std::string> anchors =
      options.signature.empty() ? input.anchors : std::vector<std::string>{};
  if (signature.empty())
    for (auto it = outcomes.rbegin(); it != outcomes.rend() && signature.empty(); ++it) {
      signature = it->signature;
      anchors = it->anchors;
    }

  const ReleaseOutcome *first_failing = nullptr;
  const ReleaseOutcome *last_passing = nullptr;
  json releases_json = json::array();
  for (const auto &outcome : outcomes) {
    std::string verdict;
    if (!signature.empty() && outcome.signature == signature) {
      verdict = "fails with the signature";
      if (!first_failing)
        first_failing = &outcome;
    } else if (!outcome.signature.empty() && corpus::ShareAnAnchor(outcome.anchors, anchors)) {
      verdict = "fails with the same bug: " + outcome.signature;
      if (!first_failing)
        first_failing = &outcome;
    } else if (!outcome.signature.empty()) {
      verdict = "fails differently: " + outcome.signature;
    } else if (outcome.status == "pass" || outcome.status == "expected") {
      verdict = "passes";
      if (!first_failing)
        last_passing = &outcome;
    } else {
      verdict = outcome.status;
    }
    out << fmt::format("  torch {:<14} {}\n", outcome.environment.torch_version, verdict);
    releases_json.push_back({{"torch", outcome.environment.torch_version},
                             {"venv", outcome.environment.venv.string()},
                             {"status", outcome.status},
                             {"signature", outcome.signature},
                             {"verdict", verdict}});
  }
  if (signature.empty())
    out << "no release fails: nothing to bisect\n";
  else
    out << fmt::format("signature: {}\nfirst release failing with it: {}\nlast release passing "
                       "before it: {}\n",
                       signature, first_failing ? first_failing->environment.torch_version : "none",
                       last_passing ? last_passing->environment.torch_version
                                    : "none of those installed");
  if (options.json_out)
    support::WriteFileAtomically(
        *options.json_out,
        json{{"case", input.c.name},
             {"signature", signature},
             {"first_failing",
              first_failing ? json(first_failing->environment.torch_version) : json(nullptr)},
             {"last_passing",
              last_passing ? json(last_passing->environment.torch_version) : json(nullptr)},
             {"releases", releases_json},
             {"tool_version", support::ToolVersion()}}
            .dump(2));
  return first_failing ? support::kExitFindings : support::kExitNothingFound;
}

} // namespace workflows
