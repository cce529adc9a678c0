#include "fuzzer/cli/reduce_command.h"

#include "corpus/case.h"
#include "corpus/run_record.h"
#include "fuzzer/cli/case_input.h"
#include "fuzzer/cli/run_case_command.h"
#include "fuzzer/support/errors.h"
#include "fuzzer/support/scratch_dir.h"
#include "fuzzer/support/text_file.h"
#include "fuzzer/support/torch_environments.h"
#include "fuzzer/support/version.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "reducers/case/case_reducer.h"
#include "reducers/case/minimal_repro.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <iostream>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace fuzzer::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Set by SIGINT/SIGTERM: the reducer stops and the best case so far stays on disk.
std::atomic<bool> reduce_stop_requested{false};

extern "C" void RequestReduceStop(int signal_number) {
  reduce_stop_requested = true;
  std::signal(signal_number, SIG_DFL);
}

std::size_t Lines(const std::string &text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// A failure that lives in one TU (a compile error, a static finding): after the case, the
// source is reduced too.
bool IsSourceFailure(const std::string &signature) {
  return signature.starts_with("compile-error|") ||
         signature.starts_with("conflicting-declaration|") ||
         signature.starts_with("analysis-error|");
}

// The reduced case runs once more under capture; the TU it fails on goes to the source reducer
// (its compile command's first error, or our analysis when it compiles).
int ReduceFailingSource(const ReduceOptions &options, const fs::path &out_dir,
                        const std::string &signature, const support::ToolPaths &paths,
                        std::ostream &out) {
  const fs::path run_dir = out_dir / "reduced-run";
  fs::remove_all(run_dir);
  RunCaseCommand({.case_file = out_dir / "case.json",
                  .out_dir = run_dir,
                  .timeout = std::chrono::seconds(options.case_timeout_seconds),
                  .command_line = options.command_line},
                 paths, out);
  const auto commands = corpus::ReadCommandsFile(run_dir / "commands.json");
  const bool compile_error = signature.starts_with("compile-error|");
  for (const auto &command : commands) {
    if (command.sources.size() != 1 || (compile_error && command.exit_code == 0))
      continue;
    ReduceOptions source = options;
    source.input.clear();
    source.cpp_file = command.sources.front().stored;
    source.compile_command = command.argv;
    for (auto &word : source.compile_command)
      if (word == command.sources.front().captured_path)
        word = command.sources.front().stored.string();
    source.out_dir = out_dir / "source";
    try {
      return ReduceSourceCommand(source, paths, out);
    } catch (const support::InputError &error) {
      if (compile_error)
        throw;
      out << fmt::format("reduce: {}: {}\n", command.sources.front().stored.filename().string(),
                         error.what()); // not the TU with the finding: the next one
    }
  }
  out << "reduce: no captured TU of the reduced case fails on its own; the source is not reduced\n";
  return support::kExitFindings;
}

} // namespace

