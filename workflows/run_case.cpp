#include "workflows/run_case.h"

#include "corpus/bug_key.h"
#include "corpus/case.h"
#include "corpus/known_issues.h"
#include "corpus/run_record.h"
#include "fuzzer/campaign/probe.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "fuzzer/worker/worker_client.h"
#include "support/text_file.h"
#include "support/tool_paths.h"
#include "support/version.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <utility>
#include <vector>

namespace workflows {
namespace {

using nlohmann::json;

// Files run-case writes; a folder holding anything else is not ours to overwrite.
const std::set<std::string> kOutputEntries = {
    "result.json", "case.json", "commands.json",  "sources",   "wrappers", "recordings",
    "worker.log",  "scratch",   "inductor-cache", "sanitizer", "probe"};

// The case's sidecars (case.NAME.bin), written next to case.json for its large tensors.
bool IsCaseSidecar(const std::string &name) {
  return name.starts_with("case.") && name.ends_with(".bin");
}

void PrepareOutputFolder(const std::filesystem::path &out_dir) {
  if (std::filesystem::exists(out_dir)) {
    if (!std::filesystem::is_directory(out_dir))
      throw support::InputError(
          fmt::format("--out {} exists and is not a folder", out_dir.string()));
    for (const auto &entry : std::filesystem::directory_iterator(out_dir)) {
      const auto name = entry.path().filename().string();
      if (!kOutputEntries.contains(name) && !IsCaseSidecar(name) && !name.starts_with("."))
        throw support::InputError(fmt::format("--out {} holds {}, which run-case did not write; "
                                              "choose an empty or new folder",
                                              out_dir.string(), name));
    }
  }
}

void ClearPreviousRun(const std::filesystem::path &out_dir) {
  if (!std::filesystem::exists(out_dir))
    return;
  for (const auto &name : kOutputEntries)
    if (name != "worker.log" && name != "scratch" && name != "sanitizer")
      std::filesystem::remove_all(out_dir / name);
  for (const auto &entry : std::filesystem::directory_iterator(out_dir))
    if (IsCaseSidecar(entry.path().filename().string()))
      std::filesystem::remove(entry.path());
}

// A case file names its own mask and score functions: only a Python module takes them from the
// command line. A module's case is only known once a worker has run it, so it starts empty.
// A case naming a torch op or dtype the installed release lacks, or a CPU capability this host
// has no vector ISA for: one line, before anything runs (the worker reads the sources).
void RefuseWhatThisMachineLacks(fuzzer::worker::Worker &worker, const corpus::Case &c,
                                const std::filesystem::path &case_file) {
  const auto reply = worker.Request({{"op", "check_case"}, {"case", corpus::CaseToJson(c)}},
                                    std::chrono::seconds(60));
  if (reply.status != fuzzer::worker::ReplyStatus::kOk || !reply.message.contains("problems") ||
      reply.message["problems"].empty())
    return; // a worker that cannot say leaves it to the run
  throw support::InputError(
      fmt::format("{}: {}", case_file.string(), reply.message["problems"][0].get<std::string>()));
}

corpus::Case LoadCaseUnlessModule(const RunCaseOptions &options, bool from_module) {
  if (!from_module && !(options.module.mask.empty() && options.module.score.empty()))
    throw support::InputError("--mask and --score name functions of a Python module; a case file "
                              "names its own");
  return from_module ? corpus::Case{} : corpus::LoadCaseFile(options.case_file);
}

corpus::KnownIssues ReadKnownIssuesIfPresent(const std::filesystem::path &file) {
  return std::filesystem::exists(file) ? corpus::ReadKnownIssues(file) : corpus::KnownIssues{};
}

// The worker's scratch and log live in the output folder, so that a failed run leaves its log
// where the user looks; under a sanitizer, its reports land there too.
fuzzer::worker::WorkerOptions
WorkerOptionsIn(const std::filesystem::path &out_dir, const support::ToolPaths &paths,
                const std::optional<fuzzer::worker::SanitizerOptions> &sanitizer) {
  return fuzzer::worker::WorkerOptions{
      .worker_executable = paths.worker_executable,
      .venv = paths.venv,
      .confine = paths.confine_workers,
      .scratch_dir = out_dir / "scratch",
      .log_file = out_dir / "worker.log",
      .environment = sanitizer
                         ? fuzzer::worker::SanitizerEnvironment(*sanitizer, out_dir / "sanitizer")
                         : std::map<std::string, std::string>{}};
}

// The sanitizer stopped the worker at the first error: that error is the finding, whatever the
// dying worker or the oracles said.
void SupersedeWithMemoryError(fuzzer::worker::CaseOutcome &outcome,
                              const std::filesystem::path &out_dir, const std::string &case_name) {
  auto errors =
      fuzzer::worker::CollectMemoryErrors(out_dir / "sanitizer", out_dir / "inductor-cache");
  if (errors.empty())
    return;
  errors.front().subject = case_name;
  outcome.result["superseded"] = outcome.result.value("signature", "");
  outcome.status = corpus::CaseStatus::kFinding;
  outcome.finding = errors.front();
  outcome.result["status"] = corpus::StatusName(outcome.status);
  outcome.result["kind"] = corpus::KindName(outcome.finding->kind);
  outcome.result["signature"] = corpus::Signature(*outcome.finding);
  outcome.result["memory_errors"] = errors.size();
}

// Compiler outputs by content (capture.py's BuildCache): Inductor's checks of the CPU are not
// built again in each run, nor a probe's kernels that its reverted setting did not change.
std::filesystem::path SharedBuilds() { return support::UserCacheDir("builds"); }

// Reruns the case with settings put back one at a time, to tell which of them the finding needs;
// the result goes into both the finding and result.json.
void ProbeWhatTheFindingNeeds(fuzzer::worker::Worker &worker, const corpus::Case &c,
                              const RunCaseOptions &options, const std::filesystem::path &out_dir,
                              fuzzer::worker::CaseOutcome &outcome, std::ostream &out) {
  std::vector<fuzzer::campaign::RevealedFailure> revealed;
  out << fmt::format("  {}: probing what it needs (at most {} rerun(s))\n", c.name,
                     options.probe_runs);
  outcome.finding->detail["probe"] = fuzzer::campaign::ProbeFinding(
      c, *outcome.finding,
      [&](const corpus::Case &reverted, const std::string &label) {
        auto rerun = fuzzer::worker::RunCaseOnWorker(
            worker, reverted, out_dir / "probe" / label / "inductor-cache",
            std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout),
            {.build_cache = SharedBuilds()});
        out << fmt::format("    {} put back: {}\n", label, rerun.Status());
        return rerun;
      },
      {.max_runs = options.probe_runs,
       .budget = std::chrono::seconds(options.probe_seconds),
       .run_timeout = options.timeout},
      &revealed);
  outcome.result["probe"] = outcome.finding->detail["probe"];
  if (!revealed.empty() && revealed.front().outcome.finding) {
    // The crash hid a failure of its own: its case is the rerun's, which shows it.
    const auto &first = revealed.front();
    const auto case_file = out_dir / "probe" / first.label / "case.json";
    corpus::SaveCaseFile(case_file, first.c);
    outcome.result["revealed"] = {{"setting_put_back", first.setting},
                                  {"signature", corpus::Signature(*first.outcome.finding)},
                                  {"key", corpus::BugKey(*first.outcome.finding)},
                                  {"case", case_file.string()}};
  }
}

// What result.json records about how the run came about, to tell runs apart later.
json RunProvenance(const RunCaseOptions &options, const json &ready, const corpus::Case &c,
                   double seconds,
                   const std::optional<fuzzer::worker::SanitizerOptions> &sanitizer) {
  json provenance = {{"tool_version", support::ToolVersion()},
                     {"torch_version", ready.value("torch_version", "")},
                     {"command_line", options.command_line},
                     {"case_provenance", c.provenance},
                     {"wall_seconds", seconds}};
  if (sanitizer)
    provenance["sanitizer"] = {{"checks", sanitizer->checks},
                               {"compiler", sanitizer->compiler},
                               {"flags", fuzzer::worker::SanitizerFlags(*sanitizer)}};
  return provenance;
}

// The case itself is at fault (eager failed, or it breaks an API contract), not torch: the
// user's error, not a finding. Thrown after result.json is written, which the message points to.
[[noreturn]] void ThrowBrokenCase(const RunCaseOptions &options,
                                  const fuzzer::worker::CaseOutcome &outcome,
                                  const std::filesystem::path &out_dir) {
  const json exception = outcome.result.value("exception", json::object());
  if (outcome.result.value("phase", "") == "confinement")
    throw support::InputError(fmt::format("{}: refused, not a finding: {}",
                                          options.case_file.string(),
                                          exception.value("message", "")));
  if (outcome.result.value("phase", "") == "contract")
    throw support::InputError(fmt::format(
        "{}: the case is broken, not a finding: it breaks an API contract (phase 'contract'): "
        "{}; fix the case (see {}/result.json and docs/contracts.md)",
        options.case_file.string(), exception.value("message", ""), out_dir.string()));
  throw support::InputError(fmt::format(
      "{}: the case is broken, not a finding: eager failed in phase '{}' with {}: {}; fix the "
      "case (see {}/result.json)",
      options.case_file.string(), outcome.result.value("phase", "?"), exception.value("type", "?"),
      exception.value("normalized_message", ""), out_dir.string()));
}

// The finding, and whether a known issue already names it, so that a user can tell at once
// whether there is anything to report.
void PrintFinding(const corpus::Finding &finding, const corpus::KnownIssues &known,
                  std::ostream &out) {
  out << "  " << finding.summary << "\n";
  const std::string signature = corpus::Signature(finding);
  const std::string key = corpus::BugKey(finding);
  out << "  signature: " << signature << "\n";
  if (key != signature)
    out << "  bug key: " << key << "\n";
  const auto *issue = known.Match(signature, key);
  out << (issue ? fmt::format("  known issue: {} ({})\n", issue->id, issue->status)
                : std::string("  known issue: none matches\n"));
}

void PrintResult(const fuzzer::worker::CaseOutcome &outcome, const corpus::KnownIssues &known,
                 double seconds, const std::filesystem::path &out_dir, std::ostream &out) {
  std::size_t builds = 0;
  std::set<std::string> compilers;
  if (outcome.result.contains("builds"))
    for (const auto &build : outcome.result["builds"]) {
      ++builds;
      compilers.insert(build["compiler"].value("version", "?"));
    }
  out << fmt::format("  result: {}{}\n", corpus::StatusName(outcome.status),
                     outcome.finding ? fmt::format(" ({})", corpus::KindName(outcome.finding->kind))
                                     : "");
  if (outcome.finding)
    PrintFinding(*outcome.finding, known, out);
  if (outcome.result.contains("revealed")) {
    const auto &shown = outcome.result["revealed"];
    const auto *issue = known.Match(shown.value("signature", ""), shown.value("key", ""));
    out << fmt::format("  the crash hid another failure, shown with {} put back: {}\n"
                       "    its case: {} (run-case it to probe it); known issue: {}\n",
                       shown.value("setting_put_back", ""), shown.value("signature", ""),
                       shown.value("case", ""), issue ? issue->id : "none matches");
  }
  out << fmt::format(
      "  captured {} compile command(s) with {}; {:.1f} s\n", builds,
      compilers.empty() ? "no compiler" : fmt::format("{}", fmt::join(compilers, ", ")), seconds);
  out << fmt::format("  wrote {}/result.json\n", out_dir.string());
}

// One case on the worker: run, memory errors under a sanitizer, the probe of a finding, and
// result.json with its sources in `folder`. Returns the outcome and its seconds.
std::pair<fuzzer::worker::CaseOutcome, double>
RunAndRecord(fuzzer::worker::Worker &worker, const json &ready, const corpus::Case &c,
             const RunCaseOptions &options, const std::filesystem::path &folder,
             const std::optional<fuzzer::worker::SanitizerOptions> &sanitizer, std::ostream &out) {
  const auto started = std::chrono::steady_clock::now();
  fuzzer::worker::CaseOutcome outcome = fuzzer::worker::RunCaseOnWorker(
      worker, c, folder / "inductor-cache",
      std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout),
      {.record_dir = folder / "recordings", .build_cache = SharedBuilds()});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (sanitizer)
    SupersedeWithMemoryError(outcome, folder, c.name);
  if (outcome.finding && fuzzer::campaign::IsProbedKind(outcome.finding->kind) &&
      options.probe_runs > 0)
    ProbeWhatTheFindingNeeds(worker, c, options, folder, outcome, out);
  const json provenance = RunProvenance(options, ready, c, seconds, sanitizer);
  corpus::WriteRunRecord(folder, c, {outcome.status, outcome.finding, outcome.result}, provenance);
  return {std::move(outcome), seconds};
}

