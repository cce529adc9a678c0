#include "cli/subcommands.h"

#include "support/errors.h"

#include <CLI/CLI.hpp>

namespace cli {

// The one --sanitize-compiler of every command that builds sanitized kernels.
void AddSanitizeCompilerOption(CLI::App *command, std::string &compiler) {
  command
      ->add_option("--sanitize-compiler", compiler,
                   "The g++ or clang++ that builds the sanitized kernels (its runtime is the one "
                   "preloaded)")
      ->capture_default_str();
}

void AddProbeOptions(CLI::App *command, unsigned &runs, long &seconds) {
  command
      ->add_option("--probe-runs", runs,
                   "After a wrong result or a crash, run the case again with each non-default "
                   "setting put back (a 16-bit dtype to float32, dynamic to static, cpp_wrapper "
                   "off, each Inductor knob to its default, ...), at most this many times; the "
                   "settings without which it passes join the bug key (needs=...). 0: no probe")
      ->capture_default_str();
  command
      ->add_option("--probe-time", seconds, "Seconds after which the probe starts no more reruns")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
}

CLI::App *AddFuzzCommand(CLI::App &app, FuzzOptions &options) {
  auto *command = app.add_subcommand(
      "fuzz",
      "The campaign: generate cases from a seed, run them on a pool of warm workers (one per "
      "job) through every oracle (wrong-result, exception, compile-error, crash, timeout), "
      "store each finding once per signature in the corpus, group the signatures into bugs (one "
      "cause seen in many kernels or by several detectors is one bug), and write summary.json, "
      "junit.xml, findings.sarif and report.html. Known issues are reported as known, not new. "
      "Exit 0: no new bug; 1: new bugs; 2: the tool failed.\n"
      "Example: inductor-fuzz fuzz --time 10m --jobs 2 --corpus fuzz-corpus");
  command->add_option("--time", options.time,
                      "How long to dispatch cases: 90s, 10m, 2h (default 5m, or no limit "
                      "when --cases is given)");
  command->add_option("--cases", options.cases,
                      "Run the first N cases of the seed sequence (this shard's share)");
  command->add_option("--jobs", options.jobs, "Workers at once (default: the number of cores)");
  command->add_option("--seed", options.seed, "Seed of the case sequence")->capture_default_str();
  command
      ->add_option("--shard", options.shard,
                   "I/N: run cases i with i % N == I; merge shards with `corpus merge`")
      ->capture_default_str();
  command->add_option("--corpus", options.corpus, "Where findings are stored (made if missing)")
      ->capture_default_str();
  command->add_option("--report", options.report_dir, "Reports folder (default: CORPUS/report)");
  command->add_option("--policy", options.policy_file, "Generation policy overrides (JSON)");
  command->add_option("--known-issues", options.known_issues,
                      "Known issues (default: the project's corpus/known-issues.json)");
  command->add_flag("--resume", options.resume,
                    "Continue this seed and shard's campaign, skipping finished cases");
  command->add_flag("!--no-feedback", options.feedback,
                    "Generate every case afresh: do not mutate the cases of CORPUS/queue/ (those "
                    "that first reached a codegen feature; see `check --features`). Features "
                    "are still counted and the queue still grows");
  command->add_flag("!--no-check", options.static_analysis,
                    "Do not analyse the captured TUs with Clang (see `check`)");
  command
      ->add_option("--compilers", options.compilers,
                   "The compiler matrix: names or paths, comma-separated (default: those of "
                   "g++-11, clang++-19 installed)")
      ->delimiter(',');
  command
      ->add_option("--matrix-every", options.matrix_every,
                   "Rebuild every K-th case's TUs on the compiler matrix, load them and replay "
                   "their recorded calls (runtime differential); 1: every case, 0: never. "
                   "Builds are cached by content in CORPUS/.cache/builds")
      ->capture_default_str();
  command->add_option("--case-timeout", options.case_timeout_seconds, "Seconds per case")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--recycle-after", options.recycle_after,
                   "Start a fresh worker process after this many cases")
      ->capture_default_str();
  command
      ->add_option("--worker-memory", options.worker_memory_mib,
                   "MiB of resident memory past which a worker is killed (its case is a "
                   "crash finding); past half of it the worker is recycled")
      ->capture_default_str();
  command->add_option(
      "--sanitize", options.sanitize,
      "address, undefined or both: every case's kernels are built with -fsanitize=... and run "
      "with the runtime preloaded (see run-case --sanitize); slower: every kernel is compiled "
      "and run instrumented");
  command->add_option(
      "--sanitize-crashes", options.sanitize_crashes,
      "address, undefined or both: a case that crashes runs again with its kernels built with "
      "-fsanitize=... (see run-case --sanitize); an error in a kernel is a memory-error finding "
      "naming the kernel and the line");
  AddSanitizeCompilerOption(command, options.sanitize_compiler);
  AddProbeOptions(command, options.probe_runs, options.probe_seconds);
  command->add_option("--baseline-torch", options.baseline_torch,
                      "Also run each finding's case on this torch release (a version or a "
                      "venv) and label it \"regression since VERSION\" or \"also in "
                      "VERSION\" (stored as FINDING/baseline-VERSION.json)");
  command
      ->add_option("--reduce", options.reduce,
                   "After the cases, reduce each new bug (new), every bug hit (all) or none: "
                   "the case reducer, then the source reducer for a failure in one TU; the "
                   "reduced repro.py runs standalone on every installed torch release "
                   "(scripts/setup --with-torch) and an issue draft is written beside it "
                   "(FINDING/delivery.json, reduced/, issue.md). Reduction counts against "
                   "--time: cases stop early enough to leave --reduce-timeout per new bug, at "
                   "most half of --time")
      ->capture_default_str();
  command
      ->add_option("--reduce-timeout", options.reduce_timeout_seconds,
                   "Seconds of reduction per bug at most; past it the best case so far is kept")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_option("--inject-fault", options.inject_fault,
                      "Testing the tool: INDEX:segfault|hang|allocate[,...] makes those "
                      "cases misbehave");
  return command;
}

