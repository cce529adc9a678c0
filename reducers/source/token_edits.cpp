#include "reducers/source/token_edits.h"

#include <clang/Basic/IdentifierTable.h>
#include <clang/Basic/LangOptions.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <map>
#include <set>

namespace reducers {
namespace {

clang::LangOptions CppLanguage() {
  clang::LangOptions language;
  language.CPlusPlus = language.CPlusPlus11 = language.CPlusPlus14 = language.CPlusPlus17 =
      language.CPlusPlus20 = true;
  language.LineComment = true;
  language.Bool = true;
  return language;
}

std::string_view Spelling(const std::string &text, const Token &token) {
  return std::string_view(text).substr(token.offset, token.length);
}

} // namespace

std::vector<Token> LexTokens(const std::string &text) {
  const clang::LangOptions language = CppLanguage();
  clang::Lexer lexer(clang::SourceLocation(), language, text.data(), text.data(),
                     text.data() + text.size());
  lexer.SetCommentRetentionState(false);
  std::vector<Token> tokens;
  clang::Token token;
  while (true) {
    lexer.LexFromRawLexer(token);
    if (token.is(clang::tok::eof))
      break;
    const char *end = lexer.getBufferLocation();
    const std::size_t length = token.getLength();
    const std::size_t offset = static_cast<std::size_t>(end - text.data()) - length;
    tokens.push_back({offset, length, token.is(clang::tok::raw_identifier)});
  }
  return tokens;
}

std::vector<SourceEdit> TokenChunkEdits(const std::string &text, std::size_t largest_chunk) {
  const auto tokens = LexTokens(text);
  // Braces before each token, so that a run that would leave a `{` or a `}` alone is not
  // proposed: such a text is no longer C++ a person would read, and it rarely keeps the error.
  std::vector<long> braces(tokens.size() + 1, 0);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const auto spelling = Spelling(text, tokens[i]);
    braces[i + 1] = braces[i] + (spelling == "{") - (spelling == "}");
  }
  std::vector<SourceEdit> edits;
  std::size_t chunk = 1;
  while (chunk * 2 <= std::min(largest_chunk, tokens.size() / 2))
    chunk *= 2;
  for (; chunk >= 1; chunk /= 2) {
    // Big runs at their aligned places; runs of up to 4 tokens from every token, which is
    // what removes `[i]` or `for (long i;;)` without breaking what is around it.
    const std::size_t step = chunk <= 4 ? 1 : chunk;
    for (std::size_t first = 0; first + (step == 1 ? chunk - 1 : 0) < tokens.size();
         first += step) {
      const std::size_t last = std::min(first + chunk, tokens.size()) - 1;
      if (braces[last + 1] != braces[first])
        continue;
      const std::size_t begin = tokens[first].offset;
      const std::size_t end = tokens[last].offset + tokens[last].length;
      edits.push_back({begin, end - begin, ""});
    }
  }
  // What the runs may not do: a `{` and its matching `}` out together (one edit of the whole
  // text, as they are apart), innermost first.
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const auto spelling = Spelling(text, tokens[i]);
    if (spelling == "{") {
      open.push_back(i);
    } else if (spelling == "}" && !open.empty()) {
      const Token &first = tokens[open.back()], &last = tokens[i];
      open.pop_back();
      std::string without = text.substr(0, first.offset);
      without.append(text, first.offset + first.length, last.offset - first.offset - first.length);
      without.append(text, last.offset + last.length);
      edits.push_back({0, text.size(), std::move(without)});
    }
  }
  return edits;
}

std::vector<SourceEdit> ZeroInitializerEdits(const std::string &text) {
  const auto tokens = LexTokens(text);
  auto spelling = [&](std::size_t i) { return Spelling(text, tokens[i]); };
  std::vector<SourceEdit> edits;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (spelling(i) != "=")
      continue;
    std::size_t end = i + 1; // one past the initializer's last token
    for (int depth = 0; end < tokens.size(); ++end) {
      const auto word = spelling(end);
      if (depth == 0 && (word == ";" || word == ","))
        break;
      if (word == "(" || word == "[" || word == "{")
        ++depth;
      else if (word == ")" || word == "]" || word == "}") {
        if (depth == 0)
          break;
        --depth;
      }
    }
    bool names_something = false; // a name replaced by 0 keeps the size but not the name
    for (std::size_t k = i + 1; k < end; ++k)
      names_something |= tokens[k].identifier;
    if (end == i + 1 || (end == i + 2 && spelling(i + 1) == "0") ||
        (!names_something &&
         tokens[end - 1].offset + tokens[end - 1].length - tokens[i + 1].offset <= 1))
      continue;
    const std::size_t begin = tokens[i + 1].offset;
    edits.push_back({begin, tokens[end - 1].offset + tokens[end - 1].length - begin, "0"});
  }
  return edits;
}

