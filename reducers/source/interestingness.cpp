#include "reducers/source/interestingness.h"

#include "reducers/source/compile_probe.h"

#include "corpus/finding.h"
#include "parsers/clang_analysis.h"
#include "parsers/conflict.h"
#include "parsers/diagnostics.h"
#include "parsers/flag_translation.h"
#include "support/child_process.h"
#include "support/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <set>

namespace reducers {
namespace {

namespace fs = std::filesystem;
using support::RunCommand;

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
  std::string Notes() const override { return probe_.PrefixNote(); }

private:
  CompileProbe probe_;
  std::once_flag decided_;
  std::size_t max_errors_ = 0; // the untouched TU's
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
    throw support::InputError(
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
      throw support::InputError(
          fmt::format("the compile command names two C++ sources ({} and {}): give a command "
                      "that compiles one TU",
                      argv[*found], argv[i]));
    found = i;
  }
  if (!found)
    throw support::InputError(
        "the compile command names no C++ source (.cpp, .cc, .cxx): give the command that "
        "compiles the TU");
  return *found;
}

} // namespace reducers
