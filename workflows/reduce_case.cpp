#include "workflows/reduce_case.h"
#include "workflows/reduce_matrix.h"

#include "corpus/case.h"
#include "corpus/finding_kinds.h"
#include "corpus/matrix_record.h"
#include "corpus/run_record.h"
#include "fuzzer/campaign/case_pipeline.h"
#include "fuzzer/matrix/build_cache.h"
#include "fuzzer/matrix/prefix_cache.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "fuzzer/worker/worker_python.h"
#include "reducers/case/case_reducer.h"
#include "reducers/case/minimal_repro.h"
#include "reducers/source/compile_probe.h"
#include "reducers/source/interestingness.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/interrupt.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/torch_environments.h"
#include "support/version.h"
#include "workflows/case_input.h"
#include "workflows/reduce_source.h"
#include "workflows/run_case.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <map>
#include <sstream>
#include <thread>
#include <utility>

#include <unistd.h>

namespace workflows {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::size_t Lines(const std::string &text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The reduced case runs once more under capture; the TU it fails on goes to the source reducer
// (its compile command's first error, or our analysis when it compiles).
int ReduceFailingSource(const ReduceOptions &options, const fs::path &out_dir,
                        corpus::FindingKind kind, const support::ToolPaths &paths,
                        std::ostream &out) {
  const fs::path run_dir = out_dir / "reduced-run";
  fs::remove_all(run_dir);
  RunCase({.case_file = out_dir / "case.json",
           .out_dir = run_dir,
           .timeout = std::chrono::seconds(options.case_timeout_seconds),
           .command_line = options.command_line},
          paths, out);
  const auto commands = corpus::ReadCommandsFile(run_dir / "commands.json");
  const bool compile_error = kind == corpus::FindingKind::kCompileError;
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
      return ReduceSource(source, paths, out);
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

// What a case's reduction runs with beyond its input: set up once and kept in place, since the
// matrix stage refers to its compilers and its build cache.
struct ReductionSetup {
  ReductionSetup() = default;
  ReductionSetup(const ReductionSetup &) = delete;
  ReductionSetup &operator=(const ReductionSetup &) = delete;

  std::string CompilerNames() const {
    std::string names;
    for (const auto &compiler : matrix_compilers)
      names += (names.empty() ? "" : ",") + compiler.name;
    return names;
  }

  reducers::CaseReduceOptions reduce;
  std::string prelude; // a sanitized repro's first lines
  bool sanitizing_a_crash = false;
  std::string sanitized_probe; // what the untouched case's sanitized run reported first
  std::string found_signature; // a crash's, when it reduces sanitized
  bool matrix_finding = false;
  std::vector<fuzzer::matrix::Compiler> matrix_compilers;
  std::optional<fuzzer::matrix::BuildCache> build_cache;
  std::optional<fuzzer::matrix::PrefixCache> prefix_cache;
  std::optional<support::TorchEnvironment> baseline;
};

// How the candidates run, as the finding's kind says (corpus::ReduceForm): a memory error only
// sanitized; a memory crash sanitized when a sanitized run of the untouched case reports a memory
// error (one run then decides each candidate, where the plain crash needs three and may still
// miss); anything on request (--sanitize CHECKS), or nothing sanitized (--sanitize none).
void SetUpSanitizer(const ReduceOptions &options, const CaseInput &input,
                    const support::ToolPaths &paths, ReductionSetup &setup, std::ostream &out) {
  auto &reduce = setup.reduce;
  const bool refused = options.sanitize == "none";
  // A case file has no kind yet (nor a signature): it reduces as it was found.
  const auto *row = input.kind ? &corpus::RowOf(*input.kind) : nullptr;
  const auto form = row && row->reduce_form
                        ? row->reduce_form(corpus::ExpectationOf(reduce.signature))
                        : corpus::ReduceForm::kAsFound;
  const auto checks = [&] {
    return fuzzer::worker::ParseSanitizerOptions(
        options.sanitize.empty() || refused ? "address,undefined" : options.sanitize,
        options.sanitize_compiler);
  };
  if (form == corpus::ReduceForm::kSanitized && refused)
    throw support::InputError(fmt::format("--sanitize none: a {} is seen only sanitized; leave "
                                          "--sanitize out or name the checks",
                                          corpus::KindName(*input.kind)));
  if (!refused && (!options.sanitize.empty() || form == corpus::ReduceForm::kSanitized))
    reduce.sanitizer = checks();
  if (!refused && !reduce.sanitizer && form == corpus::ReduceForm::kSanitizedWhenItReports) {
    const auto sanitizer = checks();
    out << fmt::format("reduce: a memory crash: running the untouched case once with {} to see "
                       "whether it reduces sanitized\n",
                       fmt::join(sanitizer.checks, ","));
    out.flush();
    const auto errors = fuzzer::worker::RerunWithSanitizers(
        input.c, sanitizer, paths, reduce.scratch / "sanitized-probe",
        std::chrono::duration_cast<std::chrono::milliseconds>(reduce.case_timeout));
    setup.sanitized_probe = errors.empty() ? "" : corpus::Signature(errors.front());
    if (errors.empty())
      out << "reduce: the sanitized run reports no memory error; the crash reduces as it was "
             "found\n";
    else
      reduce.sanitizer = sanitizer;
  }
  setup.prelude = reduce.sanitizer ? fuzzer::worker::SanitizedReproPrelude(*reduce.sanitizer) : "";
  // A crash finding reduced sanitized: what the sanitizer reports of the untouched case is the
  // signature to keep, not the stored crash's (the heap corruption it caused).
  setup.sanitizing_a_crash =
      reduce.sanitizer && input.kind && *input.kind != corpus::FindingKind::kMemoryError;
  if (setup.sanitizing_a_crash)
    setup.found_signature = std::exchange(reduce.signature, "");
}

// A matrix finding: each candidate's TUs are rebuilt on the finding's compilers, loaded and
// replayed, as the campaign and `replay` do, and the matrix's findings are its signature.
void SetUpMatrixStage(const ReduceOptions &options, const CaseInput &input, const fs::path &out_dir,
                      ReductionSetup &setup) {
  setup.matrix_finding = input.kind && fuzzer::campaign::IsMatrixKind(*input.kind);
  if (!options.compilers.empty() && !setup.matrix_finding)
    throw support::InputError(
        "--compilers with a finding's folder goes with a matrix finding (compiler-divergence, "
        "load-error, runtime-divergence); for a TU use reduce --cpp FILE --compilers A,B -- "
        "COMMAND");
  if (!setup.matrix_finding)
    return;
  setup.matrix_compilers =
      fuzzer::campaign::MatrixCompilersOf(options.compilers, input.smallest, input.id);
  // The corpus's own cache: the untouched case's builds are there from the campaign; the
  // prefixes are the machine's.
  const fs::path corpus = input.finding_folder->parent_path().parent_path();
  setup.build_cache.emplace(fuzzer::campaign::MatrixBuildsIn(corpus));
  setup.prefix_cache.emplace(fuzzer::campaign::SharedMatrixPrefixes());
  if (!options.compilers.empty())
    setup.reduce.signature.clear(); // other compilers: the untouched case's divergence is kept
  const corpus::FindingKind kind = *input.kind;
  const std::chrono::seconds timeout(options.case_timeout_seconds);
  setup.reduce.stage = [&setup, kind, timeout](
                           fuzzer::worker::Worker &worker, const corpus::Case &c,
                           const fuzzer::worker::CaseOutcome &outcome, const fs::path &case_dir) {
    std::vector<corpus::Finding> findings;
    if (!fuzzer::campaign::CapturedAnyBuild(outcome))
      return findings;
    const auto run = fuzzer::campaign::RunMatrixOnCase(
        worker, c, outcome, case_dir, setup.matrix_compilers,
        {.builds = &*setup.build_cache, .prefixes = &*setup.prefix_cache}, timeout, findings);
    corpus::WriteMatrixRecord(case_dir / "matrix.json", run.record);
    std::erase_if(findings, [kind](const corpus::Finding &f) { return f.kind != kind; });
    return findings;
  };
  setup.reduce.final_run_dir = out_dir / "reduced-run";
}

void AnnounceReduction(const ReduceOptions &options, const CaseInput &input,
                       const ReductionSetup &setup, const fs::path &out_dir, std::ostream &out) {
  out << fmt::format("reduce: {} with {} worker(s); best case so far in {}\n",
                     options.input.string(), setup.reduce.jobs, (out_dir / "case.json").string());
  if (setup.matrix_finding) {
    out << fmt::format("reduce: a {}: each candidate's TUs are rebuilt on {}, loaded and "
                       "replayed on its recorded calls (the compiler matrix)\n",
                       corpus::KindName(*input.kind), setup.CompilerNames());
    if (!options.compilers.empty())
      out << fmt::format("reduce: on --compilers, the signature kept is the untouched case's {} "
                         "on them, not the finding's {}\n",
                         corpus::KindName(*input.kind), input.signature);
  }
  if (setup.sanitizing_a_crash)
    out << fmt::format("reduce: sanitized, so the signature kept is the sanitizer's report on the "
                       "untouched case{}, not the finding's {}\n",
                       setup.sanitized_probe.empty() ? "" : " (" + setup.sanitized_probe + ")",
                       input.signature);
  out.flush();
}

// The reducer run with progress on stderr (one updated line on a terminal) and the best case so
// far saved as it improves. Ctrl-C or SIGTERM (delivery's time limit) stops it; the best case
// so far stays.
reducers::CaseReduction RunCaseReducer(const CaseInput &input, const ReductionSetup &setup,
                                       const support::ToolPaths &paths, const fs::path &out_dir) {
  const reducers::PassContext context{
      .python = paths.venv / "bin" / "python",
      .mask_ast_source =
          std::string(fuzzer::worker::WorkerModuleSource("inductor_fuzz_worker.mask_ast"))};
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
  const auto reduction = [&] {
    const support::StopOnInterrupt interrupt;
    return reducers::ReduceCase(input.c, setup.reduce, context, paths, interrupt.requested(),
                                callbacks);
  }();
  if (terminal)
    std::cerr << "\n";
  callbacks.improved(reduction);
  return reduction;
}

struct WrittenRepro {
  std::string script;
  reducers::StandaloneRun standalone;
  reducers::StandaloneRun on_baseline; // run only with a baseline torch
};

// repro.py: the minimal configuration if it reproduces alone, else the complete one. A
// regression's script says which release passes and which fails, and is run on both. A matrix
// finding's is the case as it runs, eager against compiled: it passes (the compilers disagree,
// not Inductor and eager); its repro.sh shows the divergence.
WrittenRepro WriteRepro(const reducers::CaseReduction &reduction, const ReductionSetup &setup,
                        const support::ToolPaths &paths, const fs::path &out_dir) {
  WrittenRepro repro;
  const fs::path script_path = out_dir / "repro.py";
  if (setup.matrix_finding) {
    repro.script =
        reducers::EmitMinimalRepro(reduction.reduced, reduction.kind, reduction.signature,
                                   reducers::ReproConfig::kComplete, setup.prelude);
    support::WriteFileAtomically(script_path, repro.script);
    repro.standalone.how = "not run: the divergence is between compilers (see repro.sh)";
    return repro;
  }
  const auto &baseline = setup.baseline;
  const std::string releases_note =
      baseline
          ? fmt::format("# Regression: passes on torch {} ({}), fails as above on torch {} "
                        "({}).\n",
                        baseline->torch_version, baseline->venv.filename().string(),
                        support::InstalledTorchVersion(paths.venv), paths.venv.filename().string())
          : "";
  for (const auto config : {reducers::ReproConfig::kMinimal, reducers::ReproConfig::kComplete}) {
    repro.script = reducers::EmitMinimalRepro(reduction.reduced, reduction.kind,
                                              reduction.signature, config, setup.prelude);
    repro.script.insert(repro.script.find('\n') + 1, releases_note);
    support::WriteFileAtomically(script_path, repro.script);
    repro.standalone = reducers::RunStandalone(script_path, paths.venv / "bin" / "python",
                                               reduction.kind, reduction.signature,
                                               setup.reduce.case_timeout, reduction.confirm_runs);
    if (repro.standalone.reproduces)
      break;
  }
  if (baseline)
    repro.on_baseline =
        reducers::RunStandalone(script_path, baseline->venv / "bin" / "python", reduction.kind,
                                reduction.signature, setup.reduce.case_timeout);
  return repro;
}

// reduction.json: what was reduced, how, and whether the script reproduces.
json ReductionReport(const reducers::CaseReduction &reduction, const ReductionSetup &setup,
                     const WrittenRepro &repro, const ReduceOptions &options,
                     const support::ToolPaths &paths) {
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
                 {"repro_lines", Lines(repro.script)},
                 {"repro_reproduces", repro.standalone.reproduces},
                 {"repro_run", repro.standalone.how},
                 {"repro_runs", repro.standalone.runs},
                 {"tool_version", support::ToolVersion()},
                 {"command_line", options.command_line}};
  if (const auto &sanitizer = setup.reduce.sanitizer)
    report["sanitizer"] = {{"checks", sanitizer->checks},
                           {"compiler", sanitizer->compiler},
                           {"flags", fuzzer::worker::SanitizerFlags(*sanitizer)}};
  if (setup.sanitizing_a_crash) // the finding's own signature, and why it reduced sanitized
    report["found_as"] = {{"signature", setup.found_signature},
                          {"sanitized_probe", setup.sanitized_probe}};
  if (setup.baseline) {
    report["baseline_torch"] = setup.baseline->torch_version;
    report["candidate_torch"] = support::InstalledTorchVersion(paths.venv);
    report["baseline_runs"] = reduction.baseline_runs;
    report["repro_passes_on_baseline"] = !repro.on_baseline.reproduces;
    report["repro_run_on_baseline"] = repro.on_baseline.how;
  }
  if (setup.matrix_finding) {
    report["matrix_compilers"] = setup.CompilerNames();
    report["repro_py"] = "the reduced case, eager against compiled (it passes: the compilers "
                         "disagree, not Inductor and eager)";
  }
  return report;
}

// --out is a new or empty folder, or one a reduction wrote (its original-case.json): reduce
// writes case.json and repro.py there, and must not take a user's own files for its own.
void RefuseForeignOutputFolder(const fs::path &out_dir) {
  if (!fs::exists(out_dir))
    return;
  if (!fs::is_directory(out_dir))
    throw support::InputError(
        fmt::format("--out {} exists and is not a folder; give a new folder", out_dir.string()));
  if (fs::exists(out_dir / "original-case.json"))
    return;
  for (const auto &entry : fs::directory_iterator(out_dir))
    throw support::InputError(
        fmt::format("--out {} holds {}, which no reduction wrote; give an empty or new folder",
                    out_dir.string(), entry.path().filename().string()));
}

} // namespace

int ReduceCase(const ReduceOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  const CaseInput input = ReadCaseOrFinding(options.input);
  const fs::path default_out =
      input.finding_folder
          ? *input.finding_folder / "reduced"
          : fs::path(fmt::format("reduced-{}", input.c.name.empty() ? "case" : input.c.name));
  const fs::path out_dir = fs::absolute(options.out_dir.value_or(default_out));
  RefuseForeignOutputFolder(out_dir);
  support::ScratchDir scratch("reduce");
  ReductionSetup setup;
  setup.reduce = {
      .jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency()),
      .confirm = options.confirm,
      .case_timeout = std::chrono::seconds(options.case_timeout_seconds),
      .passes = reducers::LoadCasePassOrder(
          options.passes_file.value_or(paths.project_root / "reducers" / "case" / "passes.json")),
      .signature = input.signature,
      .needs = input.needs,
      .scratch = scratch.path()};
  SetUpSanitizer(options, input, paths, setup, out);
  SetUpMatrixStage(options, input, out_dir, setup);
  if (options.baseline_torch) {
    setup.baseline = support::ResolveTorchEnvironment(*options.baseline_torch, paths.project_root);
    setup.reduce.baseline_venv = setup.baseline->venv;
  }
  fs::create_directories(out_dir);
  corpus::SaveCaseFile(out_dir / "original-case.json", input.c);
  AnnounceReduction(options, input, setup, out_dir, out);

