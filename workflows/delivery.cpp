#include "workflows/delivery.h"

#include "corpus/bug_key.h"
#include "corpus/bugs.h"
#include "corpus/finding_kinds.h"
#include "fuzzer/campaign/issue_draft.h"
#include "fuzzer/worker/standalone_run.h"
#include "fuzzer/worker/worker_python.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/text_file.h"
#include "support/torch_environments.h"
#include "support/version.h"
#include "workflows/reduce_case.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <map>

#include <signal.h>

namespace workflows {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The worker's own failures first (a person reproduces those with one script), the matrix's
// last: the kind's row says (corpus/finding_kinds.h).
int Preference(corpus::FindingKind kind) { return corpus::RowOf(kind).delivery_order; }

std::uint64_t SmallestCaseSize(const corpus::StoredFinding &finding) {
  std::uint64_t smallest = UINT64_MAX;
  for (const auto &hit : finding.hits)
    if (!finding.smallest.empty() && finding.smallest.filename() == hit.id)
      smallest = std::min(smallest, hit.case_size);
  return smallest;
}

std::string LastLine(const std::string &text) {
  std::string trimmed = text;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == '\r'))
    trimmed.pop_back();
  return trimmed.substr(trimmed.rfind('\n') == std::string::npos ? 0 : trimmed.rfind('\n') + 1);
}

// What the repro gives on one release.
corpus::ReleaseRun RunOnRelease(const fs::path &repro, const support::TorchEnvironment &env,
                                corpus::FindingKind kind, const std::string &signature,
                                std::chrono::seconds timeout,
                                fuzzer::worker::StandaloneRun *run_out = nullptr) {
  const auto run =
      fuzzer::worker::RunStandalone(repro, env.venv / "bin" / "python", kind, signature, timeout);
  if (run_out)
    *run_out = run;
  return {.torch = env.torch_version,
          .venv = env.venv.filename().string(),
          .result = run.reproduces ? "fails"
                    : run.passed   ? "passes"
                                   : "fails-differently",
          .how = run.how.substr(0, 300)};
}

class Deliverer {
public:
  Deliverer(const DeliveryOptions &options, const support::ToolPaths &paths,
            std::optional<Clock::time_point> deadline, const std::atomic<bool> &stop,
            const std::function<void(const std::string &)> &progress)
      : options_(options), paths_(paths), deadline_(deadline), stop_(stop), progress_(progress) {}

  corpus::Delivery Deliver(const BugToDeliver &bug, std::size_t bugs_left) {
    const fs::path folder = options_.corpus / "findings" / bug.finding_id;
    corpus::Delivery delivery{.bug = bug.bug_id,
                              .finding_id = bug.finding_id,
                              .signature = bug.signature,
                              .tool_version = support::ToolVersion(),
                              .command_line = options_.command_line,
                              .time = corpus::UtcNow()};
    corpus::WriteDelivery(folder, delivery); // pending: a killed campaign resumes it
    const auto started = Clock::now();
    Reduce(folder, Budget(bugs_left), delivery);
    delivery.reduce_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    const fs::path repro = folder / "reduced" / "repro.py";
    if (fs::exists(repro) && delivery.status != corpus::DeliveryStatus::kNotReproducible)
      RunReproOnReleases(repro, paths_, options_.case_timeout, options_.over_releases, stop_,
                         progress_, delivery);
    delivery.environment = Environment();
    delivery.time = corpus::UtcNow();
    corpus::WriteDelivery(folder, delivery);
    return delivery;
  }

  const json &Environment() {
    if (environment_.is_null())
      environment_ = CollectEnvironment(paths_.venv / "bin" / "python");
    return environment_;
  }

private:
  // This bug's share of what is left: the time to the deadline over the bugs still to do.
  std::chrono::seconds Budget(std::size_t bugs_left) const {
    auto budget = options_.per_bug;
    if (deadline_) {
      const auto left = std::chrono::duration_cast<std::chrono::seconds>(*deadline_ - Clock::now());
      budget =
          std::min(budget, std::max(std::chrono::seconds(60),
                                    left / static_cast<long>(std::max<std::size_t>(1, bugs_left))));
    }
    return budget;
  }

