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
// two up to `largest_chunk` (and half the tokens), halving down to single tokens.
std::vector<SourceEdit> TokenChunkEdits(const std::string &text, std::size_t largest_chunk);

// Every use of one identifier renamed to the shortest name the text does not use, longest
// saving first; each candidate is the whole text.
std::vector<SourceEdit> RenameIdentifierEdits(const std::string &text);

} // namespace reducers
