#pragma once

#include <string_view>

namespace workflows {

// How `reduce` came to a source's failure: what the interestingness test is, and so how
// repro.sh is judged, whether Clang gates candidates, and what reduction.json's "origin" says.
enum class SourceOrigin {
  kCompiler,           // --cpp with its command: the compiler's first error
  kAnalysis,           // our Clang analysis's first error (no command, or the command builds)
  kLog,                // --from-log (or --script's output): the CppCompileError it names
  kScript,             // --interesting: the user's C-Vise-style script decides
  kScriptAnalysis,     // --script: a TU the script compiled that our analysis flags
  kCompilerDivergence, // --compilers or --matrix-record: the compilers disagree on the TU
  kRuntimeDivergence,  // --compilers --run: the programs they build print differently
};

// The origin as reduction.json names it ("compiler", "compiler-divergence", ...).
constexpr std::string_view SourceOriginName(SourceOrigin origin) {
  switch (origin) {
  case SourceOrigin::kCompiler:
    return "compiler";
  case SourceOrigin::kAnalysis:
    return "analysis";
  case SourceOrigin::kLog:
    return "log";
  case SourceOrigin::kScript:
    return "script";
  case SourceOrigin::kScriptAnalysis:
    return "script-analysis";
  case SourceOrigin::kCompilerDivergence:
    return "compiler-divergence";
  case SourceOrigin::kRuntimeDivergence:
    return "runtime-divergence";
  }
  return "analysis"; // unreachable: every origin is named above
}

} // namespace workflows