  void Reduce(const fs::path &folder, std::chrono::seconds budget, corpus::Delivery &delivery) {
    const fs::path out = folder / "reduced";
    // A reduction a killed campaign left behind goes on from its best case.
    const fs::path input = fs::exists(out / "case.json") && fs::exists(out / "original-case.json")
                               ? out / "case.json"
                               : folder;
    const auto argv = ReduceInChildCommandLine(options_.tool_executable, paths_.venv, input, out,
                                               options_.jobs, options_.case_timeout);
    progress_(fmt::format("fuzz: reducing {} ({}) for at most {} s", delivery.bug,
                          delivery.finding_id, budget.count()));
    support::ChildProcess child(argv, {.kill_with_parent = true});
    const auto stop_at = Clock::now() + budget;
    bool asked_to_stop = false;
    std::optional<Clock::time_point> kill_at;
    std::string line, output;
    auto last_progress = Clock::now();
    while (true) {
      const auto status = child.ReadLine(line, std::chrono::milliseconds(500));
      if (status == support::ChildProcess::ReadStatus::kEndOfFile)
        break;
      if (status == support::ChildProcess::ReadStatus::kLine) {
        output += line + "\n";
        if (output.size() > (1u << 20))
          output.erase(0, output.size() - (1u << 19));
        if (line.starts_with("reduce:") ||
            Clock::now() - last_progress > std::chrono::seconds(30)) {
          progress_("  " + line.substr(0, 200));
          last_progress = Clock::now();
        }
      }
      if (!asked_to_stop && (Clock::now() >= stop_at || stop_.load())) {
        // The reducer keeps its best case and writes repro.py; its standalone run may take a case.
        ::kill(child.pid(), SIGTERM);
        asked_to_stop = true;
        kill_at = Clock::now() + std::min(options_.case_timeout, std::chrono::seconds(300)) +
                  std::chrono::seconds(30);
        progress_(fmt::format("fuzz: {}: the reduction's time is up; keeping its best case",
                              delivery.bug));
      }
      if (kill_at && Clock::now() >= *kill_at) {
        child.KillGroup();
        break;
      }
    }
    const auto exit = child.Wait();
    const fs::path record = out / "reduction.json";
    if (!fs::exists(record) && fs::exists(out / "repro.py") && fs::exists(out / "case.json")) {
      // The reducer ended before its record (killed past its grace, or it failed late): its
      // best case and script are there, and the releases' runs judge the script.
      delivery.status =
          asked_to_stop ? corpus::DeliveryStatus::kTimeout : corpus::DeliveryStatus::kFailed;
      const std::string script =
          support::ReadTextFile(out / "repro.py", "repro script", std::size_t{1} << 20);
      delivery.repro_lines =
          static_cast<std::size_t>(std::count(script.begin(), script.end(), '\n'));
      delivery.detail = fmt::format("the reducer ended without its record ({}); its best case "
                                    "and repro.py are kept",
                                    exit.Describe());
      return;
    }
    if (!fs::exists(record)) {
      const bool gone = output.find("does not fail") != std::string::npos ||
                        output.find("nothing to reduce") != std::string::npos;
      delivery.status =
          gone ? corpus::DeliveryStatus::kNotReproducible : corpus::DeliveryStatus::kFailed;
      delivery.detail = fmt::format(
          "{}reduce: {}: {}", asked_to_stop ? "stopped before the reducer wrote anything; " : "",
          exit.Describe(), LastLine(output).substr(0, 300));
      return;
    }
    json reduction;
    try {
      reduction = json::parse(support::ReadTextFile(record, "reduction record", 1 << 20));
    } catch (const std::exception &error) {
      delivery.status = corpus::DeliveryStatus::kFailed;
      delivery.detail = fmt::format("{} cannot be read: {}", record.string(), error.what());
      return;
    }
    delivery.repro_lines = reduction.value("repro_lines", std::size_t{0});
    delivery.reproduces_standalone = reduction.value("repro_reproduces", false);
    delivery.standalone_how = reduction.value("repro_run", "");
    delivery.signature = reduction.value("signature", delivery.signature);
    const bool interrupted = reduction.value("interrupted", false) || asked_to_stop;
    delivery.status =
        interrupted ? corpus::DeliveryStatus::kTimeout : corpus::DeliveryStatus::kReduced;
    if (interrupted)
      delivery.detail =
          fmt::format("stopped after {} s, the best case so far kept",
                      std::chrono::duration_cast<std::chrono::seconds>(budget).count());
  }