  const auto reduction = RunCaseReducer(input, setup, paths, out_dir);
  const WrittenRepro repro = WriteRepro(reduction, setup, paths, out_dir);
  json report = ReductionReport(reduction, setup, repro, options, paths);
  if (!setup.matrix_finding)
    support::WriteFileAtomically(out_dir / "reduction.json", report.dump(2) + "\n");
  out << fmt::format("reduce: {} -> {} expression nodes, {} step(s), {} candidate(s) in {:.0f} "
                     "s{}; the untouched case failed {}/{} time(s)\n",
                     reduction.nodes_before, reduction.nodes_after, reduction.steps,
                     reduction.tried, reduction.seconds,
                     reduction.interrupted ? " (interrupted)" : "", reduction.reproduced,
                     reduction.confirm_runs);
  if (setup.matrix_finding) {
    const int matrix_status =
        FinishMatrixReduction(options, out_dir, reduction, *input.kind, paths, report, out);
    support::WriteFileAtomically(out_dir / "reduction.json", report.dump(2) + "\n");
    std::error_code ignored; // the matrix's builds and precompiled prefixes: large, not needed
    fs::remove_all(out_dir / "reduced-run" / "matrix", ignored);
    return matrix_status;
  }
  out << fmt::format("reduce: {} ({} lines): {} standalone ({}; run {} time(s))\n",
                     (out_dir / "repro.py").string(), Lines(repro.script),
                     repro.standalone.reproduces ? "fails the same way" : "DOES NOT reproduce",
                     repro.standalone.how, repro.standalone.runs);
  if (setup.baseline)
    out << fmt::format("reduce: on the baseline torch {}: {} ({})\n", setup.baseline->torch_version,
                       repro.on_baseline.reproduces ? "FAILS TOO" : "passes",
                       repro.on_baseline.how);
  int status = repro.standalone.reproduces && !repro.on_baseline.reproduces
                   ? support::kExitNothingFound
                   : support::kExitFindings;
  // A failure that lives in one TU (a compile error, a static finding): after the case, the
  // source is reduced too.
  if (corpus::RowOf(reduction.kind).in_one_tu && !reduction.interrupted) {
    out << "reduce: the failure lives in a TU: reducing its source\n";
    status = std::max(status, ReduceFailingSource(options, out_dir, reduction.kind, paths, out));
  }
  return status;
}

