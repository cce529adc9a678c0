#include "reducers/source/source_passes.h"

#include "reducers/source/syntax_edits.h"
#include "reducers/source/token_edits.h"
#include "support/errors.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

namespace reducers {
namespace {

namespace fs = std::filesystem;

struct Line {
  std::size_t offset = 0;
  std::size_t length = 0; // with its newline
  std::string_view text;  // without it
};

std::vector<Line> SplitLines(const std::string &text) {
  std::vector<Line> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const std::size_t stop = end == std::string::npos ? text.size() : end + 1;
    lines.push_back(
        {start, stop - start,
         std::string_view(text).substr(start, (end == std::string::npos ? stop : end) - start)});
    start = stop;
  }
  return lines;
}

bool IsDirective(std::string_view line, std::string_view name) {
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos || line[first] != '#')
    return false;
  const auto word = line.find_first_not_of(" \t", first + 1);
  return word != std::string_view::npos && line.substr(word, name.size()) == name;
}

// Every line of one directive, each alone; all of them at once first.
std::vector<SourceEdit> DirectiveLines(const std::string &text, std::string_view name) {
  std::vector<SourceEdit> edits;
  for (const auto &line : SplitLines(text))
    if (IsDirective(line.text, name))
      edits.push_back({line.offset, line.length, ""});
  return edits;
}

std::vector<SourceEdit> SyntaxList(const std::string &text, const SourcePassContext &context,
                                   std::vector<SourceEdit> SyntaxEdits::*list) {
  return context.syntax->EditsFor(text).*list;
}

std::vector<SourceEdit> RemoveDeclarations(const std::string &text, const SourcePassContext &c) {
  return SyntaxList(text, c, &SyntaxEdits::remove_declarations);
}
std::vector<SourceEdit> RemoveDeclarationRuns(const std::string &text, const SourcePassContext &c) {
  return SyntaxList(text, c, &SyntaxEdits::remove_declaration_runs);
}
std::vector<SourceEdit> RemoveStatementRuns(const std::string &text, const SourcePassContext &c) {
  return SyntaxList(text, c, &SyntaxEdits::remove_statement_runs);
}
std::vector<SourceEdit> EmptyBodies(const std::string &text, const SourcePassContext &c) {
  return SyntaxList(text, c, &SyntaxEdits::empty_bodies);
}
std::vector<SourceEdit> RemoveStatements(const std::string &text, const SourcePassContext &c) {
  return SyntaxList(text, c, &SyntaxEdits::remove_statements);
}
std::vector<SourceEdit> UnwrapBlocks(const std::string &text, const SourcePassContext &c) {
  return SyntaxList(text, c, &SyntaxEdits::unwrap_blocks);
}
std::vector<SourceEdit> SimplifyExpressions(const std::string &text, const SourcePassContext &c) {
  return SyntaxList(text, c, &SyntaxEdits::simplify_expressions);
}
std::vector<SourceEdit> SliceToErrors(const std::string &text, const SourcePassContext &c) {
  return SyntaxList(text, c, &SyntaxEdits::slice_to_errors);
}
std::vector<SourceEdit> RemoveParameters(const std::string &text, const SourcePassContext &c) {
  return SyntaxList(text, c, &SyntaxEdits::remove_parameters);
}

std::vector<SourceEdit> DropPragmas(const std::string &text, const SourcePassContext &) {
  return DirectiveLines(text, "pragma");
}

std::vector<SourceEdit> RemoveIncludes(const std::string &text, const SourcePassContext &) {
  return DirectiveLines(text, "include");
}

// The header an #include names, looked up as the compiler would: a quoted absolute path, or
// the -I folders of the TU's arguments. Only Inductor's own prefix and quoted headers: inlining
// a system header would bring in the world.
std::optional<fs::path> InlinableHeader(std::string_view line,
                                        const std::vector<std::string> &clang_args) {
  const auto open = line.find_first_of("<\"");
  const auto close = open == std::string_view::npos ? open : line.find_first_of(">\"", open + 1);
  if (close == std::string_view::npos)
    return std::nullopt;
  const std::string name(line.substr(open + 1, close - open - 1));
  if (line[open] == '<' && name.find("cpp_prefix") == std::string::npos)
    return std::nullopt;
  if (fs::path(name).is_absolute())
    return fs::is_regular_file(name) ? std::optional<fs::path>(name) : std::nullopt;
  for (std::size_t i = 0; i < clang_args.size(); ++i) {
    std::string folder;
    if (clang_args[i] == "-I" || clang_args[i] == "-isystem")
      folder = i + 1 < clang_args.size() ? clang_args[i + 1] : "";
    else if (clang_args[i].starts_with("-I"))
      folder = clang_args[i].substr(2);
    if (!folder.empty() && fs::is_regular_file(fs::path(folder) / name))
      return fs::path(folder) / name;
  }
  return std::nullopt;
}

