#pragma once

#include "reducers/source/source_passes.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace parsers {
class Analyzer;
}

namespace reducers {

// The candidates of the syntax-aware passes for one text, all from one Clang parse, each as
// libTooling replacements turned into edits, biggest cut first (removals: from the end back).
struct SyntaxEdits {
  std::vector<SourceEdit> remove_declarations;     // top-level and namespace-level declarations
  std::vector<SourceEdit> remove_declaration_runs; // runs of neighbouring declarations, halving
  std::vector<SourceEdit> empty_bodies;            // a function's body to {}
  std::vector<SourceEdit> remove_statements;       // one statement of a block
  std::vector<SourceEdit> remove_statement_runs;   // runs of a block's statements, halving
  std::vector<SourceEdit> unwrap_blocks;           // a loop, if or block to its body
  std::vector<SourceEdit> simplify_expressions;    // an expression to an operand, a literal to 0
  std::vector<SourceEdit> remove_parameters;       // a parameter of a function defined here
  std::vector<SourceEdit> slice_to_errors;         // see ErrorSliceEdits
  bool parsed = false;
};

// Parses `text` with Clang (its arguments and `pch`, the precompiled prefix `check` uses; with no
// arguments, the #include lines are blanked so that a TU whose headers are missing still parses)
// and collects the candidates. Errors in the text are expected: Clang's recovery keeps what it
// can.
SyntaxEdits CollectSyntaxEdits(const std::string &text, const std::vector<std::string> &clang_args,
                               const std::filesystem::path &pch);

// The errors Clang reports on `text`, parsed as CollectSyntaxEdits does (SIZE_MAX: no parse).
// A cheap gate before an expensive test: a candidate with more errors than the text it came
// from broke something the compiler will also see.
std::size_t CountParseErrors(const std::string &text, const std::vector<std::string> &clang_args,
                             const std::filesystem::path &pch);

// Remembers the last text's edits: every syntax pass asks for the same text in turn. ErrorsIn
// may be called from several threads at once.
class SyntaxCache {
public:
  explicit SyntaxCache(std::vector<std::string> clang_args,
                       const std::filesystem::path &prefix_cache_dir);
  ~SyntaxCache();
  const SyntaxEdits &EditsFor(const std::string &text);
  std::size_t ErrorsIn(const std::string &text); // CountParseErrors, remembered by text

private:
  std::filesystem::path PrefixFor(const std::string &text); // empty: none

  std::mutex mutex_;
  std::mutex prefix_mutex_; // the Analyzer that builds prefixes is not thread-safe
  std::vector<std::string> clang_args_;
  std::unique_ptr<parsers::Analyzer> prefixes_;
  std::string text_;
  SyntaxEdits edits_;
  std::unordered_map<std::size_t, std::size_t> error_counts_; // text hash -> errors
};

} // namespace reducers
