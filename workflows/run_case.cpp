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
#include "support/version.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>
#include <ostream>
#include <set>

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

} // namespace

int RunCase(const RunCaseOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  const bool from_module = options.case_file.extension() == ".py";
  if (!from_module && !(options.module.mask.empty() && options.module.score.empty()))
    throw support::InputError("--mask and --score name functions of a Python module; a case file "
                              "names its own");
  corpus::Case c = from_module ? corpus::Case{} : corpus::LoadCaseFile(options.case_file);
  // Read before the run, so that a broken file stops it at once.
  const corpus::KnownIssues known = std::filesystem::exists(options.known_issues)
                                        ? corpus::ReadKnownIssues(options.known_issues)
                                        : corpus::KnownIssues{};
  const auto out_dir = std::filesystem::absolute(options.out_dir);
  PrepareOutputFolder(out_dir);
  std::optional<fuzzer::worker::SanitizerOptions> sanitizer;
  if (!options.sanitize.empty())
    sanitizer = fuzzer::worker::ParseSanitizerOptions(options.sanitize, options.sanitize_compiler);
  std::filesystem::create_directories(out_dir);
  std::filesystem::remove_all(out_dir / "sanitizer");
  fuzzer::worker::Worker worker(fuzzer::worker::WorkerOptions{
      .worker_executable = paths.worker_executable,
      .venv = paths.venv,
      .scratch_dir = out_dir / "scratch",
      .log_file = out_dir / "worker.log",
      .environment = sanitizer
                         ? fuzzer::worker::SanitizerEnvironment(*sanitizer, out_dir / "sanitizer")
                         : std::map<std::string, std::string>{}});
  const json ready = worker.Ready();
  if (from_module) {
    MaskModuleOptions module = options.module;
    module.command_line = options.command_line;
    c = CaseFromMaskModule(worker, options.case_file, module, out);
  }
  ClearPreviousRun(out_dir);
  out << fmt::format("run-case {}: torch {}, worker pid {}\n", c.name,
                     ready.value("torch_version", "?"), ready.value("pid", 0));
  const auto started = std::chrono::steady_clock::now();
  fuzzer::worker::CaseOutcome outcome = fuzzer::worker::RunCaseOnWorker(
      worker, c, out_dir / "inductor-cache",
      std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout),
      {.record_dir = out_dir / "recordings"});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (sanitizer) {
    // The sanitizer stopped the worker at the first error: that error is the finding, whatever
    // the dying worker or the oracles said.
    if (auto errors =
            fuzzer::worker::CollectMemoryErrors(out_dir / "sanitizer", out_dir / "inductor-cache");
        !errors.empty()) {
      errors.front().subject = c.name;
      outcome.result["superseded"] = outcome.result.value("signature", "");
      outcome.status = corpus::CaseStatus::kFinding;
      outcome.finding = errors.front();
      outcome.result["status"] = corpus::StatusName(outcome.status);
      outcome.result["kind"] = corpus::KindName(outcome.finding->kind);
      outcome.result["signature"] = corpus::Signature(*outcome.finding);
      outcome.result["memory_errors"] = errors.size();
    }
  }
  std::vector<fuzzer::campaign::RevealedFailure> revealed;
  if (outcome.finding && fuzzer::campaign::IsProbedKind(outcome.finding->kind) &&
      options.probe_runs > 0) {
    out << fmt::format("  {}: probing what it needs (at most {} rerun(s))\n", c.name,
                       options.probe_runs);
    outcome.finding->detail["probe"] = fuzzer::campaign::ProbeFinding(
        c, *outcome.finding,
        [&](const corpus::Case &reverted, const std::string &label) {
          auto rerun = fuzzer::worker::RunCaseOnWorker(
              worker, reverted, out_dir / "probe" / label / "inductor-cache",
              std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout));
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
  json provenance = {{"tool_version", support::ToolVersion()},
                     {"torch_version", ready.value("torch_version", "")},
                     {"command_line", options.command_line},
                     {"case_provenance", c.provenance},
                     {"wall_seconds", seconds}};
  if (sanitizer)
    provenance["sanitizer"] = {{"checks", sanitizer->checks},
                               {"compiler", sanitizer->compiler},
                               {"flags", fuzzer::worker::SanitizerFlags(*sanitizer)}};
  corpus::WriteRunRecord(out_dir, c, {outcome.status, outcome.finding, outcome.result}, provenance);
  std::filesystem::remove_all(out_dir / "scratch");

  if (outcome.status == corpus::CaseStatus::kInvalidCase) {
    const json exception = outcome.result.value("exception", json::object());
    if (outcome.result.value("phase", "") == "contract")
      throw support::InputError(fmt::format(
          "{}: the case is broken, not a finding: it breaks an API contract (phase 'contract'): "
          "{}; fix the case (see {}/result.json and docs/contracts.md)",
          options.case_file.string(), exception.value("message", ""), out_dir.string()));
    throw support::InputError(fmt::format(
        "{}: the case is broken, not a finding: eager failed in phase '{}' with {}: {}; fix the "
        "case (see {}/result.json)",
        options.case_file.string(), outcome.result.value("phase", "?"),
        exception.value("type", "?"), exception.value("normalized_message", ""), out_dir.string()));
  }

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
  if (outcome.finding) {
    out << "  " << outcome.finding->summary << "\n";
    const std::string signature = corpus::Signature(*outcome.finding);
    const std::string key = corpus::BugKey(*outcome.finding);
    out << "  signature: " << signature << "\n";
    if (key != signature)
      out << "  bug key: " << key << "\n";
    const auto *issue = known.Match(signature, key);
    out << (issue ? fmt::format("  known issue: {} ({})\n", issue->id, issue->status)
                  : std::string("  known issue: none matches\n"));
  }
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
  return outcome.finding ? support::kExitFindings : support::kExitNothingFound;
}

} // namespace workflows