int ReduceCommand(const ReduceOptions &options, const support::ToolPaths &paths,
                  std::ostream &out) {
  const CaseInput input = ReadCaseOrFinding(options.input);
  const fs::path default_out =
      input.finding_folder
          ? *input.finding_folder / "reduced"
          : fs::path(fmt::format("reduced-{}", input.c.name.empty() ? "case" : input.c.name));
  const fs::path out_dir = fs::absolute(options.out_dir.value_or(default_out));
  const fs::path python = paths.venv / "bin" / "python";
  const reducers::PassContext context{.python = python,
                                      .mask_ast_script =
                                          paths.project_root / "reducers" / "case" / "mask_ast.py"};
  support::ScratchDir scratch("reduce");
  reducers::CaseReduceOptions reduce{
      .jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency()),
      .confirm = options.confirm,
      .case_timeout = std::chrono::seconds(options.case_timeout_seconds),
      .passes = reducers::LoadCasePassOrder(
          options.passes_file.value_or(paths.project_root / "reducers" / "case" / "passes.json")),
      .signature = input.signature,
      .scratch = scratch.path()};
  // A memory error is only seen sanitized; other failures may be reduced sanitized on request.
  if (!options.sanitize.empty() || input.signature.starts_with("memory-error|"))
    reduce.sanitizer = worker::ParseSanitizerOptions(options.sanitize.empty() ? "address,undefined"
                                                                              : options.sanitize,
                                                     options.sanitize_compiler);
  const std::string prelude =
      reduce.sanitizer ? worker::SanitizedReproPrelude(*reduce.sanitizer) : "";
  // A crash finding reduced sanitized: what the sanitizer reports of the untouched case is the
  // signature to keep, not the stored crash's (the heap corruption it caused).
  const bool sanitizing_a_crash = reduce.sanitizer && !reduce.signature.empty() &&
                                  !reduce.signature.starts_with("memory-error|");
  if (sanitizing_a_crash)
    reduce.signature.clear();
  std::optional<support::TorchEnvironment> baseline;
  if (options.baseline_torch) {
    baseline = support::ResolveTorchEnvironment(*options.baseline_torch, paths.project_root);
    reduce.baseline_venv = baseline->venv;
  }
  fs::create_directories(out_dir);
  corpus::SaveCaseFile(out_dir / "original-case.json", input.c);
  out << fmt::format("reduce: {} with {} worker(s); best case so far in {}\n",
                     options.input.string(), reduce.jobs, (out_dir / "case.json").string());
  if (sanitizing_a_crash)
    out << fmt::format("reduce: sanitized, so the signature kept is the sanitizer's report on the "
                       "untouched case, not the finding's {}\n",
                       input.signature);
  out.flush();

  const bool terminal = ::isatty(STDERR_FILENO);
  reducers::ReduceCallbacks callbacks{.progress =
                                          [terminal](const std::string &line) {
                                            if (terminal)
                                              std::cerr << "\r\033[K" << line.substr(0, 160)
                                                        << std::flush;
                                            else
                                              std::cerr << line << "\n";
                                          },
                                      .improved =
                                          [&](const reducers::CaseReduction &best) {
                                            auto reduced = best.reduced;
                                            reduced.provenance["reduced_from"] = input.c.name;
                                            corpus::SaveCaseFile(out_dir / "case.json", reduced);
                                          }};
  reduce_stop_requested = false;
  std::signal(SIGINT, RequestReduceStop);
  std::signal(SIGTERM, RequestReduceStop);
  const auto reduction =
      reducers::ReduceCase(input.c, reduce, context, paths, reduce_stop_requested, callbacks);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (terminal)
    std::cerr << "\n";
  callbacks.improved(reduction);

  // The script: the minimal configuration if it reproduces alone, else the complete one.
  std::string script;
  reducers::StandaloneRun standalone;
  // A regression's script says which release passes and which fails, and is run on both.
  const std::string releases_note =
      baseline
          ? fmt::format("# Regression: passes on torch {} ({}), fails as above on torch {} "
                        "({}).\n",
                        baseline->torch_version, baseline->venv.filename().string(),
                        support::InstalledTorchVersion(paths.venv), paths.venv.filename().string())
          : "";
  for (const auto config : {reducers::ReproConfig::kMinimal, reducers::ReproConfig::kComplete}) {
    script = reducers::EmitMinimalRepro(reduction.reduced, reduction.signature, config, prelude);
    script.insert(script.find('\n') + 1, releases_note);
    support::WriteFileAtomically(out_dir / "repro.py", script);
    standalone = reducers::RunStandalone(out_dir / "repro.py", python, reduction.signature,
                                         reduce.case_timeout, reduction.confirm_runs);
    if (standalone.reproduces)
      break;
  }
  reducers::StandaloneRun on_baseline;
  if (baseline)
    on_baseline = reducers::RunStandalone(out_dir / "repro.py", baseline->venv / "bin" / "python",
                                          reduction.signature, reduce.case_timeout);
  json report = {{"signature", reduction.signature},
                 {"confirm_runs", reduction.confirm_runs},
                 {"reproduced", reduction.reproduced},
                 {"steps", reduction.steps},
                 {"candidates_run", reduction.tried},
                 {"invalid_runs", reduction.invalid},
                 {"seconds", reduction.seconds},
                 {"nodes_before", reduction.nodes_before},
                 {"nodes_after", reduction.nodes_after},
                 {"volume_before", reducers::CaseVolume(reduction.original)},
                 {"volume_after", reducers::CaseVolume(reduction.reduced)},
                 {"accepted_passes", reduction.accepted_passes},
                 {"interrupted", reduction.interrupted},
                 {"repro_lines", Lines(script)},
                 {"repro_reproduces", standalone.reproduces},
                 {"repro_run", standalone.how},
                 {"repro_runs", standalone.runs},
                 {"tool_version", support::ToolVersion()},
                 {"command_line", options.command_line}};
  if (reduce.sanitizer)
    report["sanitizer"] = {{"checks", reduce.sanitizer->checks},
                           {"compiler", reduce.sanitizer->compiler},
                           {"flags", worker::SanitizerFlags(*reduce.sanitizer)}};
  if (baseline) {
    report["baseline_torch"] = baseline->torch_version;
    report["candidate_torch"] = support::InstalledTorchVersion(paths.venv);
    report["baseline_runs"] = reduction.baseline_runs;
    report["repro_passes_on_baseline"] = !on_baseline.reproduces;
    report["repro_run_on_baseline"] = on_baseline.how;
  }
  support::WriteFileAtomically(out_dir / "reduction.json", report.dump(2) + "\n");
  out << fmt::format("reduce: {} -> {} expression nodes, {} step(s), {} candidate(s) in {:.0f} "
                     "s{}; the untouched case failed {}/{} time(s)\n",
                     reduction.nodes_before, reduction.nodes_after, reduction.steps,
                     reduction.tried, reduction.seconds,
                     reduction.interrupted ? " (interrupted)" : "", reduction.reproduced,
                     reduction.confirm_runs);
  out << fmt::format("reduce: {} ({} lines): {} standalone ({}; run {} time(s))\n",
                     (out_dir / "repro.py").string(), Lines(script),
                     standalone.reproduces ? "fails the same way" : "DOES NOT reproduce",
                     standalone.how, standalone.runs);
  if (baseline)
    out << fmt::format("reduce: on the baseline torch {}: {} ({})\n", baseline->torch_version,
                       on_baseline.reproduces ? "FAILS TOO" : "passes", on_baseline.how);
  int status = standalone.reproduces && !on_baseline.reproduces ? support::kExitNothingFound
                                                                : support::kExitFindings;
  if (IsSourceFailure(reduction.signature) && !reduction.interrupted) {
    out << "reduce: the failure lives in a TU: reducing its source\n";
    status =
        std::max(status, ReduceFailingSource(options, out_dir, reduction.signature, paths, out));
  }
  return status;
}

} // namespace fuzzer::cli