// The prefix header in place of its #include, so that what the failure needs of it can be
// trimmed like the rest. The one pass whose candidates grow the text.
std::vector<SourceEdit> InlinePrefix(const std::string &text, const SourcePassContext &context) {
  std::vector<SourceEdit> edits;
  for (const auto &line : SplitLines(text)) {
    if (!IsDirective(line.text, "include"))
      continue;
    if (const auto header = InlinableHeader(line.text, context.clang_args)) {
      std::string contents = support::ReadTextFile(*header, "header", 16u << 20);
      // A header's include guard or #pragma once would be meaningless in the TU.
      std::string kept;
      for (const auto &header_line : SplitLines(contents))
        if (!IsDirective(header_line.text, "pragma once"))
          kept.append(header_line.text).append("\n");
      edits.push_back({line.offset, line.length, std::move(kept)});
    }
  }
  return edits;
}

// Delta debugging over lines: runs of half the lines, a quarter, ... one line; never a run whose
// braces do not pair up (a lone `}` line), as the token runs.
std::vector<SourceEdit> RemoveLines(const std::string &text, const SourcePassContext &) {
  const auto lines = SplitLines(text);
  std::vector<long> braces(lines.size() + 1, 0);
  for (std::size_t i = 0; i < lines.size(); ++i)
    braces[i + 1] = braces[i] + std::count(lines[i].text.begin(), lines[i].text.end(), '{') -
                    std::count(lines[i].text.begin(), lines[i].text.end(), '}');
  std::vector<SourceEdit> edits;
  std::size_t chunk = 1;
  while (chunk * 2 <= lines.size() / 2)
    chunk *= 2;
  for (; chunk >= 1; chunk /= 2)
    for (std::size_t first = 0; first < lines.size(); first += chunk) {
      const std::size_t last = std::min(first + chunk, lines.size()) - 1;
      if (braces[last + 1] != braces[first])
        continue;
      edits.push_back(
          {lines[first].offset, lines[last].offset + lines[last].length - lines[first].offset, ""});
    }
  return edits;
}

std::vector<SourceEdit> RemoveTokens(const std::string &text, const SourcePassContext &) {
  return TokenChunkEdits(text, 16);
}

std::vector<SourceEdit> ZeroInitializers(const std::string &text, const SourcePassContext &) {
  return ZeroInitializerEdits(text);
}

std::vector<SourceEdit> JoinDeclarations(const std::string &text, const SourcePassContext &) {
  return JoinDeclarationEdits(text);
}

std::vector<SourceEdit> RenameIdentifiers(const std::string &text, const SourcePassContext &) {
  return RenameIdentifierEdits(text);
}

// Comments and blank lines out, all at once: one candidate.
std::vector<SourceEdit> StripComments(const std::string &text, const SourcePassContext &) {
  const auto tokens = LexTokens(text);
  std::string stripped;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (i > 0) {
      const std::string gap =
          text.substr(tokens[i - 1].offset + tokens[i - 1].length,
                      tokens[i].offset - tokens[i - 1].offset - tokens[i - 1].length);
      stripped += gap.find('\n') != std::string::npos ? "\n" : gap.empty() ? "" : " ";
    }
    stripped.append(text, tokens[i].offset, tokens[i].length);
  }
  if (!stripped.empty())
    stripped += "\n";
  if (stripped.size() >= text.size())
    return {};
  return {{0, text.size(), stripped}};
}

} // namespace

std::string ApplyEdit(const std::string &text, const SourceEdit &edit) {
  std::string result = text.substr(0, edit.offset);
  result += edit.replacement;
  result.append(text, std::min(text.size(), edit.offset + edit.length));
  return result;
}