std::vector<SourceEdit> JoinDeclarationEdits(const std::string &text) {
  const auto tokens = LexTokens(text);
  auto spelling = [&](std::size_t i) { return Spelling(text, tokens[i]); };
  // A token on a line that starts with '#' belongs to a directive, not to a statement.
  std::vector<bool> in_directive(tokens.size(), false);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::size_t line_start = text.rfind('\n', tokens[i].offset);
    const std::size_t first =
        text.find_first_not_of(" \t", line_start == std::string::npos ? 0 : line_start + 1);
    in_directive[i] = first < text.size() && text[first] == '#';
  }
  auto bounds_statement = [&](std::size_t i) {
    const auto word = spelling(i);
    return in_directive[i] || word == ";" || word == "{" || word == "}";
  };
  std::vector<SourceEdit> edits;
  std::size_t start = 0; // the first token of the statement that ends at the next ';'
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (bounds_statement(i) && spelling(i) != ";") {
      start = i + 1;
      continue;
    }
    if (spelling(i) != ";")
      continue;
    const std::size_t first_length = i - start;
    std::size_t second_length = 0;
    while (i + 1 + second_length < tokens.size() && !bounds_statement(i + 1 + second_length))
      ++second_length;
    std::size_t shared = 0;
    while (shared < first_length && shared < second_length &&
           spelling(start + shared) == spelling(i + 1 + shared))
      ++shared;
    for (std::size_t k = std::min({shared, first_length - 1, second_length - 1}); k >= 1; --k) {
      const std::size_t end = tokens[i + k].offset + tokens[i + k].length;
      edits.push_back({tokens[i].offset, end - tokens[i].offset, ","});
    }
    start = i + 1;
  }
  return edits;
}

std::vector<SourceEdit> RenameIdentifierEdits(const std::string &text) {
  const clang::LangOptions language = CppLanguage();
  clang::IdentifierTable keywords(language);
  const auto tokens = LexTokens(text);
  std::map<std::string, std::vector<std::size_t>> uses; // name -> token offsets
  for (const auto &token : tokens)
    if (token.identifier)
      uses[text.substr(token.offset, token.length)].push_back(token.offset);
  std::set<std::string> taken;
  for (const auto &[name, offsets] : uses)
    taken.insert(name);
  auto unused_name = [&]() {
    for (std::size_t n = 0;; ++n) {
      std::string name;
      for (std::size_t k = n;; k = k / 26 - 1) {
        name.insert(name.begin(), static_cast<char>('a' + k % 26));
        if (k < 26)
          break;
      }
      if (!taken.contains(name) && !keywords.get(name).isKeyword(language))
        return name;
    }
  };
  // Longest savings first: each candidate renames every use of one name.
  std::vector<std::pair<std::size_t, std::string>> by_saving;
  for (const auto &[name, offsets] : uses)
    if (name.size() > 1 && !keywords.get(name).isKeyword(language))
      by_saving.emplace_back((name.size() - 1) * offsets.size(), name);
  std::stable_sort(by_saving.begin(), by_saving.end(),
                   [](const auto &a, const auto &b) { return a.first > b.first; });
  std::vector<SourceEdit> edits;
  const std::string short_name = unused_name();
  for (const auto &[saving, name] : by_saving) {
    if (short_name.size() >= name.size())
      continue;
    std::string renamed;
    std::size_t copied = 0;
    for (std::size_t offset : uses[name]) {
      renamed.append(text, copied, offset - copied);
      renamed += short_name;
      copied = offset + name.size();
    }
    renamed.append(text, copied);
    edits.push_back({0, text.size(), std::move(renamed)});
  }
  return edits;
}

std::size_t CountTokens(const std::string &text) { return LexTokens(text).size(); }

} // namespace reducers
