#pragma once

#include "reducers/source/source_passes.h"

#include <cstddef>
#include <string>
#include <vector>

namespace reducers {

// A C++ token of a text, by Clang's raw lexer (no preprocessing; comments skipped).
struct Token {
  std::size_t offset = 0;
  std::size_t length = 0;
  bool identifier = false; // an identifier or keyword
};

std::vector<Token> LexTokens(const std::string &text);

// Delta debugging over tokens: every run of `chunk` tokens, for chunk = the largest power of
// two up to `largest_chunk` (and half the tokens), halving down to single tokens; never a run
// whose braces do not pair up; then each `{` with its matching `}`.
std::vector<SourceEdit> TokenChunkEdits(const std::string &text, std::size_t largest_chunk);

// What follows each `=` up to its `;` or `,` (outside brackets) replaced by 0, so that what
// an initializer names can go too, where Clang cannot parse the text to simplify it.
std::vector<SourceEdit> ZeroInitializerEdits(const std::string &text);

// Two neighbouring statements that start with the same tokens joined into one: `T a; T b;`
// becomes `T a, b;`, for each shared run of leading tokens shorter than either statement,
// longest first. Directive lines and braces bound a statement.
std::vector<SourceEdit> JoinDeclarationEdits(const std::string &text);

// Every use of one identifier renamed to the shortest name the text does not use, longest
// saving first; each candidate is the whole text.
std::vector<SourceEdit> RenameIdentifierEdits(const std::string &text);

} // namespace reducers