// With several cases, each runs in OUT/NAME, NAME the case file's stem (made unique).
std::vector<std::filesystem::path> CaseFolders(const std::vector<std::filesystem::path> &files,
                                               const std::filesystem::path &out_dir) {
  std::vector<std::filesystem::path> folders;
  std::set<std::string> taken;
  for (const auto &file : files) {
    std::string name = file.stem().string();
    for (int n = 2; taken.contains(name) || kOutputEntries.contains(name); ++n)
      name = fmt::format("{}-{}", file.stem().string(), n);
    taken.insert(name);
    folders.push_back(out_dir / name);
  }
  return folders;
}

// The folder of a run of several cases holds the worker's log and scratch and a folder per
// case, each as run-case writes one; anything else is not ours to overwrite.
void PrepareFolderOfRuns(const std::filesystem::path &out_dir,
                         const std::vector<std::filesystem::path> &folders) {
  if (!std::filesystem::exists(out_dir))
    return;
  if (!std::filesystem::is_directory(out_dir))
    throw support::InputError(fmt::format("--out {} exists and is not a folder", out_dir.string()));
  for (const auto &entry : std::filesystem::directory_iterator(out_dir)) {
    const auto name = entry.path().filename().string();
    if (name == "worker.log" || name == "scratch" || name.starts_with("."))
      continue;
    if (!entry.is_directory())
      throw support::InputError(fmt::format("--out {} holds {}, which run-case did not write; "
                                            "choose an empty or new folder",
                                            out_dir.string(), name));
    PrepareOutputFolder(entry.path());
  }
  for (const auto &folder : folders)
    PrepareOutputFolder(folder);
}

} // namespace

