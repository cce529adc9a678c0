#include "reducers/source/interestingness.h"

#include "corpus/finding.h"
#include "fuzzer/support/child_process.h"
#include "fuzzer/support/errors.h"
#include "fuzzer/support/text_file.h"
#include "parsers/clang_analysis.h"
#include "parsers/conflict.h"
#include "parsers/diagnostics.h"
#include "parsers/flag_translation.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <mutex>
#include <set>
#include <string_view>

namespace reducers {
namespace {

namespace fs = std::filesystem;
using fuzzer::support::RunCommand;

std::string ShellQuote(const std::string &word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-+=./,:@%") == std::string::npos)
    return word;
  std::string quoted = "'";
  for (char c : word)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string JoinCommand(const std::vector<std::string> &argv) {
  std::string joined;
  for (const auto &word : argv)
    joined += (joined.empty() ? "" : " ") + ShellQuote(word);
  return joined;
}

// The candidate, written for one slot under the name the original had.
fs::path WriteCandidate(const fs::path &scratch, unsigned slot, const std::string &file_name,
                        const std::string &text) {
  const fs::path folder = scratch / fmt::format("slot-{}", slot);
  fs::create_directories(folder);
  const fs::path file = folder / file_name;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  return file;
}

class ScriptTest : public InterestingnessTest {
public:
  ScriptTest(fs::path script, std::string file_name, fs::path scratch, std::chrono::seconds timeout)
      : script_(fs::absolute(std::move(script))), file_name_(std::move(file_name)),
        scratch_(std::move(scratch)), timeout_(timeout) {}

  std::optional<std::string> Observe(const std::string &text, unsigned slot) override {
    const fs::path file = WriteCandidate(scratch_, slot, file_name_, text);
    const auto result = RunCommand({script_.string()}, {.working_directory = file.parent_path()},
                                   timeout_, 1 << 16);
    if (result.timed_out || !result.status.Succeeded())
      return std::nullopt;
    return Describe();
  }
  std::string Describe() const override {
    return fmt::format("{} exits 0 on the candidate", script_.string());
  }
  std::string ReproCommand(const fs::path &reduced) const override {
    return fmt::format("# {} decides: exit 0 means the failure is there\n"
                       "dir=$(mktemp -d)\ncp {} \"$dir\"/{}\ncd \"$dir\" && exec {}\n",
                       script_.filename().string(), ShellQuote(reduced.string()),
                       ShellQuote(file_name_), ShellQuote(script_.string()));
  }

private:
  fs::path script_;
  std::string file_name_;
  fs::path scratch_;
  std::chrono::seconds timeout_;
};

// What one compiler made of a candidate.
struct CompileOutcome {
  bool built = false;
  bool timed_out = false;
  bool crashed = false; // killed by a signal: an internal compiler error
  std::size_t errors = 0;
  std::string first_error; // the first error's message, as the matrix records it
  std::vector<parsers::CompilerDiagnostic> diagnostics;
  fs::path output;                     // what it built, when it built it
  std::size_t undefined_behaviour = 0; // kProgram: warnings that the program has no meaning
  bool operator==(const CompileOutcome &other) const {
    return built == other.built && timed_out == other.timed_out && crashed == other.crashed &&
           first_error == other.first_error;
  }
};

// One compile command run on candidates, made cheap where that keeps its outcome: the first text
// seen (the untouched source) decides whether the front end alone (-fsyntax-only) gives the same
// outcome, and whether a precompiled prefix of the TU's leading #include block does.
enum class ProbeOutput {
  kVerdictOnly, // what the compiler says is all that matters: the front end alone may do
  kProgram,     // the program it builds is run: always a whole build, to slot/candidate.out
};

class CompileProbe {
public:
  CompileProbe(std::vector<std::string> argv, std::size_t source_index, fs::path scratch,
               std::chrono::seconds timeout, ProbeOutput output = ProbeOutput::kVerdictOnly)
      : argv_(std::move(argv)), source_index_(source_index), scratch_(std::move(scratch)),
        timeout_(timeout), output_(output), family_(parsers::FamilyOfCompiler(argv_.at(0))) {}

  CompileOutcome Run(const std::string &text, unsigned slot) {
    std::call_once(decided_, [&] { Decide(text, slot); });
    // The prefix stands for the TU's leading #include lines only while they are unchanged.
    const bool prefix = use_prefix_ && parsers::LeadingIncludeBlock(text) == leading_block_;
    return Compile(text, slot, {.syntax_only = syntax_only_, .prefix = prefix});
  }

  const std::vector<std::string> &argv() const { return argv_; }
  std::size_t source_index() const { return source_index_; }

  // Where a reduced program drifts into undefined behaviour, its output means nothing: a
  // function that falls off its end, a variable read before it is set. Both compilers warn.
  std::vector<std::string_view> UndefinedBehaviourWarnings() const {
    if (family_ == parsers::CompilerFamily::kClang)
      return {"-Wreturn-type", "-Wuninitialized", "-Wsometimes-uninitialized"};
    return {"-Wreturn-type", "-Wuninitialized", "-Wmaybe-uninitialized"};
  }
  parsers::CompilerFamily family() const { return family_; }

private:
  struct RunMode {
    bool syntax_only = false;
    bool prefix = false; // -include the precompiled leading #include block
  };

  void Decide(const std::string &text, unsigned slot) {
    const auto full = Compile(text, slot, {});
    syntax_only_ =
        output_ == ProbeOutput::kVerdictOnly && Compile(text, slot, {.syntax_only = true}) == full;
    leading_block_ = parsers::LeadingIncludeBlock(text);
    // A command's own -include files (Inductor's precompiled-header wrapper) go into ours:
    // a compiler takes one precompiled header, and theirs may not match these flags.
    prefix_block_.clear();
    for (std::size_t i = 1; i + 1 < argv_.size(); ++i)
      if (argv_[i] == "-include" && fs::is_regular_file(argv_[i + 1]))
        prefix_block_ += fuzzer::support::ReadTextFile(argv_[i + 1], "header", 1 << 20) + "\n";
    prefix_block_ += leading_block_;
    use_prefix_ = !leading_block_.empty() && BuildPrefix() &&
                  Compile(text, slot, {.syntax_only = syntax_only_, .prefix = true}) == full;
  }

  // The command's flags, without its source, output and -c: what the prefix is built with.
  std::vector<std::string> Flags() const {
    std::vector<std::string> flags;
    for (std::size_t i = 1; i < argv_.size(); ++i) {
      if (i == source_index_ || argv_[i] == "-c")
        continue;
      if ((argv_[i] == "-o" || argv_[i] == "-include") && i + 1 < argv_.size()) {
        ++i;
        continue;
      }
      // Linking would turn the header into a shared object: no inputs, libraries or -shared.
      const std::string &word = argv_[i];
      if (word.empty() || word[0] != '-' || word.starts_with("-l") || word.starts_with("-L") ||
          word.starts_with("-Wl,") || word == "-shared")
        if (!(i > 0 && (argv_[i - 1] == "-D" || argv_[i - 1] == "-I" || argv_[i - 1] == "-U" ||
                        argv_[i - 1] == "-isystem" || argv_[i - 1] == "-iquote")))
          continue;
      flags.push_back(word);
    }
    return flags;
  }

  // The leading #include block compiled once, as gcc's .gch or clang's .pch beside prefix.h:
  // both compilers pick it up for `-include prefix.h` when the flags match.
  bool BuildPrefix() {
    const fs::path folder = scratch_ / "prefix";
    fs::create_directories(folder);
    std::ofstream(folder / "prefix.h", std::ios::trunc) << prefix_block_;
    std::vector<std::string> argv = {argv_[0]};
    const auto flags = Flags();
    argv.insert(argv.end(), flags.begin(), flags.end());
    const std::string output =
        (folder / (family_ == parsers::CompilerFamily::kGcc ? "prefix.h.gch" : "prefix.h.pch"))
            .string();
    argv.insert(argv.end(), {"-x", "c++-header", (folder / "prefix.h").string(), "-o", output});
    const auto result = RunCommand(argv, {}, timeout_ * 4, 1 << 20);
    return result.status.Succeeded() && fs::exists(output);
  }

  CompileOutcome Compile(const std::string &text, unsigned slot, RunMode mode) const {
    const fs::path source =
        WriteCandidate(scratch_, slot, fs::path(argv_[source_index_]).filename().string(), text);
    std::vector<std::string> argv = {argv_[0]};
    // Quoted #includes still resolve next to the original.
    argv.insert(argv.end(), {"-iquote", fs::absolute(argv_[source_index_]).parent_path().string()});
    if (mode.prefix)
      argv.insert(argv.end(), {"-include", (scratch_ / "prefix" / "prefix.h").string()});
    const fs::path output = source.parent_path() / "candidate.out";
    bool output_named = false;
    for (std::size_t i = 1; i < argv_.size(); ++i) {
      if (i == source_index_) {
        argv.push_back(source.string());
      } else if (argv_[i] == "-o" && i + 1 < argv_.size()) {
        argv.insert(argv.end(), {"-o", output.string()});
        output_named = true;
        ++i;
      } else if (argv_[i] == "-include" && mode.prefix && i + 1 < argv_.size()) {
        ++i; // in our prefix
      } else {
        argv.push_back(argv_[i]);
      }
    }
    if (mode.syntax_only)
      argv.push_back("-fsyntax-only");
    else if (!output_named) // never an a.out in the user's folder
      argv.insert(argv.end(), {"-o", output.string()});
    if (output_ == ProbeOutput::kProgram)
      for (const auto &option : UndefinedBehaviourWarnings())
        argv.push_back(std::string(option));
    fs::remove(output);
    const auto result = RunCommand(argv, {}, timeout_, 1 << 20);
    CompileOutcome outcome;
    outcome.output = output;
    outcome.timed_out = result.timed_out;
    outcome.built = !result.timed_out && result.status.Succeeded();
    outcome.crashed = !result.timed_out && result.status.signal.has_value();
    if (outcome.timed_out)
      return outcome;
    outcome.diagnostics = parsers::ParseCompilerText(result.output, family_);
    const auto undefined_behaviour = UndefinedBehaviourWarnings();
    for (const auto &diagnostic : outcome.diagnostics)
      outcome.undefined_behaviour +=
          diagnostic.severity == "warning" &&
          std::find(undefined_behaviour.begin(), undefined_behaviour.end(), diagnostic.option) !=
              undefined_behaviour.end();
    if (outcome.built)
      return outcome;
    for (const auto &diagnostic : outcome.diagnostics)
      if (diagnostic.severity == "error" || diagnostic.severity == "fatal error") {
        if (outcome.first_error.empty())
          outcome.first_error = diagnostic.message;
        ++outcome.errors;
      }
    if (outcome.first_error.empty()) // a crash or a link error prints no file:line diagnostic
      outcome.first_error = result.output.substr(0, result.output.find('\n'));
    return outcome;
  }

  std::vector<std::string> argv_;
  std::size_t source_index_;
  fs::path scratch_;
  std::chrono::seconds timeout_;
  ProbeOutput output_;
  parsers::CompilerFamily family_;
  std::once_flag decided_;
  bool syntax_only_ = false;
  bool use_prefix_ = false;
  std::string leading_block_; // the TU's leading #include lines
  std::string prefix_block_;  // what the prefix precompiles: the -include files, then those
};

class CompilerDiagnosticTest : public InterestingnessTest {
public:
  CompilerDiagnosticTest(std::vector<std::string> argv, std::size_t source_index, fs::path scratch,
                         std::chrono::seconds timeout)
      : probe_(std::move(argv), source_index, std::move(scratch), timeout) {}

  std::optional<std::string> Observe(const std::string &text, unsigned slot) override {
    const auto outcome = probe_.Run(text, slot);
    std::call_once(decided_, [&] { max_errors_ = outcome.errors; });
    if (outcome.built || outcome.timed_out)
      return std::nullopt;
    // A candidate may not break more than the untouched TU had broken: that would be garbage.
    if (outcome.errors > max_errors_)
      return fmt::format("{} errors, more than the original's {}", outcome.errors, max_errors_);
    return corpus::Signature(parsers::CompileErrorFinding(probe_.family(), outcome.diagnostics));
  }
  std::string Describe() const override {
    return fmt::format("the first error of {}", fs::path(probe_.argv()[0]).filename().string());
  }
  std::string ReproCommand(const fs::path &reduced) const override {
    std::vector<std::string> argv = probe_.argv();
    argv[probe_.source_index()] = reduced.string();
    return fmt::format("# fails with the same first error as the original TU\n{}\n",
                       JoinCommand(argv));
  }

private:
  CompileProbe probe_;
  std::once_flag decided_;
  std::size_t max_errors_ = 0; // the untouched TU's
};

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

class StaticFindingTest : public InterestingnessTest {
public:
  StaticFindingTest(std::vector<std::string> clang_args, std::string wanted, fs::path scratch,
                    fs::path prefix_cache_dir)
      : clang_args_(std::move(clang_args)), wanted_(std::move(wanted)),
        scratch_(std::move(scratch)), prefix_cache_dir_(std::move(prefix_cache_dir)) {}

  std::optional<std::string> Observe(const std::string &text, unsigned slot) override {
    const fs::path source = WriteCandidate(scratch_, slot, "candidate.cpp", text);
    const auto report = AnalyzerFor(slot).Analyze(
        {.path = source, .display_name = "candidate.cpp", .clang_args = clang_args_});
    std::vector<std::string> errors;
    std::optional<std::string> first_conflict;
    for (const auto &conflict : report.findings) {
      if (conflict.severity != "error")
        continue;
      errors.push_back(corpus::Signature(parsers::ToFinding(conflict)));
      if (conflict.kind == "conflicting-declaration" && !first_conflict)
        first_conflict = errors.back();
    }
    // The untouched TU, seen first, decides which of several errors is the one to keep, and
    // which errors a candidate may have: a reduction that breaks something else is garbage.
    std::call_once(decided_, [&] {
      allowed_.insert(errors.begin(), errors.end());
      if (wanted_.empty())
        wanted_ = first_conflict ? *first_conflict : errors.empty() ? "" : errors.front();
    });
    for (const auto &error : errors)
      if (!allowed_.contains(error))
        return "new error: " + error;
    if (std::find(errors.begin(), errors.end(), wanted_) != errors.end())
      return wanted_;
    return errors.empty() ? std::nullopt : std::optional<std::string>(errors.front());
  }
  std::string Describe() const override {
    return wanted_.empty() ? "the first error of our Clang analysis" : wanted_;
  }
  std::string ReproCommand(const fs::path &reduced) const override {
    std::vector<std::string> argv = {"clang++-19", "-fsyntax-only"};
    argv.insert(argv.end(), clang_args_.begin(), clang_args_.end());
    argv.push_back(reduced.string());
    return fmt::format("# Clang reports the same error as `inductor-fuzz check` on the original\n"
                       "{}\n",
                       JoinCommand(argv));
  }

private:
  parsers::Analyzer &AnalyzerFor(unsigned slot) {
    std::lock_guard lock(mutex_);
    if (analyzers_.size() <= slot)
      analyzers_.resize(slot + 1);
    if (!analyzers_[slot])
      analyzers_[slot] = std::make_unique<parsers::Analyzer>(
          parsers::AnalysisOptions{.prefix_cache_dir = prefix_cache_dir_});
    return *analyzers_[slot];
  }

  std::vector<std::string> clang_args_;
  std::string wanted_;
  fs::path scratch_;
  fs::path prefix_cache_dir_;
  std::mutex mutex_;
  std::once_flag decided_;
  std::set<std::string> allowed_;
  std::vector<std::unique_ptr<parsers::Analyzer>> analyzers_;
};

} // namespace

std::unique_ptr<InterestingnessTest> MakeScriptTest(fs::path script, std::string file_name,
                                                    fs::path scratch,
                                                    std::chrono::seconds timeout) {
  if (!fs::is_regular_file(script))
    throw fuzzer::support::InputError(
        fmt::format("{} is not a file: give the interestingness script (exit 0: interesting)",
                    script.string()));
  return std::make_unique<ScriptTest>(std::move(script), std::move(file_name), std::move(scratch),
                                      timeout);
}

std::unique_ptr<InterestingnessTest> MakeCompilerDiagnosticTest(std::vector<std::string> argv,
                                                                std::size_t source_index,
                                                                fs::path scratch,
                                                                std::chrono::seconds timeout) {
  return std::make_unique<CompilerDiagnosticTest>(std::move(argv), source_index, std::move(scratch),
                                                  timeout);
}

std::unique_ptr<InterestingnessTest> MakeCompilerDivergenceTest(
    std::vector<CompilerCommand> commands, fs::path scratch, std::chrono::seconds timeout,
    std::function<std::string(const std::vector<CompilerVerdict> &)> signature) {
  if (commands.size() < 2)
    throw fuzzer::support::InputError(
        "a compiler divergence needs two compilers or more: name them with --compilers A,B");
  return std::make_unique<CompilerDivergenceTest>(std::move(commands), std::move(scratch), timeout,
                                                  std::move(signature));
}

std::unique_ptr<InterestingnessTest> MakeRuntimeDivergenceTest(
    std::vector<CompilerCommand> commands, fs::path scratch, std::chrono::seconds timeout,
    std::function<std::string(const std::vector<ProgramVerdict> &)> signature) {
  if (commands.size() < 2)
    throw fuzzer::support::InputError(
        "a runtime divergence needs two compilers or more: name them with --compilers A,B");
  return std::make_unique<RuntimeDivergenceTest>(std::move(commands), std::move(scratch), timeout,
                                                 std::move(signature));
}

std::unique_ptr<InterestingnessTest> MakeStaticFindingTest(std::vector<std::string> clang_args,
                                                           std::string wanted, fs::path scratch,
                                                           fs::path prefix_cache_dir) {
  return std::make_unique<StaticFindingTest>(std::move(clang_args), std::move(wanted),
                                             std::move(scratch), std::move(prefix_cache_dir));
}

std::size_t SourceArgument(const std::vector<std::string> &argv) {
  std::optional<std::size_t> found;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (!parsers::IsCppSource(argv[i]) || (i > 0 && argv[i - 1] == "-o"))
      continue;
    if (found)
      throw fuzzer::support::InputError(
          fmt::format("the compile command names two C++ sources ({} and {}): give a command "
                      "that compiles one TU",
                      argv[*found], argv[i]));
    found = i;
  }
  if (!found)
    throw fuzzer::support::InputError(
        "the compile command names no C++ source (.cpp, .cc, .cxx): give the command that "
        "compiles the TU");
  return *found;
}

} // namespace reducers
