#include "reducers/source/compile_probe.h"
#include "reducers/source/interestingness.h"

#include "support/child_process.h"
#include "support/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <mutex>

namespace reducers {
namespace {

namespace fs = std::filesystem;
using support::RunCommand;

// One compiler's command for repro.sh: the reduced source in, the output to `output`.
std::vector<std::string> ReproArgv(const CompilerCommand &command, const fs::path &reduced,
                                   const std::string &output) {
  std::vector<std::string> argv = command.argv;
  argv[SourceArgument(argv)] = reduced.string();
  bool output_named = false;
  for (std::size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == "-o") {
      argv[i + 1] = output;
      output_named = true;
    }
  if (!output_named) // not beside the user's files
    argv.insert(argv.end(), {"-o", output});
  return argv;
}

// What each compiler's probe says of its precompiled prefix, a line each.
std::string PrefixNotes(const std::vector<std::unique_ptr<CompileProbe>> &probes) {
  std::string notes;
  for (const auto &probe : probes)
    if (const auto note = probe->PrefixNote(); !note.empty())
      notes += (notes.empty() ? "" : "\n") + note;
  return notes;
}

std::string CompilerNames(const std::vector<CompilerCommand> &commands) {
  std::string names;
  for (const auto &command : commands)
    names += (names.empty() ? "" : ", ") + command.name;
  return names;
}

class CompilerDivergenceTest : public InterestingnessTest {
public:
  CompilerDivergenceTest(std::vector<CompilerCommand> commands, fs::path scratch,
                         std::chrono::seconds timeout,
                         std::function<std::string(const std::vector<CompilerVerdict> &)> signature)
      : commands_(std::move(commands)), signature_(std::move(signature)) {
    for (std::size_t i = 0; i < commands_.size(); ++i)
      probes_.push_back(
          std::make_unique<CompileProbe>(commands_[i].argv, SourceArgument(commands_[i].argv),
                                         scratch / fmt::format("compiler-{}", i), timeout));
  }

  std::optional<std::string> Observe(const std::string &text, unsigned slot) override {
    std::vector<CompileOutcome> outcomes;
    for (auto &probe : probes_)
      outcomes.push_back(probe->Run(text, slot));
    std::vector<CompilerVerdict> verdicts;
    std::size_t built = 0;
    std::call_once(counted_, [&] {
      for (const auto &outcome : outcomes)
        max_errors_.push_back(outcome.errors);
    });
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      if (outcomes[i].timed_out)
        return std::nullopt;
      if (outcomes[i].errors > max_errors_[i])
        return fmt::format("{}: {} errors, more than the original's {}", commands_[i].name,
                           outcomes[i].errors, max_errors_[i]);
      built += outcomes[i].built;
      verdicts.push_back({.compiler = commands_[i].name,
                          .built = outcomes[i].built,
                          .crashed = outcomes[i].crashed,
                          .first_error = outcomes[i].first_error});
    }
    std::call_once(decided_, [&] { first_verdicts_ = verdicts; });
    // All agree: no divergence (the TU builds everywhere, or is broken everywhere).
    if ((built == 0 || built == outcomes.size()) &&
        std::none_of(outcomes.begin(), outcomes.end(), [](const auto &o) { return o.crashed; }))
      return std::nullopt;
    return signature_(verdicts);
  }
  std::string Describe() const override {
    return "the compilers " + CompilerNames(commands_) + " disagree the same way";
  }
  std::string Notes() const override { return PrefixNotes(probes_); }
  std::string ReproCommand(const fs::path &reduced) const override {
    // The untouched TU's verdicts, seen first: the set of compilers that build it.
    std::string expected;
    for (const auto &verdict : first_verdicts_)
      if (verdict.built)
        expected += " " + verdict.compiler;
    std::string script = fmt::format(
        "# Each compiler builds the TU or fails with its errors. Exit 1: the compilers still "
        "disagree as on the original (built by:{}), 0: they do not.\nbuilt=\n",
        expected.empty() ? " none" : expected);
    for (const auto &command : commands_) {
      const auto argv = ReproArgv(command, reduced, "/dev/null");
      script += fmt::format("if {}; then echo '{}: builds'; built=\"$built {}\"; else echo '{}: "
                            "fails'; fi\n",
                            JoinCommand(argv), command.name, command.name, command.name);
    }
    script += fmt::format("[ \"$built\" = \"{}\" ] && exit 1\nexit 0\n", expected);
    return script;
  }

private:
  std::vector<CompilerCommand> commands_;
  std::function<std::string(const std::vector<CompilerVerdict> &)> signature_;
  std::vector<std::unique_ptr<CompileProbe>> probes_;
  std::once_flag counted_, decided_;
  std::vector<std::size_t> max_errors_;         // each compiler's errors on the untouched TU
  std::vector<CompilerVerdict> first_verdicts_; // and its verdict there
};

// What a program printed and how it ended, the way two runs of it are compared.
struct ProgramRun {
  std::string verdict; // "ran", "crashed", "timeout"
  std::string output;  // stdout and stderr
  std::string status;
  bool operator==(const ProgramRun &) const = default;
};

ProgramRun RunProgram(const fs::path &program, std::chrono::seconds timeout) {
  const auto result = RunCommand({program.string()}, {.working_directory = program.parent_path()},
                                 timeout, 1 << 20);
  return {.verdict = result.timed_out       ? "timeout"
                     : result.status.signal ? "crashed"
                                            : "ran",
          .output = result.output,
          .status = result.status.Describe()};
}

class RuntimeDivergenceTest : public InterestingnessTest {
public:
  RuntimeDivergenceTest(std::vector<CompilerCommand> commands, fs::path scratch,
                        std::chrono::seconds timeout,
                        std::function<std::string(const std::vector<ProgramVerdict> &)> signature)
      : commands_(std::move(commands)), timeout_(timeout), signature_(std::move(signature)) {
    for (std::size_t i = 0; i < commands_.size(); ++i)
      probes_.push_back(std::make_unique<CompileProbe>(
          commands_[i].argv, SourceArgument(commands_[i].argv),
          scratch / fmt::format("compiler-{}", i), timeout, ProbeOutput::kProgram));
  }