int RunCase(const RunCaseOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  const bool from_module = options.case_file.extension() == ".py";
  corpus::Case c = LoadCaseUnlessModule(options, from_module);
  // Read before the run, so that a broken file stops it at once.
  const corpus::KnownIssues known = ReadKnownIssuesIfPresent(options.known_issues);
  const auto out_dir = std::filesystem::absolute(options.out_dir);
  PrepareOutputFolder(out_dir);
  std::optional<fuzzer::worker::SanitizerOptions> sanitizer;
  if (!options.sanitize.empty())
    sanitizer = fuzzer::worker::ParseSanitizerOptions(options.sanitize, options.sanitize_compiler);
  std::filesystem::create_directories(out_dir);
  std::filesystem::remove_all(out_dir / "sanitizer");
  fuzzer::worker::Worker worker(WorkerOptionsIn(out_dir, paths, sanitizer));
  const json ready = worker.Ready();
  if (from_module) {
    MaskModuleOptions module = options.module;
    module.command_line = options.command_line;
    c = CaseFromMaskModule(worker, options.case_file, module, out);
  }
  RefuseWhatThisMachineLacks(worker, c, options.case_file);
  ClearPreviousRun(out_dir);
  out << fmt::format("run-case {}: torch {}, worker pid {}\n", c.name,
                     ready.value("torch_version", "?"), ready.value("pid", 0));
  const auto [outcome, seconds] = RunAndRecord(worker, ready, c, options, out_dir, sanitizer, out);
  std::filesystem::remove_all(out_dir / "scratch");
  if (outcome.status == corpus::CaseStatus::kInvalidCase)
    ThrowBrokenCase(options, outcome, out_dir);
  PrintResult(outcome, known, seconds, out_dir, out);
  return outcome.finding ? support::kExitFindings : support::kExitNothingFound;
}

