#include "workflows/fuzz.h"

#include "corpus/finding_store.h"
#include "fuzzer/campaign/campaign.h"
#include "fuzzer/campaign/corpus_merge.h"
#include "fuzzer/campaign/issue_draft.h"
#include "fuzzer/campaign/reports.h"
#include "fuzzer/campaign/shard_choice.h"
#include "fuzzer/generate/generator.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/interrupt.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/tool_paths.h"
#include "support/torch_environments.h"
#include "support/version.h"
#include "workflows/baseline_labels.h"
#include "workflows/delivery.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <optional>
#include <thread>

#include <unistd.h>

namespace workflows {
namespace {

std::map<std::uint64_t, std::string> ParseFaults(const std::string &text) {
  std::map<std::uint64_t, std::string> faults;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const auto colon = item.find(':');
    if (colon == std::string::npos)
      throw support::InputError(
          fmt::format("--inject-fault {} is not INDEX:segfault|hang|allocate|disk-full", item));
    faults[std::stoull(item.substr(0, colon))] = item.substr(colon + 1);
    start = end + 1;
  }
  return faults;
}

// The compilers asked for (each must answer, or it is an InputError), else the installed ones
// of the default matrix.
std::vector<fuzzer::matrix::Compiler> CampaignCompilers(const std::vector<std::string> &requested) {
  if (!requested.empty())
    return fuzzer::matrix::DiscoverCompilers(requested);
  std::vector<fuzzer::matrix::Compiler> found;
  for (const auto &name : kCampaignCompilers)
    if (support::FindOnPath(name))
      found.push_back(fuzzer::matrix::DescribeCompiler(name));
  return found;
}

std::string MatrixDescription(const fuzzer::campaign::CampaignOptions &options) {
  if (options.matrix.every == 0)
    return "no compiler matrix";
  if (options.matrix.compilers.empty())
    return fmt::format("no compiler matrix (none of {} is installed; see --compilers)",
                       fmt::join(kCampaignCompilers, ", "));
  std::vector<std::string> names;
  for (const auto &compiler : options.matrix.compilers)
    names.push_back(compiler.name);
  return fmt::format("compiler matrix {} on every {} case(s)", fmt::join(names, ","),
                     options.matrix.every);
}

// "{shard}" in a folder's name becomes the shard's name (2of8): with --shard auto every shard of
// one command line writes a corpus of its own.
std::filesystem::path WithShardName(const std::filesystem::path &path,
                                    const fuzzer::campaign::Shard &shard) {
  std::string text = path.string();
  for (auto at = text.find("{shard}"); at != std::string::npos; at = text.find("{shard}", at))
    text.replace(at, 7, shard.Name());
  return text;
}

// --start-from: the corpus of the night before, merged in first (idempotent: a requeued shard
// merges nothing new), so that its bugs are known, its queue feeds the mutations and its hits
// carry over.
void StartFrom(const std::filesystem::path &earlier, const std::filesystem::path &corpus,
               std::ostream &out) {
  if (!std::filesystem::is_directory(earlier / "findings"))
    throw support::InputError(fmt::format(
        "--start-from {}: not a corpus (no findings/ folder); give the merged corpus of the "
        "night before, or leave --start-from out on the first night",
        earlier.string()));
  const auto merged = fuzzer::campaign::MergeCorpora({earlier}, corpus);
  for (const auto &note : merged.notes)
    std::cerr << "fuzz: " << note << "\n";
  out << fmt::format("fuzz: started from {}: {} finding(s), {} hit(s) and {} queue entry(ies) "
                     "added, {} campaign journal(s)\n",
                     earlier.string(), merged.findings, merged.hits_added, merged.queue_added,
                     merged.journals);
  out.flush();
}

// The campaign's options from the command line's, and what the steps after the campaign need
// of them.
struct CampaignPlan {
  fuzzer::campaign::CampaignOptions campaign;
  workflows::ReduceWhich reduce_which = workflows::ReduceWhich::kNone;
  std::filesystem::path report_dir;
  bool terminal = false;    // stderr is a terminal: progress redraws one line
  std::string shard_source; // where the shard came from (--shard auto reads the engine's)
};

// Of several bad options, the first parsed here is the one reported: keep the order.
CampaignPlan PlanCampaign(const FuzzOptions &options, const support::ToolPaths &paths) {
  CampaignPlan plan;
  fuzzer::campaign::CampaignOptions &campaign_options = plan.campaign;
  if (options.time || !options.cases)
    campaign_options.time_limit = std::chrono::seconds(ParseDuration(options.time.value_or("5m")));
  campaign_options.cases = options.cases;
  campaign_options.jobs =
      options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  campaign_options.seed = options.seed;
  const auto shard = fuzzer::campaign::ChooseShard(options.shard, options.shard_count,
                                                   fuzzer::campaign::ProcessEnvironment());
  campaign_options.shard = shard.shard;
  plan.shard_source = shard.source;
  campaign_options.corpus =
      std::filesystem::absolute(WithShardName(options.corpus, campaign_options.shard));
  plan.report_dir = options.report_dir ? WithShardName(*options.report_dir, campaign_options.shard)
                                       : campaign_options.corpus / "report";
  if (options.report_dir)
    support::CheckOutputFolder(plan.report_dir, "--report");
  if (options.policy_file)
    campaign_options.generate.policy = fuzzer::generate::LoadPolicyFile(*options.policy_file);
  const auto known_issues_file =
      options.known_issues.value_or(paths.project_root / "corpus" / "known-issues.json");
  campaign_options.known_issues = corpus::ReadKnownIssues(known_issues_file);
  campaign_options.resume = options.resume;
  campaign_options.analysis.static_analysis = options.static_analysis;
  if (options.share_builds)
    campaign_options.run.shared_builds = support::UserCacheDir("builds");
  campaign_options.generate.feedback = options.feedback;
  campaign_options.matrix.every = options.matrix_every;
  if (options.matrix_every > 0)
    campaign_options.matrix.compilers = CampaignCompilers(options.compilers);
  campaign_options.run.case_timeout = std::chrono::seconds(options.case_timeout_seconds);
  campaign_options.run.recycle_after_cases = std::max(1u, options.recycle_after);
  campaign_options.run.worker_memory_limit = options.worker_memory_mib << 20;
  campaign_options.command_line = options.command_line;
  campaign_options.generate.fault_injection = ParseFaults(options.inject_fault);
  plan.reduce_which = workflows::ParseReduceWhich(options.reduce);
  if (plan.reduce_which != workflows::ReduceWhich::kNone)
    campaign_options.reserve_per_new_bug = std::chrono::seconds(options.reduce_timeout_seconds);
  if (!options.sanitize.empty())
    campaign_options.sanitizers.every_case =
        fuzzer::worker::ParseSanitizerOptions(options.sanitize, options.sanitize_compiler);
  if (!options.sanitize_crashes.empty())
    campaign_options.sanitizers.crashes =
        fuzzer::worker::ParseSanitizerOptions(options.sanitize_crashes, options.sanitize_compiler);
  campaign_options.probe = {.max_runs = options.probe_runs,
                            .budget = std::chrono::seconds(options.probe_seconds),
                            .run_timeout = campaign_options.run.case_timeout};
  plan.terminal = ::isatty(STDERR_FILENO);
  campaign_options.progress_interval =
      plan.terminal ? std::chrono::milliseconds(1000) : std::chrono::milliseconds(30000);
  return plan;
}

void PrintCampaignHeader(const FuzzOptions &options, const CampaignPlan &plan, std::ostream &out) {
  const auto &campaign_options = plan.campaign;
  if (options.shard == "auto")
    out << "fuzz: " << plan.shard_source << "\n";
  out << fmt::format(
      "fuzz: seed {}, shard {}/{}, {} job(s), {}, {}, corpus {}\n", options.seed,
      campaign_options.shard.index, campaign_options.shard.count, campaign_options.jobs,
      campaign_options.time_limit ? fmt::format("for {} s", campaign_options.time_limit->count())
                                  : fmt::format("{} case(s)", *options.cases),
      MatrixDescription(campaign_options), campaign_options.corpus.string());
  out.flush();
}

// On a terminal the progress line is redrawn in place; in a log each one is a line of its own.
fuzzer::campaign::ProgressLine ProgressPrinter(bool terminal) {
  return [terminal](const std::string &line, bool final) {
    if (terminal)
      std::cerr << "\r\033[K" << line << (final ? "\n" : "") << std::flush;
    else
      std::cerr << line << "\n" << std::flush;
  };
}

// The new bugs reduced, run standalone on each release and written up, within --time. An
// interrupted campaign reduces nothing: --resume picks the bugs up.
workflows::DeliveryReport
DeliverCampaignBugs(const FuzzOptions &options, const CampaignPlan &plan,
                    const fuzzer::campaign::CampaignStats &stats, const support::ToolPaths &paths,
                    std::chrono::steady_clock::time_point campaign_started,
                    const std::atomic<bool> &stop_requested,
                    const fuzzer::campaign::ProgressLine &progress, std::ostream &out) {
  const auto &campaign_options = plan.campaign;
  workflows::DeliveryReport delivered;
  const corpus::FindingStore store(campaign_options.corpus);
  const auto bugs =
      workflows::ChooseDeliveries(stats, store, plan.reduce_which, campaign_options.resume);
  if (!bugs.empty() && !stop_requested) {
    out << fmt::format("fuzz: reducing {} bug(s) (--reduce {}), at most {} s each\n", bugs.size(),
                       options.reduce, options.reduce_timeout_seconds);
    out.flush();
    std::optional<std::chrono::steady_clock::time_point> deadline;
    if (campaign_options.time_limit)
      deadline = campaign_started + *campaign_options.time_limit;
    delivered = workflows::DeliverBugs(
        {.corpus = campaign_options.corpus,
         // This very binary, whatever its name: `reduce` runs as its child.
         .tool_executable = std::filesystem::read_symlink("/proc/self/exe"),
         .jobs = campaign_options.jobs,
         .per_bug = std::chrono::seconds(options.reduce_timeout_seconds),
         .case_timeout =
             std::min(campaign_options.run.case_timeout,
                      std::chrono::seconds(support::options::ReductionCaseTimeout::Default())),
         .command_line = options.command_line},
        bugs, paths, deadline, stop_requested,
        [&](const std::string &line) { progress(line, true); });
  } else if (!bugs.empty())
    out << fmt::format("fuzz: interrupted: {} bug(s) left to reduce; --resume reduces them\n",
                       bugs.size());
  return delivered;
}

// Finding id -> its label against the baseline torch ("regression since", "also in").
std::map<std::string, std::string> LabelFindingsAgainstBaseline(
    const corpus::FindingStore &store, const fuzzer::campaign::CampaignStats &stats,
    const support::TorchEnvironment &baseline, const support::ToolPaths &paths,
    std::chrono::seconds case_timeout, std::ostream &out) {
  std::map<std::string, std::string> labels;
  std::vector<std::string> ids;
  for (const auto &[id, event] : stats.signatures)
    ids.push_back(id);
  out << fmt::format("fuzz: running {} finding(s) on the baseline torch {}\n", ids.size(),
                     baseline.torch_version);
  out.flush();
  const support::ScratchDir scratch("fuzz-baseline");
  for (const auto &label :
       workflows::LabelAgainstBaseline(store, ids, baseline, paths, case_timeout, scratch.path()))
    labels[label.finding_id] = label.label;
  return labels;
}

// Returns the folder the reports went to: the summary line names it.
std::filesystem::path WriteCampaignReports(const FuzzOptions &options, const CampaignPlan &plan,
                                           const fuzzer::campaign::CampaignStats &stats,
                                           const corpus::FindingStore &store) {
  const auto &campaign_options = plan.campaign;
  fuzzer::campaign::ReportInput input{
      .stats = stats,
      .findings = store.List(),
      .known_issues = campaign_options.known_issues,
      .new_signatures = fuzzer::campaign::NewBugSignatures(stats),
      .provenance = {{"tool_version", support::ToolVersion()},
                     {"torch_version", ""},
                     {"command_line", options.command_line},
                     {"seed", options.seed},
                     {"shard", campaign_options.shard.Name()},
                     {"generator_version", fuzzer::generate::kGeneratorVersion},
                     {"policy_sha256", campaign_options.generate.policy.Sha256()}},
      .since = fuzzer::campaign::SinceCorpusBefore(stats)};
  for (const auto &finding : input.findings)
    for (const auto &hit : finding.hits)
      if (input.provenance["torch_version"] == "")
        input.provenance["torch_version"] = hit.provenance.value("torch_version", "");
  fuzzer::campaign::WriteReports(plan.report_dir, input);
  return plan.report_dir;
}

// One line per bug hit, with the signatures this campaign hit of it, then a line per delivery
// of it. Returns how many of the bugs are new.
std::uint64_t PrintBugs(const std::vector<fuzzer::campaign::CampaignBug> &bugs,
                        const fuzzer::campaign::CampaignStats &stats,
                        const std::map<std::string, std::string> &labels,
                        const workflows::DeliveryReport &delivered,
                        const std::filesystem::path &corpus, std::ostream &out) {
  std::uint64_t fresh = 0;
  for (const auto &bug : bugs) {
    fresh += bug.is_new;
    std::string here, labelled;
    for (const auto &id : bug.signatures)
      if (stats.signatures.contains(id)) {
        here += (here.empty() ? "" : ", ") + id;
        if (labels.contains(id))
          labelled += " [" + labels.at(id) + "]";
      }
    out << fmt::format("  {:<5} {} {} ({}){}{}\n", bug.is_new ? "NEW" : "known", bug.id,
                       corpus::KindName(bug.kind), here,
                       bug.known_issue.empty() ? "" : " (known issue " + bug.known_issue + ")",
                       labelled);
    for (const auto &delivery : delivered.deliveries)
      if (std::find(bug.signatures.begin(), bug.signatures.end(), delivery.finding_id) !=
          bug.signatures.end())
        out << fmt::format("        {}: repro {} line(s), {} standalone{}; issue draft: {}\n",
                           corpus::DeliveryStatusName(delivery.status), delivery.repro_lines,
                           delivery.reproduces_standalone ? "fails" : "does NOT fail",
                           delivery.release_label.empty() ? "" : ", " + delivery.release_label,
                           fuzzer::campaign::WhyNoDraft(delivery).has_value()
                               ? "none (" + *fuzzer::campaign::WhyNoDraft(delivery) + ")"
                               : (corpus / "findings" / delivery.finding_id / "issue.md").string());
  }
  return fresh;
}

} // namespace