std::vector<std::string> ReduceInChildCommandLine(const std::filesystem::path &tool,
                                                  const std::filesystem::path &venv,
                                                  const std::filesystem::path &input,
                                                  const std::filesystem::path &out, unsigned jobs,
                                                  std::chrono::seconds case_timeout) {
  std::vector<std::string> argv = {tool.string(),
                                   "reduce",
                                   input.string(),
                                   "--out",
                                   out.string(),
                                   "--jobs",
                                   std::to_string(std::max(1u, jobs)),
                                   "--case-timeout",
                                   std::to_string(case_timeout.count())};
  if (!venv.empty())
    argv.insert(argv.begin() + 1, {"--venv", venv.string()});
  return argv;
}

ReduceInput CheckReduceInputs(const ReduceOptions &options) {
  const int sources =
      !!options.cpp_file + !!options.from_log + !!options.script + !!options.matrix_record;
  if (sources + !options.input.empty() != 1)
    throw support::InputError("reduce takes one input: a case file or a finding's folder, "
                              "--cpp FILE, --from-log LOG, --script SCRIPT or "
                              "--matrix-record FILE");
  if (!options.tu.empty() && !options.matrix_record)
    throw support::InputError("--tu goes with --matrix-record FILE");
  if (!options.compile_command.empty() && !options.cpp_file)
    throw support::InputError("a command after `--` goes with reduce --cpp FILE");
  if (options.interesting && !options.cpp_file)
    throw support::InputError("--interesting goes with reduce --cpp FILE");
  if (!options.compilers.empty() &&
      (options.interesting || (!options.cpp_file && options.input.empty())))
    throw support::InputError(
        "--compilers goes with reduce --cpp FILE -- COMMAND (without --interesting), or with a "
        "matrix finding's folder");
  if (options.run_programs && (options.compilers.empty() || !options.cpp_file))
    throw support::InputError("--run goes with --compilers A,B and --cpp FILE: the compilers whose "
                              "programs print differently");
  return sources ? ReduceInput::kSource : ReduceInput::kCase;
}

} // namespace workflows
