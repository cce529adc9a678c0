#include "cli/cli.h"

#include "cli/bisect_command.h"
#include "cli/capture_command.h"
#include "cli/check_command.h"
#include "cli/compare_command.h"
#include "cli/compare_releases_command.h"
#include "cli/convert_command.h"
#include "cli/corpus_command.h"
#include "cli/doctor.h"
#include "cli/fuzz_command.h"
#include "cli/gen_command.h"
#include "cli/matrix_command.h"
#include "cli/reduce_command.h"
#include "cli/repro_command.h"
#include "cli/run_case_command.h"
#include "cli/subcommands.h"
#include "corpus/finding_store.h"
#include "corpus/known_issues.h"
#include "fuzzer/campaign/replay.h"
#include "fuzzer/worker/worker_client.h"
#include "support/text_file.h"
#include "support/torch_environments.h"
#include "support/version.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <map>

namespace cli {
namespace {

constexpr int kExitCannotRun = 2;

std::string JoinArguments(int argc, char **argv) {
  std::string joined;
  for (int i = 0; i < argc; ++i)
    joined += (i ? " " : "") + std::string(argv[i]);
  return joined;
}

} // namespace

int RunCommandLine(int argc, char **argv) {
  CLI::App app{"inductor-fuzz: fuzzes the C++ that PyTorch Inductor generates for flex-attention "
               "masks, captures every generated translation unit with its exact compile command, "
               "and reports what breaks.\n"
               "Exit codes: 0 nothing found, 1 findings, 2 the tool could not do what was asked."};
  app.set_version_flag("--version", support::ToolVersion());
  app.require_subcommand(1);
  std::optional<std::filesystem::path> venv;
  app.add_option("--venv", venv,
                 "Python virtual environment with torch (default: $INDUCTOR_FUZZ_VENV, else the "
                 "project's .venv)");
  std::optional<std::string> torch_release;
  app.add_option("--torch", torch_release,
                 "The torch release to run on, by version (2.14.1, or 2.14 when one matches): "
                 "the project's .venv or a .venv-torch-VERSION from scripts/setup --with-torch")
      ->excludes("--venv");

  FuzzOptions fuzz;
  auto *fuzz_command = AddFuzzCommand(app, fuzz);

  ReduceOptions reduce;
  auto *reduce_command = AddReduceCommand(app, reduce);

  CorpusOptions corpus_options;
  auto *corpus_command = app.add_subcommand(
      "corpus", "Look into a campaign's corpus: its bugs (each one cause, holding the signatures "
                "and detectors that saw it), merge shards' corpora, or migrate one an older "
                "inductor-fuzz wrote (opening it migrates it too).\n"
                "Example: inductor-fuzz corpus list --corpus fuzz-corpus\n"
                "Also: inductor-fuzz corpus show bug-1f2e; inductor-fuzz corpus issue bug-1f2e (a "
                "bug report in PyTorch's template, from what `fuzz --reduce` made of it; also a "
                "known issue's id); inductor-fuzz corpus list --signatures; "
                "inductor-fuzz corpus merge shard-0 shard-1 --into merged; inductor-fuzz corpus "
                "migrate --corpus old");
  corpus_command
      ->add_option("action", corpus_options.action, "list, show, issue, merge, report or migrate")
      ->required()
      ->check(CLI::IsMember({"list", "show", "issue", "merge", "report", "migrate"}));
  corpus_command->add_option("args", corpus_options.sources,
                             "show, issue: a bug id or a signature's finding id (or a prefix); "
                             "issue: also a known issue's id; merge: the corpora to merge");
  corpus_command->add_option("--out", corpus_options.out_file,
                             "issue: also write the draft to this file");
  corpus_command->add_flag("--signatures", corpus_options.signatures,
                           "list: one line per signature instead of per bug");
  corpus_command->add_option("--corpus", corpus_options.corpus, "The corpus to read")
      ->capture_default_str();
  corpus_command->add_option("--into", corpus_options.into, "merge: the corpus to merge into");
  corpus_command->add_flag("--json", corpus_options.json, "list: print JSON");
  corpus_command->add_option("--report", corpus_options.report_dir,
                             "report: write summary.json, junit.xml, findings.sarif and "
                             "report.html for the whole corpus here");
  corpus_command->add_option("--known-issues", corpus_options.known_issues,
                             "report: known issues (default: the project's)");

  fuzzer::campaign::ReplayOptions replay{.corpus = "fuzz-corpus"};
  long replay_timeout = 600;
  auto *replay_command = app.add_subcommand(
      "replay", "Fix verification: rerun every stored finding's smallest case on today's torch "
                "(static findings through `check`, matrix findings through the compiler matrix) "
                "and report it still-failing (same signature), fixed, or failing-differently. "
                "Exit 1 when any still fails or fails differently.\n"
                "Example: inductor-fuzz replay --corpus fuzz-corpus");
  replay_command->add_option("--corpus", replay.corpus, "The corpus to replay")
      ->capture_default_str();
  replay_command
      ->add_option("--compilers", replay.compilers,
                   "Rebuild matrix findings on these compilers, comma-separated (default: the "
                   "ones each finding's matrix used): fix verification after a compiler upgrade")
      ->delimiter(',');
  std::filesystem::path replay_known_issues;
  replay_command->add_option("--known-issues", replay_known_issues,
                             "Known issues to update: an issue whose bug no longer reproduces "
                             "on this torch becomes \"fixed-in VERSION\" (default: the "
                             "project's corpus/known-issues.json)");
  replay_command->add_option("--case-timeout", replay_timeout, "Seconds per case")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);

