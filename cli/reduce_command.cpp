#include "cli/commands.h"
#include "workflows/reduce_case.h"
#include "workflows/reduce_source.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

// `reduce`: a case, a finding or a TU to a minimal repro.
Command AddReduceCommand(CLI::App &app) {
  struct State {
    workflows::ReduceOptions options;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
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
  command
      ->add_option("--jobs", options.jobs,
                   "Candidates run side by side (default: the number of cores)")
      ->check(CLI::PositiveNumber);
  command->add_option("--confirm", options.confirm,
                      "Runs of the untouched case; a signature seen only some of the time "
                      "gets as many tries per candidate (default: 3 for crashes, else 1)");
  AddSharedOption<support::options::ReductionCaseTimeout>(command, options.case_timeout_seconds);
  command->add_option(
      "--baseline-torch", options.baseline_torch,
      "A regression: every step must also pass on this torch release (a version or a venv; "
      "the failing release is --torch's); repro.py says which release passes and which fails");
  AddSharedOption<support::options::Sanitize>(
      command, options.sanitize,
      "here a memory error: every run is sanitized and keeps the sanitizer's first report in a "
      "kernel "
      "as its signature (default for a memory-error finding: address,undefined; for a memory "
      "crash when a sanitized run of the untouched case reports one); repro.py runs itself "
      "sanitized; none: never sanitized");
  AddSharedOption<support::options::SanitizeCompiler>(command, options.sanitize_compiler);
  command->add_option("--passes", options.passes_file,
                      "Case pass order file (default: reducers/case/passes.json)");
  command->add_option("--source-passes", options.source_passes_file,
                      "Source pass order file (default: reducers/source/passes.json)");
  return {command, [state](const Invocation &invocation) {
            auto options = state->options;
            options.command_line = invocation.command_line;
            options.compile_command = invocation.after_separator;
            if (workflows::CheckReduceInputs(options) == workflows::ReduceInput::kSource)
              return workflows::ReduceSource(options, invocation.paths, invocation.out);
            return workflows::ReduceCase(options, invocation.paths, invocation.out);
          }};
}

} // namespace cli
