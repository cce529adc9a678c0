#pragma once

#include "corpus/finding.h"
#include "parsers/conflict.h"

#include <string>
#include <vector>

namespace parsers {

enum class CompilerFamily { kGcc, kClang, kNvcc };

// One diagnostic a compiler printed, with the notes that belong to it.
struct CompilerDiagnostic {
  std::string severity; // "error", "fatal error", "warning", "note"
  std::string option;   // the warning flag, e.g. "-Wunused-variable", when the compiler names it
  std::string message;
  std::string message_template; // the message without names' numbers, paths and hashes
  SourcePosition location;
  std::vector<CompilerDiagnostic> notes;
};

// gcc's -fdiagnostics-format=json output (gcc 10 and later).
std::vector<CompilerDiagnostic> ParseGccJson(const std::string &text);
// The text output of gcc, clang or nvcc (nvcc's own `file(line): error:` lines, and its host
// compiler's gcc-style lines).
std::vector<CompilerDiagnostic> ParseCompilerText(const std::string &text, CompilerFamily family);

// gcc, clang or nvcc, from the compiler's name or path (g++-12, /usr/bin/clang++-16, nvcc).
CompilerFamily FamilyOfCompiler(const std::string &program);
std::string FamilyName(CompilerFamily family);

// The finding of a failed compile: the family and the first error's message and option.
corpus::Finding CompileErrorFinding(CompilerFamily family,
                                    const std::vector<CompilerDiagnostic> &diagnostics);

} // namespace parsers
