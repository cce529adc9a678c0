#pragma once

#include "corpus/delivery.h"
#include "corpus/finding_store.h"
#include "fuzzer/campaign/campaign.h"
#include "support/shared_options.h"
#include "support/tool_paths.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace workflows {

// Which bugs a campaign reduces after its cases (`fuzz --reduce`).
enum class ReduceWhich { kNone, kNew, kAll };
ReduceWhich ParseReduceWhich(const std::string &text); // InputError unless new, all or none

struct DeliveryOptions {
  std::filesystem::path corpus;
  std::filesystem::path tool_executable; // inductor-fuzz: ReduceInChildCommandLine runs it
  unsigned jobs = 1;                     // the reducer's workers: the campaign's, now idle
  std::chrono::seconds per_bug{900};     // at most this much reduction per bug
  std::chrono::seconds case_timeout{support::options::ReductionCaseTimeout::Default()};
  // Every torch environment of the project (support::FindTorchEnvironments) runs the reduced
  // repro, oldest first.
  bool over_releases = true;
  std::string command_line;
};

// One bug to deliver: the signature of it that is reduced (the worker's own failure before a
// static or matrix one, since that is what a person reproduces; then the smallest case).
struct BugToDeliver {
  std::string bug_id;
  std::string finding_id;
  std::string signature;
  // The stored finding's kind. Its reduction may keep another kind's signature (a crash's
  // memory error, seen sanitized), but a matrix finding's stays the matrix's and no other
  // becomes one, which is all the delivery asks of the kind (WhyNoDraft, DeliveryIsDone).
  corpus::FindingKind kind = corpus::FindingKind::kException;
};

// A delivery of a finding of `kind` that needs no other try: its repro fails standalone, or no
// try can change that (a compiler divergence's repro.py never fails, the untouched case no
// longer fails). A repro that did not fail standalone, or a reduction that could not run, is
// tried again by the next delivery (a later night, fuzz --resume, reduce).
bool DeliveryIsDone(const corpus::Delivery &delivery, corpus::FindingKind kind);

// The bugs of a campaign to deliver: its new bugs (or all it hit), and with `resume` every
// stored delivery still pending (a campaign killed during its reductions). A bug already
// delivered is not delivered again.
std::vector<BugToDeliver> ChooseDeliveries(const fuzzer::campaign::CampaignStats &stats,
                                           const corpus::FindingStore &store, ReduceWhich which,
                                           bool resume);

// Reduces each bug with `inductor-fuzz reduce FINDING --out FINDING/reduced`, stopping it
// (SIGTERM: it keeps the best case so far and still writes repro.py) when its share of the time
// left runs out, runs the reduced repro standalone on each installed torch release, and writes
// delivery.json and issue.md beside the finding. Returns the deliveries in order and how long
// they took. `deadline` (none: only the per-bug limit) is the campaign's end.
struct DeliveryReport {
  std::vector<corpus::Delivery> deliveries;
  double seconds = 0;
};
DeliveryReport DeliverBugs(const DeliveryOptions &options, const std::vector<BugToDeliver> &bugs,
                           const support::ToolPaths &paths,
                           std::optional<std::chrono::steady_clock::time_point> deadline,
                           const std::atomic<bool> &stop,
                           const std::function<void(const std::string &)> &progress);

// Runs `repro` (a reduced repro.py) on the venv's torch and, with `over_releases`, every other
// installed release, oldest first: fills the delivery's releases, label and standalone run.
void RunReproOnReleases(const std::filesystem::path &repro, const support::ToolPaths &paths,
                        std::chrono::seconds timeout, bool over_releases,
                        const std::atomic<bool> &stop,
                        const std::function<void(const std::string &)> &progress,
                        corpus::Delivery &delivery);

// Torch, Python, the compiler Inductor uses, CPU and ISA, OS: what a PyTorch bug report's
// environment block needs, from the venv's python (python -m torch.utils.collect_env, trimmed).
nlohmann::json CollectEnvironment(const std::filesystem::path &python);

} // namespace workflows
