#pragma once

// The pieces the compiler-based interestingness tests share: a compile command run on
// candidates as cheaply as keeps its outcome, and the helpers that write candidates and repro
// commands. Internal to reducers/source.

#include "parsers/diagnostics.h"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace reducers {

// One word for a shell command: quoted unless it is plainly safe.
std::string ShellQuote(const std::string &word);
// A command for repro.sh, each word quoted where it needs it.
std::string JoinCommand(const std::vector<std::string> &argv);
// The candidate, written for one slot under the name the original had.
std::filesystem::path WriteCandidate(const std::filesystem::path &scratch, unsigned slot,
                                     const std::string &file_name, const std::string &text);

// What one compiler made of a candidate.
struct CompileOutcome {
  bool built = false;
  bool timed_out = false;
  bool crashed = false; // killed by a signal: an internal compiler error
  std::size_t errors = 0;
  std::string first_error; // the first error's message, as the matrix records it
  std::vector<parsers::CompilerDiagnostic> diagnostics;
  std::filesystem::path output;        // what it built, when it built it
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
  CompileProbe(std::vector<std::string> argv, std::size_t source_index,
               std::filesystem::path scratch, std::chrono::seconds timeout,
               ProbeOutput output = ProbeOutput::kVerdictOnly)
      : argv_(std::move(argv)), source_index_(source_index), scratch_(std::move(scratch)),
        timeout_(timeout), output_(output), family_(parsers::FamilyOfCompiler(argv_.at(0))) {}

  CompileOutcome Run(const std::string &text, unsigned slot);

  const std::vector<std::string> &argv() const { return argv_; }
  std::size_t source_index() const { return source_index_; }

  // Where a reduced program drifts into undefined behaviour, its output means nothing: a
  // function that falls off its end, a variable read before it is set. Both compilers warn.
  std::vector<std::string_view> UndefinedBehaviourWarnings() const;
  parsers::CompilerFamily family() const { return family_; }

  // One line on the precompiled prefix, once the first text decided it: on (what it holds, how
  // long it took to build) or off and why; empty before.
  std::string PrefixNote() const;

private:
  struct RunMode {
    bool syntax_only = false;
    bool prefix = false;                 // -include the precompiled leading #include block
    std::filesystem::path prefix_header; // which prefix (prefix.h beside its .gch / .pch)
  };

  void Decide(const std::string &text, unsigned slot);

  // The command's flags, without its source, output and -c: what the prefix is built with.
  std::vector<std::string> Flags() const;

  // The leading #include block compiled once, as gcc's .gch or clang's .pch beside prefix.h:
  // both compilers pick it up for `-include prefix.h` when the flags match.
  // `folder`: where, `block`: the leading #include block it precompiles (after the command's
  // own -include files). An empty answer: built; else what went wrong, one line.
  std::string BuildPrefix(const std::filesystem::path &folder, const std::string &block);

  // A candidate whose leading #include block is not the prefix's: once the same block has come
  // back often enough (the reducer took a text with it), the prefix is rebuilt for it, so that a
  // removed #include does not cost the prefix for the rest of the reduction.
  void FollowLeadingBlock(const std::string &block, const std::string &text, unsigned slot);

  CompileOutcome Compile(const std::string &text, unsigned slot, RunMode mode) const;

  std::vector<std::string> argv_;
  std::size_t source_index_;
  std::filesystem::path scratch_;
  std::chrono::seconds timeout_;
  ProbeOutput output_;
  parsers::CompilerFamily family_;
  std::once_flag decided_;
  bool syntax_only_ = false;
  bool use_prefix_ = false;
  std::string own_includes_; // the command's own -include files' text (Inductor's PCH wrapper)
  std::string prefix_note_;  // PrefixNote()
  mutable std::mutex prefix_mutex_; // guards the three below once the reduction runs
  std::string leading_block_;       // the leading #include lines the prefix holds
  std::filesystem::path prefix_header_;
  std::map<std::string, unsigned> other_blocks_; // leading blocks seen without a prefix: how often
  unsigned rebuilds_ = 0;
};

} // namespace reducers
