#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace parsers {

// How one captured compiler flag is carried over to the Clang that analyses the TU.
enum class FlagMatch { kExact, kPrefix };
enum class FlagAction {
  kKeep,          // Clang understands it as the compiler did
  kKeepWithValue, // the flag and the separate argument after it
  kDrop,          // builds, links or gcc-only: no meaning for a syntax-only parse
  kDropWithValue, // the flag and the separate argument after it
};

struct FlagRule {
  std::string_view pattern;
  FlagMatch match;
  FlagAction action;
  std::string_view why;
};

// The one table that maps gcc/Inductor flags to the analysis; tested rule by rule.
const std::vector<FlagRule> &FlagRules();

struct TranslatedCommand {
  std::vector<std::string> clang_args; // no program name, no inputs
  std::vector<std::string> sources;    // the C++ inputs of the command
  std::vector<std::string> dropped;    // what the table removed, for the record
};

// Translates a captured argv (argv[0] is the compiler) for Clang's syntax-only analysis.
TranslatedCommand TranslateForClang(const std::vector<std::string> &argv);

bool IsCppSource(std::string_view path);
// A CUDA source (.cu): Clang parses it as CUDA, nvcc compiles it.
bool IsCudaSource(std::string_view path);

} // namespace parsers
