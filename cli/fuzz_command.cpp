#include "cli/commands.h"
#include "workflows/fuzz.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

namespace {

// Which cases: how long, how many, on how many workers, and the slice of the seed sequence.
void AddSequenceOptions(CLI::App *command, workflows::FuzzOptions &options) {
  command->add_option("--time", options.time,
                      "How long to dispatch cases: 90s, 10m, 2h (default 5m, or no limit "
                      "when --cases is given)");
  command->add_option("--cases", options.cases,
                      "Run the first N cases of the seed sequence (this shard's share)");
  command->add_option("--jobs", options.jobs, "Workers at once (default: the number of cores)")
      ->check(CLI::PositiveNumber);
  command->add_option("--seed", options.seed, "Seed of the case sequence")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option(
          "--shard", options.shard,
          "I/N: run cases i with i % N == I; merge shards with `corpus merge`. auto: I and N "
          "from the engine that started the job, the first set of: INDUCTOR_FUZZ_SHARD_INDEX "
          "and INDUCTOR_FUZZ_SHARD_COUNT (e.g. from a GitHub Actions matrix), "
          "JOB_COMPLETION_INDEX (a Kubernetes Indexed Job; N from --shard-count), "
          "SLURM_ARRAY_TASK_ID against SLURM_ARRAY_TASK_MIN and _MAX or _COUNT (a Slurm "
          "array), SHARD_NUMBER of NUM_TEST_SHARDS counted from 1 (PyTorch's CI). The first "
          "line says which it used; see docs/nightly.md")
      ->capture_default_str();
  command->add_option("--shard-count", options.shard_count,
                      "With --shard auto: N where the engine gives only the index (Kubernetes); "
                      "or set INDUCTOR_FUZZ_SHARD_COUNT");
}

// Where the campaign keeps what it finds, and what it starts from.
void AddCorpusOptions(CLI::App *command, workflows::FuzzOptions &options) {
  command
      ->add_option("--corpus", options.corpus,
                   "Where findings are stored (made if missing); {shard} in it becomes the "
                   "shard's name (2of8)")
      ->capture_default_str();
  command->add_option("--report", options.report_dir,
                      "Reports folder (default: CORPUS/report); {shard} as in --corpus");
  command->add_option("--start-from", options.start_from,
                      "A corpus to continue (the night before's merged one): merged into "
                      "--corpus first, so its bugs are known, its coverage queue feeds the "
                      "mutations and its hit counts carry over; summary.json's \"since\" says "
                      "what is new against it. Idempotent: safe with --resume");
  command->add_option("--policy", options.policy_file, "Generation policy overrides (JSON)");
  command->add_option("--known-issues", options.known_issues,
                      "Known issues (default: the project's corpus/known-issues.json)");
  command->add_flag("--resume", options.resume,
                    "Continue this seed and shard's campaign, skipping finished cases");
}

// How each case runs: mutation, builds, checks, the compiler matrix, limits, sanitizers,
// probes and the baseline torch.
void AddCaseOptions(CLI::App *command, workflows::FuzzOptions &options) {
  command->add_flag("!--no-feedback", options.feedback,
                    "Generate every case afresh: do not mutate the cases of CORPUS/queue/ (those "
                    "that first reached a codegen feature; see `check --features`). Features "
                    "are still counted and the queue still grows");
  command->add_flag(
      "!--no-shared-builds", options.share_builds,
      "Run the compiler for every build, also one whose compiler, command and "
      "inputs an earlier build had (by default it gets that output from "
      "~/.cache/inductor-fuzz/builds; every build is still captured and checked), and run "
      "each as its exact command, without the precompiled prefix of its torch "
      "headers (~/.cache/inductor-fuzz/gcc-prefixes); the compiler matrix makes its "
      "prefixes for each case instead of keeping them (~/.cache/inductor-fuzz/matrix-prefixes)");
  command->add_flag("!--no-check", options.static_analysis,
                    "Do not analyse the captured TUs with Clang (see `check`)");
  AddSharedOption<support::options::CampaignCompilers>(command, options.compilers);
  command
      ->add_option("--matrix-every", options.matrix_every,
                   "Rebuild every K-th case's TUs on the compiler matrix, load them and replay "
                   "their recorded calls (runtime differential); 1: every case, 0: never. "
                   "Builds are cached by content in CORPUS/.cache/builds")
      ->capture_default_str();
  AddSharedOption<support::options::CaseTimeout>(command, options.case_timeout_seconds);
  command
      ->add_option("--recycle-after", options.recycle_after,
                   "Start a fresh worker process after this many cases")
      ->capture_default_str();
  command
      ->add_option("--worker-memory", options.worker_memory_mib,
                   "MiB of resident memory past which a worker is killed (its case is a "
                   "crash finding); past half of it the worker is recycled")
      ->capture_default_str();
  AddSharedOption<support::options::Sanitize>(
      command, options.sanitize,
      "here every case's kernels (see run-case --sanitize), so slower: each is compiled and run "
      "instrumented");
  command->add_option(
      "--sanitize-crashes", options.sanitize_crashes,
      "address, undefined or both: a case that crashes runs again with its kernels built with "
      "-fsanitize=... (see run-case --sanitize); an error in a kernel is a memory-error finding "
      "naming the kernel and the line");
  AddSharedOption<support::options::SanitizeCompiler>(command, options.sanitize_compiler);
  AddProbeOptions(command, options.probe_runs, options.probe_seconds);
  command->add_option("--baseline-torch", options.baseline_torch,
                      "Also run each finding's case on this torch release (a version or a "
                      "venv) and label it \"regression since VERSION\" or \"also in "
                      "VERSION\" (stored as FINDING/baseline-VERSION.json)");
}

} // namespace

// `fuzz`: the campaign.
Command AddFuzzCommand(CLI::App &app) {
  struct State {
    workflows::FuzzOptions options;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto *command = app.add_subcommand(
      "fuzz",
      "The campaign: generate cases from a seed, run them on a pool of warm workers (one per "
      "job) through every oracle (wrong-result, exception, compile-error, crash, timeout), "
      "store each finding once per signature in the corpus, group the signatures into bugs (one "
      "cause seen in many kernels or by several detectors is one bug), and write summary.json, "
      "junit.xml, findings.sarif and report.html. Known issues are reported as known, not new. "
      "Exit 0: no new bug; 1: new bugs; 2: the tool failed.\n"
      "Example: inductor-fuzz fuzz --time 10m --jobs 2 --corpus fuzz-corpus");
  AddSequenceOptions(command, options);
  AddCorpusOptions(command, options);
  AddCaseOptions(command, options);
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
                      "Testing the tool: INDEX:segfault|hang|allocate|disk-full[,...] makes those "
                      "cases misbehave");
  return {command, [state](const Invocation &invocation) {
            auto options = state->options;
            options.command_line = invocation.command_line;
            return workflows::Fuzz(options, invocation.paths, invocation.out);
          }};
}

} // namespace cli