int RunCases(const RunCaseOptions &options, const std::vector<std::filesystem::path> &case_files,
             const support::ToolPaths &paths, std::ostream &out) {
  if (case_files.size() == 1) {
    RunCaseOptions one = options;
    one.case_file = case_files.front();
    return RunCase(one, paths, out);
  }
  if (!options.sanitize.empty())
    throw support::InputError("--sanitize runs one case at a time; give one case file");
  // Every file is read before anything runs: a broken one stops the run at once.
  std::vector<std::pair<std::filesystem::path, corpus::Case>> cases;
  for (const auto &file : case_files) {
    if (file.extension() == ".py")
      throw support::InputError(fmt::format(
          "{} is a Python module: a module of masks runs alone; give it as the only case",
          file.string()));
    cases.emplace_back(file, corpus::LoadCaseFile(file));
  }
  const corpus::KnownIssues known = ReadKnownIssuesIfPresent(options.known_issues);
  const auto out_dir = std::filesystem::absolute(options.out_dir);
  const auto folders = CaseFolders(case_files, out_dir);
  PrepareFolderOfRuns(out_dir, folders);
  std::filesystem::create_directories(out_dir);
  fuzzer::worker::Worker worker(WorkerOptionsIn(out_dir, paths, std::nullopt));
  const json ready = worker.Ready();
  out << fmt::format("run-case: {} cases on one worker (torch {}, pid {}), each in its folder "
                     "under {}\n",
                     cases.size(), ready.value("torch_version", "?"), ready.value("pid", 0),
                     out_dir.string());
  std::size_t findings = 0, unusable = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto &[file, c] = cases[i];
    RunCaseOptions one = options;
    one.case_file = file;
    out << fmt::format("run-case {} ({} of {}): {}\n", c.name, i + 1, cases.size(), file.string());
    try {
      RefuseWhatThisMachineLacks(worker, c, file);
      ClearPreviousRun(folders[i]);
      std::filesystem::create_directories(folders[i]);
      const auto [outcome, seconds] =
          RunAndRecord(worker, ready, c, one, folders[i], std::nullopt, out);
      if (outcome.status == corpus::CaseStatus::kInvalidCase)
        ThrowBrokenCase(one, outcome, folders[i]);
      PrintResult(outcome, known, seconds, folders[i], out);
      findings += outcome.finding ? 1 : 0;
    } catch (const support::InputError &error) {
      out << "  unusable: " << error.what() << "\n";
      ++unusable;
    }
  }
  std::filesystem::remove_all(out_dir / "scratch");
  out << fmt::format("run-case: {} case(s): {} pass, {} finding(s), {} unusable\n", cases.size(),
                     cases.size() - findings - unusable, findings, unusable);
  if (unusable)
    return support::kExitCannotRun;
  return findings ? support::kExitFindings : support::kExitNothingFound;
}

} // namespace workflows