  const DeliveryOptions &options_;
  const support::ToolPaths &paths_;
  std::optional<Clock::time_point> deadline_;
  const std::atomic<bool> &stop_;
  const std::function<void(const std::string &)> &progress_;
  json environment_;
};

} // namespace

ReduceWhich ParseReduceWhich(const std::string &text) {
  if (text == "new")
    return ReduceWhich::kNew;
  if (text == "all")
    return ReduceWhich::kAll;
  if (text == "none")
    return ReduceWhich::kNone;
  throw support::InputError(
      fmt::format("--reduce {} is not one of new (the default), all, none", text));
}

bool DeliveryIsDone(const corpus::Delivery &delivery, corpus::FindingKind kind) {
  if (delivery.status == corpus::DeliveryStatus::kPending ||
      delivery.status == corpus::DeliveryStatus::kFailed)
    return false;
  if (delivery.status == corpus::DeliveryStatus::kNotReproducible)
    return true;
  if (corpus::ReductionUnfinished(delivery))
    return false;
  return delivery.reproduces_standalone ||
         corpus::RowOf(kind).detector == corpus::Detector::kMatrix;
}

std::vector<BugToDeliver> ChooseDeliveries(const fuzzer::campaign::CampaignStats &stats,
                                           const corpus::FindingStore &store, ReduceWhich which,
                                           bool resume) {
  std::vector<BugToDeliver> chosen;
  if (which == ReduceWhich::kNone)
    return chosen;
  const auto stored = store.List();
  std::map<std::string, const corpus::StoredFinding *> by_id;
  for (const auto &finding : stored)
    by_id[finding.id] = &finding;
  std::set<std::string> taken;
  for (const auto &bug : stats.Bugs()) {
    if (which == ReduceWhich::kNew && !bug.is_new)
      continue;
    const corpus::StoredFinding *best = nullptr;
    bool delivered = false;
    for (const auto &id : bug.signatures) {
      const auto found = by_id.find(id);
      if (found == by_id.end())
        continue;
      const auto &finding = *found->second;
      delivered = delivered ||
                  (finding.delivery && DeliveryIsDone(*finding.delivery, finding.finding.kind));
      if (finding.smallest.empty())
        continue;
      const auto rank = [](const corpus::StoredFinding &f) {
        return std::make_pair(Preference(f.finding.kind), SmallestCaseSize(f));
      };
      if (!best || rank(finding) < rank(*best))
        best = &finding;
    }
    if (best && !delivered && taken.insert(best->id).second)
      chosen.push_back({bug.id, best->id, best->signature, best->finding.kind});
  }
  if (resume)
    for (const auto &finding : stored)
      if (finding.delivery && finding.delivery->status == corpus::DeliveryStatus::kPending &&
          taken.insert(finding.id).second)
        chosen.push_back(
            {finding.delivery->bug, finding.id, finding.signature, finding.finding.kind});
  return chosen;
}

