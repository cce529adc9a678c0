#include "reducers/source/compile_probe.h"

#include "parsers/clang_analysis.h"
#include "support/child_process.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

namespace reducers {

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

fs::path WriteCandidate(const fs::path &scratch, unsigned slot, const std::string &file_name,
                        const std::string &text) {
  const fs::path folder = scratch / fmt::format("slot-{}", slot);
  fs::create_directories(folder);
  const fs::path file = folder / file_name;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  return file;
}

CompileOutcome CompileProbe::Run(const std::string &text, unsigned slot) {
  std::call_once(decided_, [&] { Decide(text, slot); });
  // The prefix stands for the TU's leading #include lines only while they are unchanged.
  const bool prefix = use_prefix_ && parsers::LeadingIncludeBlock(text) == leading_block_;
  return Compile(text, slot, {.syntax_only = syntax_only_, .prefix = prefix});
}

std::vector<std::string_view> CompileProbe::UndefinedBehaviourWarnings() const {
  if (family_ == parsers::CompilerFamily::kClang)
    return {"-Wreturn-type", "-Wuninitialized", "-Wsometimes-uninitialized"};
  return {"-Wreturn-type", "-Wuninitialized", "-Wmaybe-uninitialized"};
}

void CompileProbe::Decide(const std::string &text, unsigned slot) {
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

std::vector<std::string> CompileProbe::Flags() const {
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

bool CompileProbe::BuildPrefix() {
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

CompileOutcome CompileProbe::Compile(const std::string &text, unsigned slot, RunMode mode) const {
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
    outcome.undefined_behaviour += diagnostic.severity == "warning" &&
                                   std::find(undefined_behaviour.begin(), undefined_behaviour.end(),
                                             diagnostic.option) != undefined_behaviour.end();
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

} // namespace reducers
