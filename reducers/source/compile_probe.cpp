#include "reducers/source/compile_probe.h"

#include "parsers/clang_analysis.h"
#include "parsers/precompiled_prefix.h"
#include "support/child_process.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

namespace reducers {

namespace fs = std::filesystem;
using support::RunCommand;

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
  if (!use_prefix_)
    return Compile(text, slot, {.syntax_only = syntax_only_});
  // The prefix stands for the TU's leading #include lines only while they are unchanged.
  const std::string block = parsers::LeadingIncludeBlock(text);
  fs::path header;
  {
    std::lock_guard lock(prefix_mutex_);
    if (block == leading_block_)
      header = prefix_header_;
  }
  if (header.empty()) {
    FollowLeadingBlock(block, text, slot);
    return Compile(text, slot, {.syntax_only = syntax_only_});
  }
  return Compile(text, slot,
                 {.syntax_only = syntax_only_, .prefix = true, .prefix_header = header});
}

std::string CompileProbe::PrefixNote() const {
  std::lock_guard lock(prefix_mutex_);
  return prefix_note_;
}

void CompileProbe::FollowLeadingBlock(const std::string &block, const std::string &text,
                                      unsigned slot) {
  constexpr unsigned kSeenBeforeRebuild = 3; // the reducer's new text, not one candidate's
  constexpr unsigned kMaxRebuilds = 8;
  {
    std::lock_guard lock(prefix_mutex_);
    if (block.empty() || rebuilds_ >= kMaxRebuilds || ++other_blocks_[block] != kSeenBeforeRebuild)
      return;
    ++rebuilds_;
  }
  const fs::path folder = scratch_ / fmt::format("prefix-{}", rebuilds_);
  if (!BuildPrefix(folder, block).empty())
    return;
  const fs::path header = folder / "prefix.h";
  if (Compile(text, slot, {.syntax_only = syntax_only_, .prefix = true, .prefix_header = header}) !=
      Compile(text, slot, {.syntax_only = syntax_only_}))
    return;
  std::lock_guard lock(prefix_mutex_);
  leading_block_ = block;
  prefix_header_ = header;
  other_blocks_.clear();
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
  // A command's own -include files (Inductor's precompiled-header wrapper, with
  // -D TORCH_INDUCTOR_PRECOMPILE_HEADERS) go into ours: a compiler takes one precompiled header,
  // and theirs holds only torch's prefix, not the TU's other headers.
  own_includes_.clear();
  std::string missing;
  for (std::size_t i = 1; i + 1 < argv_.size(); ++i)
    if (argv_[i] == "-include") {
      if (fs::is_regular_file(argv_[i + 1]))
        own_includes_ += support::ReadTextFile(argv_[i + 1], "header", 1 << 20) + "\n";
      else
        missing = argv_[i + 1];
    }
  const auto started = std::chrono::steady_clock::now();
  std::string why_not;
  if (!missing.empty())
    why_not = fmt::format("the command's -include {} is gone", missing);
  else if (leading_block_.empty())
    why_not = "the TU does not start with #include lines";
  else if (auto failed = BuildPrefix(scratch_ / "prefix", leading_block_); !failed.empty())
    why_not = "its #include lines do not compile alone: " + failed;
  else if (const auto with_prefix = Compile(text, slot,
                                            {.syntax_only = syntax_only_,
                                             .prefix = true,
                                             .prefix_header = scratch_ / "prefix" / "prefix.h"});
           with_prefix != full)
    why_not = fmt::format("the TU fails differently with it (\"{}\", without: \"{}\")",
                          with_prefix.first_error.substr(0, 80), full.first_error.substr(0, 80));
  use_prefix_ = why_not.empty();
  if (use_prefix_)
    prefix_header_ = scratch_ / "prefix" / "prefix.h";
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string front = syntax_only_ ? "front end only (-fsyntax-only)" : "whole builds";
  prefix_note_ =
      use_prefix_
          ? fmt::format("reduce: {}: {}, with a precompiled prefix of the TU's {} leading "
                        "#include line(s){} (built in {:.0f} s)",
                        fs::path(argv_[0]).filename().string(), front,
                        std::count(leading_block_.begin(), leading_block_.end(), '\n'),
                        own_includes_.empty() ? "" : " and the command's own -include", seconds)
          : fmt::format("reduce: {}: {}, WITHOUT a precompiled prefix (every candidate parses "
                        "every header): {}",
                        fs::path(argv_[0]).filename().string(), front, why_not);
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
    if (word.empty() || word[0] != '-' || parsers::IsLinkArgument(word))
      if (!(i > 0 && (argv_[i - 1] == "-D" || argv_[i - 1] == "-I" || argv_[i - 1] == "-U" ||
                      argv_[i - 1] == "-isystem" || argv_[i - 1] == "-iquote")))
        continue;
    flags.push_back(word);
  }
  return flags;
}

std::string CompileProbe::BuildPrefix(const fs::path &folder, const std::string &block) {
  fs::create_directories(folder);
  std::ofstream(folder / "prefix.h", std::ios::trunc) << own_includes_ + block;
  const auto prefix = parsers::PrefixBeside(folder / "prefix.h", family_);
  std::vector<std::string> compile = {argv_[0]};
  const auto flags = Flags();
  compile.insert(compile.end(), flags.begin(), flags.end());
  compile.insert(compile.end(), {prefix.header.string(), "-o", prefix.precompiled.string()});
  // Its templates are instantiated in each candidate, as in the original build: an error in
  // one is reported where the TU's own build reports it.
  const auto argv = parsers::PrecompileCommand(compile, prefix, family_,
                                               /*instantiate_templates=*/false);
  const std::string output = prefix.precompiled.string();
  const auto result = RunCommand(argv, {}, timeout_ * 4, 1 << 20);
  if (result.timed_out)
    return fmt::format("timed out after {} s", (timeout_ * 4).count());
  if (!result.status.Succeeded() || !fs::exists(output)) {
    for (const auto &diagnostic : parsers::ParseCompilerText(result.output, family_))
      if (diagnostic.severity == "error" || diagnostic.severity == "fatal error")
        return diagnostic.message;
    return result.status.Describe();
  }
  return "";
}

CompileOutcome CompileProbe::Compile(const std::string &text, unsigned slot, RunMode mode) const {
  const fs::path source =
      WriteCandidate(scratch_, slot, fs::path(argv_[source_index_]).filename().string(), text);
  std::vector<std::string> argv = {argv_[0]};
  // Quoted #includes still resolve next to the original.
  argv.insert(argv.end(), {"-iquote", fs::absolute(argv_[source_index_]).parent_path().string()});
  if (mode.prefix)
    argv.insert(argv.end(), {"-include", mode.prefix_header.string()});
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