SourcePassContext MakeSourcePassContext(std::vector<std::string> clang_args,
                                        std::filesystem::path prefix_cache_dir) {
  SourcePassContext context{.clang_args = clang_args, .prefix_cache_dir = prefix_cache_dir};
  context.syntax = std::make_shared<SyntaxCache>(std::move(clang_args), prefix_cache_dir);
  return context;
}

const std::vector<SourcePass> &SourcePasses() {
  static const std::vector<SourcePass> passes = {
      {"strip-comments", "comments out, every gap down to one space or newline", StripComments},
      {"slice-to-error",
       "the function holding a statement Clang reports an error in cut down to that statement and "
       "the declarations it needs, and the top-level declarations nothing kept needs removed "
       "(Clang)",
       SliceToErrors},
      {"remove-declarations", "a top-level or namespace-level declaration removed (Clang)",
       RemoveDeclarations},
      {"remove-declaration-runs",
       "runs of neighbouring declarations removed, halving from half a scope's to two (Clang)",
       RemoveDeclarationRuns},
      {"empty-bodies", "a function's body emptied to {} (Clang)", EmptyBodies},
      {"remove-statement-runs",
       "runs of a block's statements removed, halving from half the block to two (Clang)",
       RemoveStatementRuns},
      {"remove-statements", "a statement of a block removed (Clang)", RemoveStatements},
      {"unwrap-blocks",
       "a loop or if replaced by its body, a nested block by its statements (Clang)", UnwrapBlocks},
      {"simplify-expressions",
       "an expression replaced by an operand or argument, a cast by its operand, a literal by 0 "
       "(Clang)",
       SimplifyExpressions},
      {"remove-parameters", "a parameter of a function defined in the TU removed (Clang)",
       RemoveParameters},
      {"drop-pragmas", "a #pragma line removed", DropPragmas},
      {"remove-includes", "an #include line removed", RemoveIncludes},
      {"inline-prefix",
       "Inductor's prefix header (or a quoted header) pasted in place of its #include",
       InlinePrefix, true},
      {"remove-lines", "runs of lines removed, halving from half the text to one line",
       RemoveLines},
      {"remove-tokens", "runs of 16, 8, 4, 2 and 1 tokens removed (Clang's lexer)", RemoveTokens},
      {"zero-initializers",
       "what follows an `=` up to its `;` or `,` replaced by 0 (tokens: where Clang cannot parse)",
       ZeroInitializers, false, true},
      {"join-declarations",
       "two neighbouring statements with the same leading tokens joined: `T a; T b;` to `T a, b;`",
       JoinDeclarations},
      {"rename-identifiers", "every use of a name renamed to the shortest unused one",
       RenameIdentifiers},
  };
  return passes;
}

const SourcePass *FindSourcePass(std::string_view name) {
  for (const auto &pass : SourcePasses())
    if (pass.name == name)
      return &pass;
  return nullptr;
}

std::vector<const SourcePass *> LoadSourcePassOrder(const std::filesystem::path &file) {
  nlohmann::json order;
  try {
    order = nlohmann::json::parse(support::ReadTextFile(file, "pass order file", 1u << 20));
  } catch (const nlohmann::json::exception &error) {
    throw support::InputError(
        fmt::format("{} is not a pass order file ({}): give JSON like {{\"source_passes\": "
                    "[\"remove-declarations\", ...]}}",
                    file.string(), error.what()));
  }
  if (!order.is_object() || !order.contains("source_passes") ||
      !order["source_passes"].is_array() || order["source_passes"].empty())
    throw support::InputError(fmt::format(
        "{} has no \"source_passes\" list: give a non-empty list of pass names", file.string()));
  std::vector<const SourcePass *> passes;
  for (const auto &name : order["source_passes"]) {
    const SourcePass *pass = name.is_string() ? FindSourcePass(name.get<std::string>()) : nullptr;
    if (!pass) {
      std::string known;
      for (const auto &p : SourcePasses())
        known += (known.empty() ? "" : ", ") + std::string(p.name);
      throw support::InputError(fmt::format("{}: unknown source pass {}; the passes are: {}",
                                            file.string(), name.dump(), known));
    }
    passes.push_back(pass);
  }
  return passes;
}

std::size_t CountLines(const std::string &text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) +
         (!text.empty() && text.back() != '\n');
}

} // namespace reducers