  RunCaseOptions run_case;
  long timeout_seconds = 600;
  auto *run_case_command = app.add_subcommand(
      "run-case",
      "Run one case file through a worker: torch.compile(create_block_mask) against "
      "eager, capturing every generated C++ source and its compile command.\n"
      "Example: inductor-fuzz run-case corpus/seeds/causal-151290.json --out out/causal");
  run_case_command
      ->add_option("case", run_case.case_file,
                   "Case file (JSON), or your own Python module of masks with --mask/--score")
      ->required();
  run_case_command
      ->add_option("--out", run_case.out_dir,
                   "Folder for result.json, commands.json, sources/, wrappers/ (created; a "
                   "previous run-case output there is replaced)")
      ->required();
  run_case_command->add_option("--timeout", timeout_seconds, "Seconds before the case is stopped")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  run_case_command->add_option(
      "--sanitize", run_case.sanitize,
      "address, undefined or both (comma-separated): Inductor's kernels are built with "
      "-fsanitize=... on top of their own flags and run with the runtime preloaded; the first "
      "error is a memory-error finding that names the kernel and the line");
  AddSanitizeCompilerOption(run_case_command, run_case.sanitize_compiler);
  AddProbeOptions(run_case_command, run_case.probe_runs, run_case.probe_seconds);
  run_case_command->add_option("--known-issues", run_case.known_issues,
                               "Known issues to match a finding against (default: the "
                               "project's corpus/known-issues.json)");

  // A user's own mask module: the same options for run-case MODULE.py and convert MODULE.py.
  auto add_module_options = [](CLI::App *command, MaskModuleOptions &module) {
    command->add_option("--mask", module.mask, "MODULE.py: the mask_mod to run, by name");
    command->add_option("--score", module.score, "MODULE.py: the score_mod to run, by name");
    command->add_option("--api", module.api,
                        "MODULE.py: create_block_mask, create_mask or flex_attention (default: "
                        "flex_attention with --score, else create_block_mask)");
    command->add_option("--shape", module.shape, "MODULE.py: B,H,Q_LEN,KV_LEN")
        ->delimiter(',')
        ->expected(4)
        ->capture_default_str();
    command->add_option("--block-size", module.block_size, "MODULE.py: BLOCK_SIZE")
        ->capture_default_str();
    command->add_option("--head-dim", module.head_dim, "MODULE.py: flex_attention's E and Ev")
        ->capture_default_str();
    command->add_option("--dtype", module.dtype, "MODULE.py: flex_attention's q/k/v dtype")
        ->check(CLI::IsMember({"float32", "bfloat16", "float16"}))
        ->capture_default_str();
    command->add_option("--name", module.name, "MODULE.py: the case's name");
    command->add_option("--kernel-options", module.kernel_options,
                        "MODULE.py: flex_attention's kernel_options, a JSON object "
                        "(e.g. '{\"PARTITION_SIZE\": 256}')");
    command
        ->add_option("--layout", module.layout,
                     "MODULE.py: how q/k/v are laid out in memory: bshd-transposed, sliced or "
                     "expanded-kv (default: contiguous)")
        ->check(CLI::IsMember(corpus::kLayouts));
    command->add_option("--knob", module.knobs,
                        "MODULE.py: NAME=VALUE, an Inductor knob of the knob table set instead of "
                        "left at Inductor's default (repeatable; e.g. cpp.min_chunk_size=64)");
  };
  add_module_options(run_case_command, run_case.module);