  std::optional<std::string> Observe(const std::string &text, unsigned slot) override {
    std::vector<ProgramRun> runs;
    std::vector<std::size_t> undefined_behaviour;
    for (auto &probe : probes_) {
      const auto build = probe->Run(text, slot);
      if (!build.built)
        return std::nullopt; // a build failure is another finding
      undefined_behaviour.push_back(build.undefined_behaviour);
      // Twice: a program that prints differently from one run to the next (uninitialised
      // memory, time, addresses) says nothing about the compilers.
      auto run = RunProgram(build.output, timeout_);
      if (RunProgram(build.output, timeout_) != run)
        return std::nullopt;
      runs.push_back(std::move(run));
    }
    // The untouched TU's count, seen first: a candidate with more has drifted into undefined
    // behaviour, where two compilers may print anything.
    std::call_once(counted_, [&] { undefined_behaviour_ = undefined_behaviour; });
    for (std::size_t i = 0; i < undefined_behaviour.size(); ++i)
      if (undefined_behaviour[i] > undefined_behaviour_[i])
        return fmt::format("{}: {} warnings of undefined behaviour, more than the original's {}",
                           commands_[i].name, undefined_behaviour[i], undefined_behaviour_[i]);
    std::vector<ProgramVerdict> verdicts;
    bool differs = false;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      // The first compiler is the reference, as the baseline is in the matrix.
      const bool same = runs[i] == runs[0];
      differs |= !same;
      verdicts.push_back({.compiler = commands_[i].name,
                          .runtime = same                       ? "same"
                                     : runs[i].verdict == "ran" ? "differs"
                                                                : runs[i].verdict});
    }
    if (!differs)
      return std::nullopt;
    return signature_(verdicts);
  }
  std::string Describe() const override {
    return "the programs " + CompilerNames(commands_) + " build print differently, the same way";
  }
  std::string Notes() const override { return PrefixNotes(probes_); }
  std::string ReproCommand(const fs::path &reduced) const override {
    std::string script =
        "# Each compiler builds the program and runs it. Exit 1: they print differently, 0: "
        "they agree.\ndir=$(mktemp -d)\n";
    for (std::size_t i = 0; i < commands_.size(); ++i) {
      const std::string program = fmt::format("\"$dir\"/program-{}", i);
      // A placeholder, since JoinCommand would quote the shell variable.
      std::string command = JoinCommand(ReproArgv(commands_[i], reduced, "@PROGRAM@"));
      command.replace(command.find("@PROGRAM@"), 9, program);
      script += fmt::format("{} || exit 0\n{} >\"$dir\"/out-{} 2>&1; echo \"exit $?\" "
                            ">>\"$dir\"/out-{}\necho '{}:'; cat \"$dir\"/out-{}\n",
                            command, program, i, i, commands_[i].name, i);
    }
    script +=
        "for out in \"$dir\"/out-*; do cmp -s \"$dir\"/out-0 \"$out\" || exit 1; done\nexit 0\n";
    return script;
  }

private:
  std::vector<CompilerCommand> commands_;
  std::chrono::seconds timeout_;
  std::function<std::string(const std::vector<ProgramVerdict> &)> signature_;
  std::vector<std::unique_ptr<CompileProbe>> probes_;
  std::once_flag counted_;
  std::vector<std::size_t> undefined_behaviour_; // per compiler, on the untouched TU
};

} // namespace

std::unique_ptr<InterestingnessTest> MakeCompilerDivergenceTest(
    std::vector<CompilerCommand> commands, fs::path scratch, std::chrono::seconds timeout,
    std::function<std::string(const std::vector<CompilerVerdict> &)> signature) {
  if (commands.size() < 2)
    throw support::InputError(
        "a compiler divergence needs two compilers or more: name them with --compilers A,B");
  return std::make_unique<CompilerDivergenceTest>(std::move(commands), std::move(scratch), timeout,
                                                  std::move(signature));
}

std::unique_ptr<InterestingnessTest> MakeRuntimeDivergenceTest(
    std::vector<CompilerCommand> commands, fs::path scratch, std::chrono::seconds timeout,
    std::function<std::string(const std::vector<ProgramVerdict> &)> signature) {
  if (commands.size() < 2)
    throw support::InputError(
        "a runtime divergence needs two compilers or more: name them with --compilers A,B");
  return std::make_unique<RuntimeDivergenceTest>(std::move(commands), std::move(scratch), timeout,
                                                 std::move(signature));
}

} // namespace reducers
