#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace reducers {

// One change to a source text: replace `length` bytes at `offset` by `replacement`. Every
// candidate is one edit, so a candidate is always smaller than the text it came from.
struct SourceEdit {
  std::size_t offset = 0;
  std::size_t length = 0;
  std::string replacement;
};

std::string ApplyEdit(const std::string &text, const SourceEdit &edit);

class SyntaxCache;

// What the syntax-aware passes parse with: the TU's own Clang arguments (from its compile
// command; empty: its #include lines are blanked and it is parsed on its own) and a cache of the
// last parse, so several passes over one text parse it once.
struct SourcePassContext {
  std::vector<std::string> clang_args;
  std::filesystem::path prefix_cache_dir; // precompiled prefixes, shared with `check`
  std::shared_ptr<SyntaxCache> syntax;    // made by MakeSourcePassContext
};

SourcePassContext MakeSourcePassContext(std::vector<std::string> clang_args,
                                        std::filesystem::path prefix_cache_dir);

// A deterministic pass: every text one edit away from `text`, in the order to try them. Passes
// never run anything; which candidates keep the failure is the reducer's business.
struct SourcePass {
  std::string_view name;
  std::string_view what;
  std::vector<SourceEdit> (*candidates)(const std::string &text, const SourcePassContext &context);
  bool grows = false; // its candidates may be larger (inlining a header): never "smaller only"
  // Its candidates may keep the size when they replace a name by `0` (`b = a` to `b = 0`): the
  // text then holds fewer identifiers, so the reduction still ends.
  bool may_keep_size = false;
};

// The one registration list.
const std::vector<SourcePass> &SourcePasses();
const SourcePass *FindSourcePass(std::string_view name);

// The pass order: a JSON file {"source_passes": [name, ...]}; unknown names are an InputError.
std::vector<const SourcePass *> LoadSourcePassOrder(const std::filesystem::path &file);

// The sizes reported before and after: C++ tokens (comments and whitespace not counted), lines.
std::size_t CountTokens(const std::string &text);
std::size_t CountLines(const std::string &text);

} // namespace reducers