CLI::App *AddReduceCommand(CLI::App &app, ReduceOptions &options) {
  auto *command = app.add_subcommand(
      "reduce",
      "Reduce a failure to something a maintainer can act on. A case (or a finding's folder): to a "
      "minimal case and a standalone repro.py that fails the same way (same signature), fit for a "
      "PyTorch issue; a finding about a TU (a compile error, a static finding) is then reduced "
      "as a source too. A matrix finding (compiler-divergence, load-error, runtime-divergence) "
      "reduces with the compiler matrix as its test, on the compilers its matrix.json names, to "
      "a repro.sh that builds the TU with each and shows them disagree, then its TU. A C++ source "
      "(--cpp FILE -- COMPILE COMMAND, --from-log LOG, --script "
      "failing.py): to a minimal reduced.cpp and repro.sh, the one command that shows the same "
      "error. Exit 0: reduced and the repro fails the same way on its own; 1: reduced, but only "
      "in the tool; 2: the tool failed or the input does not fail.\n"
      "Example: inductor-fuzz reduce fuzz-corpus/findings/crash-1f2e3d4c5b6a7980\n"
      "Also: inductor-fuzz reduce --cpp kernel.cpp -- g++-12 -std=c++17 -c kernel.cpp; "
      "inductor-fuzz reduce --from-log ci.log; inductor-fuzz reduce --cpp k.cpp --interesting "
      "./still-fails.sh; inductor-fuzz reduce --cpp k.cpp --compilers g++-12,clang++-19 -- g++-12 "
      "-std=c++17 -c k.cpp");
  command->add_option("input", options.input, "A case file, or a finding's folder");
  command->add_option("--cpp", options.cpp_file,
                      "A C++ source to reduce; its compile command follows `--` (without "
                      "one: our Clang analysis's first error, or --interesting)");
  command->add_option("--from-log", options.from_log,
                      "A log holding Inductor's CppCompileError (a CI log, pytest output): "
                      "reduce the TU it names with its command");
  command->add_option("--script", options.script,
                      "A failing Python script (a test from a red CI run): run it with the "
                      "venv's python and a fresh Inductor cache, and reduce the TU that "
                      "fails to compile or that our analysis flags");
  command->add_option("--interesting", options.interesting,
                      "With --cpp: C-Vise's convention, SCRIPT runs in a folder holding the "
                      "candidate under the source's name; exit 0 keeps it");
  command
      ->add_option("--compilers", options.compilers,
                   "With --cpp and its command: a compiler divergence; these compilers (two or "
                   "more, A,B) disagree on the TU, some build it and some fail, and every step "
                   "keeps the same verdicts and first errors (the matrix's signature). With a "
                   "matrix finding's folder: the compilers to rebuild its case with (default: "
                   "those its matrix.json names)")
      ->delimiter(',');
  command->add_option(
      "--matrix-record", options.matrix_record,
      "A record `matrix --json` wrote: reduce a compiler divergence it found, with each "
      "compiler's command from the record (the TU's source must still be there)");
  command->add_option("--tu", options.tu,
                      "With --matrix-record: the TU (its label in the record; default: "
                      "the first with a divergence)");
  command->add_flag(
      "--run", options.run_programs,
      "With --compilers: a runtime divergence; the command links a program, each compiler's "
      "build runs twice, and every step keeps the same programs printing differently from the "
      "first compiler's");
  command->add_option("--out", options.out_dir,
                      "Output folder (default: FINDING/reduced, reduced-<case name> or "
                      "reduced-<source name>)");
  command->add_option("--jobs", options.jobs,
                      "Candidates run side by side (default: the number of cores)");
  command->add_option("--confirm", options.confirm,
                      "Runs of the untouched case; a signature seen only some of the time "
                      "gets as many tries per candidate (default: 3 for crashes, else 1)");
  command
      ->add_option("--case-timeout", options.case_timeout_seconds,
                   "Seconds per run of a case, a script or a candidate's test")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_option(
      "--baseline-torch", options.baseline_torch,
      "A regression: every step must also pass on this torch release (a version or a venv; "
      "the failing release is --torch's); repro.py says which release passes and which fails");
  command->add_option(
      "--sanitize", options.sanitize,
      "address, undefined or both: a memory error; every run builds the kernels with "
      "-fsanitize=... and keeps the sanitizer's first report in a kernel as its signature "
      "(default for a memory-error finding: address,undefined); repro.py runs itself sanitized");
  AddSanitizeCompilerOption(command, options.sanitize_compiler);
  command->add_option("--passes", options.passes_file,
                      "Case pass order file (default: reducers/case/passes.json)");
  command->add_option("--source-passes", options.source_passes_file,
                      "Source pass order file (default: reducers/source/passes.json)");
  return command;
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

} // namespace cli