long ParseDuration(const std::string &text) {
  std::size_t used = 0;
  long value = 0;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception &) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  const long scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (used == 0 || scale == 0 || value <= 0)
    throw support::InputError(
        fmt::format("--time {} is not a duration; write e.g. 90s, 10m or 2h", text));
  return value * scale;
}

namespace {

// Why the command ran past --time, for its last line: "" when it did not (5 s of grace), else
// each part's share of the overrun (the cases in flight at the limit finishing, the reduction past
// its deadline, labelling against the baseline, writing the reports).
std::string Overrun(std::optional<std::chrono::seconds> time_limit,
                    const std::vector<std::pair<std::string, double>> &parts_ended_at) {
  if (!time_limit || parts_ended_at.empty())
    return "";
  const double limit = static_cast<double>(time_limit->count());
  const double over = parts_ended_at.back().second - limit;
  if (over <= 5)
    return "";
  std::string why;
  double previous = 0;
  for (const auto &[part, ended_at] : parts_ended_at) {
    const double past_limit = std::max(0.0, ended_at - std::max(previous, limit));
    if (past_limit >= 1)
      why += fmt::format("{}{} {:.0f} s", why.empty() ? "" : ", ", part, past_limit);
    previous = std::max(previous, ended_at);
  }
  return fmt::format("; {:.0f} s over --time {} s ({})", over, time_limit->count(), why);
}

} // namespace

