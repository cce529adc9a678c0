#pragma once

// A precompiled prefix: a TU's leading #include lines as a header, precompiled once per
// compiler and flags and used by many compiles of TUs that start with them (the compiler
// matrix's builds, the source reducer's candidates). One place builds its command.

#include "parsers/diagnostics.h"

#include <filesystem>
#include <string>
#include <vector>

namespace parsers {

// The #include lines a TU opens with (Inductor's cpp_prefix.h and friends), comments and blank
// lines left out: what is worth precompiling once and sharing. Empty when it opens otherwise.
std::string LeadingIncludeBlock(const std::string &text);

// Every `#include <...>` line of a TU, in order of first appearance: what the analysis
// precompiles once per flag set.
std::string IncludedHeaders(const std::string &text);

// What of a TU can be precompiled ahead of it without changing what it means: its `#define`
// and `#include <...>` lines, in order. Empty when hoisting could change the meaning: the TU
// has conditional directives, `#undef` or `#include "..."`.
std::string HoistableDirectives(const std::string &text);

struct PrecompiledPrefix {
  std::filesystem::path header;
  std::filesystem::path precompiled; // header.gch (gcc finds it beside the header) or .pch
};

// Where `header`'s precompiled form goes for a compiler of `family`.
PrecompiledPrefix PrefixBeside(const std::filesystem::path &header, CompilerFamily family);

// Whether an argument only matters when linking (-shared, -l..., -L..., -Wl,...): a header is
// compiled, never linked.
bool IsLinkArgument(const std::string &argument);

// From `compile`, a command that compiles prefix.header to prefix.precompiled (a TU's own
// command with the header as its source): the command that precompiles it, without link
// arguments and with the header compiled as a header. `instantiate_templates` asks Clang to
// instantiate the header's templates once, in the prefix, instead of at the end of every TU
// that includes it (-fpch-instantiate-templates; gcc has no such option).
std::vector<std::string> PrecompileCommand(const std::vector<std::string> &compile,
                                           const PrecompiledPrefix &prefix, CompilerFamily family,
                                           bool instantiate_templates);

} // namespace parsers