  ConvertOptions convert;
  auto *convert_command = app.add_subcommand(
      "convert",
      "Make a self-contained case file of your own mask module's functions: their source, the "
      "Python numbers they close over (as the case's constants) and the tensors they read (as "
      "its tensors, large ones in binary sidecars next to it). Anything that keeps the case "
      "from standing alone (an import of a package that is not torch or the standard library) "
      "is warned about. Every Inductor knob is left at Inductor's default. A case file given "
      "instead is stored again with large tensors in sidecars.\n"
      "Example: inductor-fuzz convert masks.py --mask sliding_window --shape 1,4,1024,1024 "
      "--out sliding.json\n"
      "Example: inductor-fuzz convert masks.py --mask causal --score softcap --out softcap.json");
  convert_command->add_option("input", convert.input, "A Python module, or a case file")
      ->required();
  convert_command->add_option("--out", convert.out_file, "The case file to write")->required();
  add_module_options(convert_command, convert.module);

  CaptureOptions capture;
  long capture_timeout = 3600;
  auto *capture_command = app.add_subcommand(
      "capture",
      "Run your own Python program (a model, a test, pytest) with every C++ compile Inductor "
      "runs captured and every kernel's calls recorded, into a folder that check, matrix and "
      "compare take, as they take run-case's. The program runs in the venv's python, its "
      "output shown and kept in DIR/output.log. Exit 0: the program exited 0; 1: it failed "
      "(what it compiled is stored all the same).\n"
      "Example: inductor-fuzz capture --out out/mine -- python train_step.py --steps 2\n"
      "Example: inductor-fuzz capture --out out/test -- python -m pytest test_attn.py -k causal");
  capture_command
      ->add_option("--out", capture.out_dir,
                   "Folder for capture.json, commands.json, sources/, wrappers/, recordings/ "
                   "(created; a previous capture there is replaced)")
      ->required();
  capture_command->add_option("--timeout", capture_timeout, "Seconds before the program is stopped")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);

  ReproOptions repro;
  long repro_timeout = 900;
  auto *repro_command = app.add_subcommand(
      "repro",
      "Write the standalone Python script of any case (hand-written, generated, converted, or "
      "a finding's): it prints the torch version and settings, runs eager and torch.compile "
      "with the tool's own oracles, and exits 1 on a difference. To stdout, or --out FILE; "
      "--run runs it with the venv's python (exit 1: it reproduces, 0: it passes).\n"
      "Example: inductor-fuzz repro corpus/seeds/causal-151290.json --out repro.py --run");
  repro_command
      ->add_option("input", repro.input,
                   "A case file, a run-case folder, or a corpus finding's folder")
      ->required();
  repro_command->add_option("--out", repro.out_file, "Write the script here");
  repro_command->add_flag("--run", repro.run, "Run the script with the venv's python");
  repro_command->add_option("--timeout", repro_timeout, "Seconds the script may run with --run")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);

  BisectOptions bisect;
  auto *bisect_command = app.add_subcommand(
      "bisect",
      "Which torch release introduced a failure: run a case (or a finding's smallest case) on "
      "each installed torch release, oldest first, and report the first release that fails "
      "with the signature and the last one that passes before it. The signature is the "
      "finding's, or --signature, or the newest release's failure. Exit 1: some release fails "
      "with it; 0: none does.\n"
      "Example: inductor-fuzz bisect corpus/findings/lowering-exception-simdlen1-fp32.json "
      "--torch 2.6.0,2.14.1,2.15.0");
  bisect_command->add_option("input", bisect.input, "A case file, or a finding's folder")
      ->required();
  bisect_command
      ->add_option("--torch", bisect.torch,
                   "Releases to run on, comma-separated versions or venv folders (default: every "
                   "one installed: .venv and each .venv-torch-VERSION)")
      ->delimiter(',');
  bisect_command->add_option("--signature", bisect.signature, "The failure to look for");
  bisect_command->add_option("--case-timeout", bisect.case_timeout_seconds, "Seconds per release")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  bisect_command->add_option("--json", bisect.json_out, "Write the result as JSON here");

  DoctorOptions doctor;
  auto *doctor_command = app.add_subcommand(
      "doctor", "Check torch, the worker, libtorch copies, the ABI flag and every compiler.\n"
                "Example: inductor-fuzz doctor --json");
  doctor_command->add_flag("--json", doctor.json, "Print the report as JSON");
  doctor_command->add_option("--compilers", doctor.compilers, "Compilers to check")
      ->delimiter(',')
      ->capture_default_str();

  GenOptions gen;
  auto *gen_command = app.add_subcommand(
      "gen", "Generate cases from a seed: mask and score functions, shapes, dtypes and Inductor "
             "settings. The same seed, tool version and policy give byte-identical cases.\n"
             "Example: inductor-fuzz gen --seed 7 --count 3 --python");
  gen_command->add_option("--seed", gen.seed, "First seed")->capture_default_str();
  gen_command->add_option("--count", gen.count, "Number of cases")->capture_default_str();
  gen_command->add_option("--policy", gen.policy_file,
                          "JSON file overriding weights and numbers of the default policy");
  gen_command->add_flag("--python", gen.python, "Print standalone Python scripts, not JSON lines");
  gen_command->add_flag("--stats", gen.stats,
                        "Print how often each operator, pattern, API, dtype and setting came up");
  gen_command->add_flag("--print-policy", gen.print_policy, "Print the policy in force as JSON");

  CheckOptions check;
  auto *check_command = app.add_subcommand(
      "check", "Analyse generated C++ with Clang for conflicting declarations: redeclarations "
               "in one scope (pytorch#151290), conflicting types, return types or linkage, "
               "macro redefinitions, and extern \"C\" mismatches across linked TUs. Flags come "
               "from --commands, else from the arguments after `--`, else torch's include "
               "paths.\nExample: inductor-fuzz check out/causal/sources/*.cpp --commands "
               "out/causal/commands.json --format sarif");
  check_command->add_option("files", check.files, "C++ translation units")->required();
  check_command->add_option("--commands", check.commands,
                            "commands.json from run-case: each file is parsed with its own flags");
  check_command->add_option("--format", check.format, "text, json or sarif (SARIF 2.1.0)")
      ->capture_default_str();
  check_command->add_flag("--linked", check.linked,
                          "The files are linked into one binary: compare extern \"C\" names");
  check_command->add_flag("!--no-shadowing", check.shadowing,
                          "Do not report inner declarations shadowing generated locals");
  check_command->add_flag("!--no-prefix-cache", check.prefix_cache,
                          "Parse every TU from scratch instead of reusing the precompiled prefix");
  check_command
      ->add_option("--compilers", check.compilers,
                   "Also build every file on these compilers and report "
                   "compiler-divergence (see `matrix`)")
      ->delimiter(',');
  check_command->add_flag("--features", check.features,
                          "Also list each file's codegen features: the at::vec calls and types, "
                          "loop shapes, pragmas, ATen and AOTI calls, buffer types it holds (what "
                          "`fuzz`'s feedback counts; in --format json always)");
  check_command->add_option("--cache-dir", check.cache_dir,
                            "Where precompiled prefixes are kept (default ~/.cache/inductor-fuzz)");

  MatrixCommandOptions matrix;
  auto *matrix_command = app.add_subcommand(
      "matrix", "Rebuild every captured TU on every compiler (g++-11/12, clang++-14/15/16/19 by "
                "default) as Inductor would, load each build against torch's libtorch, run each on "
                "the kernel calls run-case recorded, and report compiler-divergence, load-error "
                "and runtime-divergence findings.\n"
                "Example: inductor-fuzz matrix out/causal --compilers g++-12,clang++-16");
  matrix_command
      ->add_option("folders", matrix.inputs, "run-case output folders (or folders of them)")
      ->required();
  matrix_command->add_option("--compilers", matrix.compilers, "Compiler names or paths")
      ->delimiter(',');
  matrix_command->add_option("--jobs", matrix.jobs, "Builds at once")->capture_default_str();
  matrix_command->add_flag(
      "--no-kernel-probes{false}", matrix.kernel_probes,
      "Do not build cpp_wrapper TUs a second time with kernel probes (by default every kernel "
      "call inside such a module has its written buffers compared across compilers, not only "
      "the module's results)");
  matrix_command->add_option("--timeout", matrix.timeout_seconds, "Seconds per build")
      ->capture_default_str();
  matrix_command->add_option("--json", matrix.json_out, "Write the whole matrix as JSON here");
  matrix_command->add_option(
      "--sanitize", matrix.sanitize,
      "address, undefined or both: add a column that rebuilds every TU with -fsanitize=... "
      "-fno-omit-frame-pointer -g on top of Inductor's flags and replays its recorded calls in a "
      "worker with the sanitizer runtime preloaded; an error in the TU is a memory-error finding "
      "naming the kernel and the line");
  AddSanitizeCompilerOption(matrix_command, matrix.sanitize_compiler);

  CompareOptions compare;
  CompareReleasesOptions compare_releases;
  auto *compare_command = app.add_subcommand(
      "compare",
      "Two torch releases (--baseline-torch, --candidate-torch): run every case of the corpus, "
      "or --cases N generated from --seed, on both, one worker per release, and classify each "
      "(same, regressed, fixed, failing-differently, both-failing, not-comparable); compare the "
      "generated C++ kernel by kernel (kernel count, a fingerprint of each kernel with names "
      "normalised, the declarations each introduces), so that a codegen change shows even when "
      "both pass. Exit 1 on any regression.\n"
      "Example: inductor-fuzz compare --baseline-torch 2.14.1 --candidate-torch 2.15.0 --corpus "
      "corpus/seeds --cases 200 --report report/\n"
      "Two compilers (--baseline, --candidate): the compiler upgrade check. Replay every captured "
      "TU of the corpus on a baseline "
      "and a candidate compiler, run both builds on the recorded kernel calls, and classify "
      "each TU (same, regression, fixed, both-fail, load-regression, runtime-differs, "
      "new-warnings). Warnings are compared by diagnostic option and the function they are in, "
      "never by message text; those the known-warnings file explains are reported as known and "
      "do not change a verdict. Case files in the corpus are run first to capture their TUs and "
      "record their kernel calls. Exit 1 on any regression or runtime difference.\n"
      "Example: inductor-fuzz compare --baseline g++-12 --candidate clang++-16 "
      "--corpus corpus/seeds --report report/");
  compare_command->add_option("--baseline", compare.baseline, "The compiler in use");
  compare_command->add_option("--candidate", compare.candidate, "The compiler to move to");
  compare_command->add_option("--baseline-torch", compare_releases.baseline_torch,
                              "The torch release in use: a version (2.14.1) or a venv folder");
  compare_command->add_option("--candidate-torch", compare_releases.candidate_torch,
                              "The torch release to move to: a version or a venv folder");
  compare_command->add_option("--cases", compare_releases.cases,
                              "With --baseline-torch: also run N cases generated from --seed");
  compare_command->add_option("--seed", compare_releases.seed, "Seed of the generated cases")
      ->capture_default_str();
  compare_command
      ->add_option("--case-timeout", compare_releases.case_timeout_seconds,
                   "With --baseline-torch: seconds per case and release")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  compare_command->add_option("--corpus", compare.corpus,
                              "run-case outputs and/or case files (default: corpus/seeds)");
  compare_command->add_option("--report", compare.report_dir,
                              "Write compare.json, compare.junit.xml and compare.md here");
  compare_command->add_option("--jobs", compare.jobs, "Builds at once")->capture_default_str();
  compare_command
      ->add_option("--known-warnings", compare.known_warnings,
                   "Warnings that do not change a verdict, `COMPILERS OPTION FUNCTION -- WHY` a "
                   "line (default: the checked-in fuzzer/matrix/known_warnings.txt)")
      ->check(CLI::ExistingFile);
  compare_command->add_flag(
      "--no-kernel-probes{false}", compare.kernel_probes,
      "Do not build cpp_wrapper TUs a second time with kernel probes (by default every kernel "
      "call inside such a module has its written buffers compared across compilers, not only "
      "the module's results)");
  compare_command->add_flag("--show-known-warnings", compare.show_known_warnings,
                            "List the known warnings the candidate adds, with their reasons");

  // Everything after `--` is compile flags for check, not for the command line parser.
  int parsed_argc = argc;
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--") {
      check.compile_args.assign(argv + i + 1, argv + argc);
      capture.program = check.compile_args;
      reduce.compile_command = check.compile_args;
      parsed_argc = i;
      break;
    }

  try {
    app.parse(parsed_argc, argv);
  } catch (const CLI::CallForHelp &) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForVersion &) {
    std::cout << support::ToolVersion() << "\n";
    return 0;
  } catch (const CLI::ParseError &error) {
    std::cerr << "inductor-fuzz: " << error.what() << " (see inductor-fuzz --help)\n";
    return kExitCannotRun;
  }

  try {
    support::ToolPaths paths = support::LocateToolPaths(venv);
    if (torch_release)
      paths.venv = support::ResolveTorchEnvironment(*torch_release, paths.project_root).venv;
    if (*run_case_command) {
      run_case.timeout = std::chrono::seconds(timeout_seconds);
      if (run_case.known_issues.empty())
        run_case.known_issues = paths.project_root / "corpus" / "known-issues.json";
      run_case.command_line = JoinArguments(argc, argv);
      return RunCaseCommand(run_case, paths, std::cout);
    }
    if (*convert_command) {
      convert.module.command_line = JoinArguments(argc, argv);
      return ConvertCommand(convert, paths, std::cout);
    }
    if (*capture_command) {
      capture.timeout = std::chrono::seconds(capture_timeout);
      capture.command_line = JoinArguments(argc, argv);
      return CaptureCommand(capture, paths, std::cout);
    }
    if (*repro_command) {
      repro.timeout = std::chrono::seconds(repro_timeout);
      return ReproCommand(repro, paths, std::cout);
    }
    if (*fuzz_command) {
      fuzz.command_line = JoinArguments(argc, argv);
      return FuzzCommand(fuzz, paths, std::cout);
    }
    if (*reduce_command) {
      reduce.command_line = JoinArguments(argc, argv);
      if (CheckReduceInputs(reduce) == ReduceInput::kSource)
        return ReduceSourceCommand(reduce, paths, std::cout);
      return ReduceCommand(reduce, paths, std::cout);
    }
    if (*replay_command) {
      if (!std::filesystem::is_directory(replay.corpus / "findings"))
        throw support::InputError(fmt::format(
            "{} is not a corpus (no findings/ folder); pass the --corpus a campaign wrote",
            replay.corpus.string()));
      replay.case_timeout = std::chrono::seconds(replay_timeout);
      std::size_t failing = 0;
      const auto results = fuzzer::campaign::ReplayCorpus(replay, paths, [&](const auto &result) {
        failing += result.verdict == fuzzer::campaign::ReplayVerdict::kStillFailing ||
                   result.verdict == fuzzer::campaign::ReplayVerdict::kFailingDifferently;
        std::cout << fmt::format("{:<20} {} ({})  {}\n",
                                 fuzzer::campaign::ReplayVerdictName(result.verdict), result.id,
                                 result.bug, result.now);
      });
      // A bug still fails when any of its signatures' cases still fails the same way.
      std::map<std::string, bool> bugs;
      for (const auto &result : results)
        bugs[result.bug] =
            bugs[result.bug] || result.verdict == fuzzer::campaign::ReplayVerdict::kStillFailing;
      std::size_t bugs_failing = 0;
      for (const auto &[bug, still] : bugs) {
        bugs_failing += still;
        std::cout << fmt::format("bug {:<20} {}\n", still ? "still-failing" : "not-reproduced",
                                 bug);
      }
      std::cout << fmt::format("{} finding(s) of {} bug(s) replayed: {} bug(s) still failing, {} "
                               "finding(s) failing\n",
                               results.size(), bugs.size(), bugs_failing, failing);
      // Known issues whose bugs no longer reproduce on this torch are marked fixed in it.
      const auto known_file = replay_known_issues.empty()
                                  ? paths.project_root / "corpus" / "known-issues.json"
                                  : replay_known_issues;
      if (std::filesystem::exists(known_file)) {
        auto known = corpus::ReadKnownIssues(known_file);
        const std::string torch = support::InstalledTorchVersion(paths.venv);
        const auto fixed = fuzzer::campaign::MarkFixedKnownIssues(
            results, corpus::FindingStore(replay.corpus).List(), torch, known);
        if (!fixed.empty()) {
          corpus::WriteKnownIssues(known_file, known);
          for (const auto &id : fixed)
            std::cout << fmt::format("known issue {} is now fixed-in {} ({})\n", id, torch,
                                     known_file.string());
        }
      }
      return failing ? support::kExitFindings : support::kExitNothingFound;
    }
    if (*corpus_command) {
      if (corpus_options.action == "show") {
        if (corpus_options.sources.size() != 1)
          throw support::InputError("corpus show takes one bug id or finding id");
        corpus_options.id = corpus_options.sources.front().string();
      }
      if (corpus_options.known_issues.empty())
        corpus_options.known_issues = paths.project_root / "corpus" / "known-issues.json";
      if (corpus_options.action == "issue") {
        if (corpus_options.sources.size() != 1)
          throw support::InputError("corpus issue takes one bug id, finding id or known-issue id");
        corpus_options.id = corpus_options.sources.front().string();
        return CorpusIssueCommand(corpus_options, paths, std::cout);
      }
      return CorpusCommand(corpus_options, std::cout);
    }
    if (*gen_command) {
      gen.command_line = JoinArguments(argc, argv);
      return GenCommand(gen, std::cout);
    }
    if (*check_command)
      return CheckCommand(check, paths, std::cout);
    if (*matrix_command) {
      matrix.command_line = JoinArguments(argc, argv);
      return MatrixCommand(matrix, paths, std::cout);
    }
    if (*compare_command) {
      const bool compilers = !compare.baseline.empty() || !compare.candidate.empty();
      const bool releases =
          !compare_releases.baseline_torch.empty() || !compare_releases.candidate_torch.empty();
      if (compilers == releases)
        throw support::InputError(
            "compare takes two compilers (--baseline and --candidate) or two torch releases "
            "(--baseline-torch and --candidate-torch)");
      if (releases) {
        if (compare_releases.baseline_torch.empty() || compare_releases.candidate_torch.empty())
          throw support::InputError("compare needs both --baseline-torch and --candidate-torch");
        compare_releases.corpus = compare.corpus;
        compare_releases.report_dir = compare.report_dir;
        compare_releases.command_line = JoinArguments(argc, argv);
        if (compare_releases.corpus.empty() && !compare_releases.cases)
          compare_releases.corpus.push_back(paths.project_root / "corpus" / "seeds");
        return CompareReleasesCommand(compare_releases, paths, std::cout);
      }
      if (compare.baseline.empty() || compare.candidate.empty())
        throw support::InputError("compare needs both --baseline and --candidate");
      compare.command_line = JoinArguments(argc, argv);
      if (compare.corpus.empty())
        compare.corpus.push_back(paths.project_root / "corpus" / "seeds");
      return CompareCommand(compare, paths, std::cout);
    }
    if (*bisect_command)
      return BisectCommand(bisect, paths, std::cout);
    if (*doctor_command)
      return DoctorCommand(doctor, paths, std::cout);
  } catch (const support::InputError &error) {
    std::cerr << "inductor-fuzz: " << error.what() << "\n";
  } catch (const support::WorkerStartError &error) {
    std::cerr << "inductor-fuzz: " << error.what() << "\n";
  } catch (const std::exception &error) {
    std::cerr << "inductor-fuzz: internal error: " << error.what() << "\n";
  }
  return kExitCannotRun;
}

} // namespace cli