int Fuzz(const FuzzOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  const auto command_started = std::chrono::steady_clock::now();
  const auto since_start = [&command_started] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - command_started)
        .count();
  };
  std::vector<std::pair<std::string, double>> ended_at; // for Overrun
  const CampaignPlan plan = PlanCampaign(options, paths);
  const auto &campaign_options = plan.campaign;
  PrintCampaignHeader(options, plan, out);
  if (options.start_from)
    StartFrom(*options.start_from, campaign_options.corpus, out);
  // Ctrl-C or SIGTERM: the campaign stops dispatching, writes its reports and delivers nothing
  // more; a second one ends it at once.
  std::optional<support::StopOnInterrupt> interrupt(std::in_place);
  const auto &stop_requested = interrupt->requested();
  const fuzzer::campaign::ProgressLine progress = ProgressPrinter(plan.terminal);
  // Resolved before the campaign: a missing baseline is a one-line error, not a late one.
  std::optional<support::TorchEnvironment> baseline;
  if (options.baseline_torch)
    baseline = support::ResolveTorchEnvironment(*options.baseline_torch, paths.project_root);
  // --time counts from the command's start: planning, the header and the baseline come off it.
  const auto campaign_started = command_started;
  auto run_options = campaign_options;
  if (run_options.time_limit)
    run_options.time_limit =
        std::max(std::chrono::seconds(1),
                 *run_options.time_limit - std::chrono::seconds(static_cast<long>(since_start())));
  auto stats = fuzzer::campaign::RunCampaign(run_options, paths, stop_requested, progress);
  ended_at.emplace_back("the cases in flight at the limit", since_start());
  const workflows::DeliveryReport delivered = DeliverCampaignBugs(
      options, plan, stats, paths, campaign_started, stop_requested, progress, out);
  ended_at.emplace_back("reduction", since_start());
  stats.reduction_seconds = delivered.seconds;
  stats.reduced_bugs = delivered.deliveries.size();
  interrupt.reset(); // from here a Ctrl-C ends the process, as before the campaign

  const corpus::FindingStore store(campaign_options.corpus);
  const auto labels = baseline
                          ? LabelFindingsAgainstBaseline(store, stats, *baseline, paths,
                                                         campaign_options.run.case_timeout, out)
                          : std::map<std::string, std::string>{};
  ended_at.emplace_back("baseline labels", since_start());
  const auto report_dir = WriteCampaignReports(options, plan, stats, store);
  ended_at.emplace_back("reports", since_start());
  const auto bugs = stats.Bugs();
  const std::uint64_t fresh =
      PrintBugs(bugs, stats, labels, delivered, campaign_options.corpus, out);
  out << fmt::format("fuzz: {} case(s){}, {} new bug(s), {} bug(s) from {} distinct signature(s); "
                     "{} reduced in {:.0f} s of {:.0f} s; reports in {}{}\n",
                     stats.cases, stats.interrupted ? " (interrupted)" : "", fresh, bugs.size(),
                     stats.signatures.size(), delivered.deliveries.size(), delivered.seconds,
                     since_start(), report_dir.string(),
                     Overrun(campaign_options.time_limit, ended_at));
  if (stats.interrupted)
    return support::kExitInterrupted; // the reports are written; a script must not take it as done
  return fresh ? support::kExitFindings : support::kExitNothingFound;
}

} // namespace workflows