DeliveryReport DeliverBugs(const DeliveryOptions &options, const std::vector<BugToDeliver> &bugs,
                           const support::ToolPaths &paths,
                           std::optional<std::chrono::steady_clock::time_point> deadline,
                           const std::atomic<bool> &stop,
                           const std::function<void(const std::string &)> &progress) {
  DeliveryReport report;
  const auto started = Clock::now();
  Deliverer deliverer(options, paths, deadline, stop, progress);
  // Every bug is queued first, so that a campaign killed during the first reduction resumes all.
  for (const auto &bug : bugs) {
    const fs::path folder = options.corpus / "findings" / bug.finding_id;
    if (!corpus::ReadDelivery(folder))
      corpus::WriteDelivery(folder, {.bug = bug.bug_id,
                                     .finding_id = bug.finding_id,
                                     .signature = bug.signature,
                                     .tool_version = support::ToolVersion(),
                                     .command_line = options.command_line,
                                     .time = corpus::UtcNow()});
  }
  for (std::size_t i = 0; i < bugs.size() && !stop.load(); ++i) {
    progress(fmt::format("fuzz: delivering bug {}/{}: {}", i + 1, bugs.size(), bugs[i].bug_id));
    auto delivery = deliverer.Deliver(bugs[i], bugs.size() - i);
    const fs::path folder = options.corpus / "findings" / bugs[i].finding_id;
    try {
      // A draft only for a repro that fails on its own: a stale one goes, and the report says why.
      if (const auto why = fuzzer::campaign::WhyNoDraft(delivery, bugs[i].kind)) {
        fs::remove(folder / "issue.md");
        progress(fmt::format("fuzz: no issue draft for {}: {}", bugs[i].bug_id, *why));
      } else {
        const auto stored = corpus::FindingStore(options.corpus).Load(bugs[i].finding_id);
        support::WriteFileAtomically(folder / "issue.md",
                                     fuzzer::campaign::IssueDraft(stored, delivery));
      }
    } catch (const support::InputError &error) {
      progress(fmt::format("fuzz: no issue draft for {}: {}", bugs[i].bug_id, error.what()));
    }
    progress(fmt::format(
        "fuzz: {}: {}{}, repro {} line(s), {} standalone{}; {:.0f} s in reduction so far",
        delivery.bug, corpus::DeliveryStatusName(delivery.status),
        delivery.detail.empty() ? "" : " (" + delivery.detail + ")", delivery.repro_lines,
        delivery.reproduces_standalone ? "fails" : "does not fail",
        delivery.release_label.empty() ? "" : ", " + delivery.release_label,
        std::chrono::duration<double>(Clock::now() - started).count()));
    report.deliveries.push_back(std::move(delivery));
  }
  report.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return report;
}

void RunReproOnReleases(const fs::path &given_repro, const support::ToolPaths &paths,
                        std::chrono::seconds timeout, bool over_releases,
                        const std::atomic<bool> &stop,
                        const std::function<void(const std::string &)> &progress,
                        corpus::Delivery &delivery) {
  // The script runs from a scratch folder of its own: a path relative to ours (a relative
  // --corpus) would name another file there.
  const fs::path repro = fs::absolute(given_repro);
  // The reduced signature's kind (a crash's reduction may keep its memory error's signature),
  // read once from the delivery's record, which holds it as text.
  const auto *row = corpus::RowOfSignature(delivery.signature);
  if (!row)
    throw support::InputError(fmt::format(
        "the delivery of {} keeps a signature of no finding kind ({}): reduce the finding again "
        "(`inductor-fuzz reduce` on its folder)",
        delivery.finding_id, delivery.signature));
  std::vector<support::TorchEnvironment> environments = {
      {paths.venv, support::InstalledTorchVersion(paths.venv)}};
  if (over_releases)
    for (const auto &env : support::FindTorchEnvironments(paths.project_root))
      if (fs::weakly_canonical(env.venv) != fs::weakly_canonical(paths.venv))
        environments.push_back(env);
  std::ranges::stable_sort(environments, [](const auto &a, const auto &b) {
    return support::TorchVersionLess(a.torch_version, b.torch_version);
  });
  delivery.releases.clear();
  for (const auto &env : environments) {
    if (stop.load())
      break;
    fuzzer::worker::StandaloneRun run;
    auto result = RunOnRelease(repro, env, row->kind, delivery.signature, timeout, &run);
    if (env.venv == paths.venv) {
      delivery.reproduces_standalone = run.reproduces;
      delivery.standalone_how = run.how.substr(0, 300);
      delivery.standalone_output = run.output;
    }
    progress(fmt::format("{} on torch {}: {} ({})", repro.string(), env.torch_version,
                         result.result, result.how.substr(0, 120)));
    delivery.releases.push_back(std::move(result));
  }
  delivery.release_label =
      delivery.reproduces_standalone ? corpus::ReleaseLabel(delivery.releases) : "";
}

json CollectEnvironment(const fs::path &python) {
  // The package's environment module, run by that venv's python so that it describes it.
  const std::string script(fuzzer::worker::WorkerModuleSource("inductor_fuzz_worker.environment"));
  const auto run =
      support::RunCommand({python.string(), "-c", script}, {}, std::chrono::seconds(120));
  try {
    if (run.status.Succeeded())
      return json::parse(LastLine(run.output));
  } catch (const json::exception &) {
  }
  return {{"error", fmt::format("{}: {}", run.status.Describe(), LastLine(run.output))}};
}

} // namespace workflows
