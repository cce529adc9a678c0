#pragma once

#include <span>
#include <string_view>

namespace parsers {

// One of our checks, fed by one Clang diagnostic ID.
struct ClangCheck {
  unsigned diagnostic_id;
  std::string_view clang_name; // the ID's name in Clang's .td files
  std::string_view kind;       // oracle kind: "conflicting-declaration" or "shadowing"
  std::string_view check;      // our name for what went wrong
  bool types_in_arguments;     // the diagnostic carries (new type, old type)
};

// The registration list: every Clang diagnostic the analysis turns into a classified finding.
// Any other error Clang reports becomes an `unclassified-error` finding.
std::span<const ClangCheck> ClangChecks();
const ClangCheck *FindClangCheck(unsigned diagnostic_id);

// An error of Clang's redeclaration family (redeclaration, redefinition, conflicting types or
// linkage, duplicate members or parameters, shadowing) that is deliberately not registered.
struct LeftOutDiagnostic {
  unsigned diagnostic_id;
  std::string_view clang_name;
  std::string_view reason; // why generated C++ cannot produce it
};

// docs/redeclaration-checks.md lists these with the registered ones.
std::span<const LeftOutDiagnostic> LeftOutRedeclarationDiagnostics();

} // namespace parsers
