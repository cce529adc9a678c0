#include "cli/commands.h"
#include "support/errors.h"
#include "workflows/compare_compilers.h"
#include "workflows/compare_releases.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

// `compare`: two torch releases or two compilers, case by case.
Command AddCompareCommand(CLI::App &app) {
  struct State {
    workflows::CompareOptions options;
    workflows::CompareReleasesOptions compare_releases;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto &compare_releases = state->compare_releases;
  auto *command = app.add_subcommand(
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
      "each TU (same, regression, fixed, both-fail, load-regression, runtime-differs, rounding, "
      "new-warnings). Results that differ are judged against the float64 reference kept when "
      "the case or captured program ran: a candidate no further from it than the baseline by "
      "more than the output's tolerance is `rounding`, reported and not counted; both builds "
      "are then rebuilt with floating-point options pinned to name the one that makes them "
      "agree. Warnings are compared by diagnostic option and the function they are in, "
      "never by message text; those the known-warnings file explains are reported as known and "
      "do not change a verdict. Case files in the corpus are run first to capture their TUs and "
      "record their kernel calls. Exit 1 on any regression or runtime difference (not on "
      "rounding).\n"
      "Example: inductor-fuzz compare --baseline g++-12 --candidate clang++-16 "
      "--corpus corpus/seeds --report report/");
  command->add_option("--baseline", options.baseline, "The compiler in use");
  command->add_option("--candidate", options.candidate, "The compiler to move to");
  command->add_option("--baseline-torch", compare_releases.baseline_torch,
                      "The torch release in use: a version (2.14.1) or a venv folder");
  command->add_option("--candidate-torch", compare_releases.candidate_torch,
                      "The torch release to move to: a version or a venv folder");
  command->add_option("--cases", compare_releases.cases,
                      "With --baseline-torch: also run N cases generated from --seed");
  command->add_option("--seed", compare_releases.seed, "Seed of the generated cases")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  AddSharedOption<support::options::CaseTimeout>(command, compare_releases.case_timeout_seconds,
                                                 "on each release, with --baseline-torch");
  command->add_option("--corpus", options.corpus,
                      "run-case outputs and/or case files (default: corpus/seeds)");
  command->add_option("--report", options.report_dir,
                      "Write compare.json, compare.junit.xml and compare.md here");
  command->add_option("--jobs", options.jobs, "Builds at once")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--known-warnings", options.known_warnings,
                   "Warnings that do not change a verdict, `COMPILERS OPTION FUNCTION -- WHY` a "
                   "line (default: the checked-in fuzzer/matrix/known_warnings.txt)")
      ->check(CLI::ExistingFile);
  command->add_flag(
      "--no-kernel-probes{false}", options.kernel_probes,
      "Do not build cpp_wrapper TUs a second time with kernel probes (by default every kernel "
      "call inside such a module has its written buffers compared across compilers, not only "
      "the module's results)");
  command->add_option(
      "--tolerances", options.tolerances,
      "How close a rebuilt kernel's float results must be to Inductor's recording, per dtype and "
      "op family: a file of `DTYPE FAMILY RTOL ATOL -- WHY` lines (default: the checked-in "
      "fuzzer/matrix/tolerances.txt)");
  command->add_flag(
      "--no-fp-pinning{false}", options.fp_pinning,
      "Do not rebuild a TU whose two builds compute different floats with floating-point "
      "options pinned (by default both are rebuilt with -ffp-contract=off, then "
      "-fno-associative-math, then without auto-vectorisation, then without `#pragma omp simd`, "
      "and the report names the first pin under which they agree bit for bit)");
  command->add_flag("--show-known-warnings", options.show_known_warnings,
                    "List the known warnings the candidate adds, with their reasons");
  return {command, [state](const Invocation &invocation) {
            auto compilers = state->options;
            auto releases = state->compare_releases;
            const bool by_compilers = !compilers.baseline.empty() || !compilers.candidate.empty();
            const bool by_releases =
                !releases.baseline_torch.empty() || !releases.candidate_torch.empty();
            if (by_compilers == by_releases)
              throw support::InputError(
                  "compare takes two compilers (--baseline and --candidate) or two torch "
                  "releases (--baseline-torch and --candidate-torch)");
            const auto seeds = invocation.paths.project_root / "corpus" / "seeds";
            if (by_releases) {
              if (releases.baseline_torch.empty() || releases.candidate_torch.empty())
                throw support::InputError(
                    "compare needs both --baseline-torch and --candidate-torch");
              releases.corpus = compilers.corpus;
              releases.report_dir = compilers.report_dir;
              releases.command_line = invocation.command_line;
              if (releases.corpus.empty() && !releases.cases)
                releases.corpus.push_back(seeds);
              return workflows::CompareTorchReleases(releases, invocation.paths, invocation.out);
            }
            if (compilers.baseline.empty() || compilers.candidate.empty())
              throw support::InputError("compare needs both --baseline and --candidate");
            compilers.command_line = invocation.command_line;
            if (compilers.corpus.empty())
              compilers.corpus.push_back(seeds);
            return workflows::CompareCompilers(compilers, invocation.paths, invocation.out);
          }};
}

} // namespace cli
