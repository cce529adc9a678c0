// Compiled without RTTI, like the LLVM it includes.
#include "parsers/clang_diagnostic_names.h"

#include <clang/Basic/AllDiagnostics.h>

#include <algorithm>
#include <vector>

namespace parsers {
namespace {

struct NamedDiagnostic {
  unsigned id;
  std::string_view name;
};

// Every diagnostic of Clang's tables, from the same .inc files Clang is built from. A constant
// array (not a vector's initializer list, which g++ took three minutes to compile at -O2).
constexpr NamedDiagnostic kDiagnostics[] = {
#define DIAG(ENUM, ...) NamedDiagnostic{clang::diag::ENUM, #ENUM},
#include <clang/Basic/DiagnosticASTKinds.inc>
#include <clang/Basic/DiagnosticAnalysisKinds.inc>
#include <clang/Basic/DiagnosticCommentKinds.inc>
#include <clang/Basic/DiagnosticCommonKinds.inc>
#include <clang/Basic/DiagnosticCrossTUKinds.inc>
#include <clang/Basic/DiagnosticDriverKinds.inc>
#include <clang/Basic/DiagnosticFrontendKinds.inc>
#include <clang/Basic/DiagnosticInstallAPIKinds.inc>
#include <clang/Basic/DiagnosticLexKinds.inc>
#include <clang/Basic/DiagnosticParseKinds.inc>
#include <clang/Basic/DiagnosticRefactoringKinds.inc>
#include <clang/Basic/DiagnosticSemaKinds.inc>
#include <clang/Basic/DiagnosticSerializationKinds.inc>
#undef DIAG
};

// The table sorted by ID, once.
const std::vector<NamedDiagnostic> &Diagnostics() {
  static const std::vector<NamedDiagnostic> sorted = [] {
    std::vector<NamedDiagnostic> diagnostics(std::begin(kDiagnostics), std::end(kDiagnostics));
    std::sort(diagnostics.begin(), diagnostics.end(),
              [](const NamedDiagnostic &a, const NamedDiagnostic &b) { return a.id < b.id; });
    return diagnostics;
  }();
  return sorted;
}

} // namespace

std::string_view ClangDiagnosticName(unsigned diagnostic_id) {
  const auto &diagnostics = Diagnostics();
  const auto found =
      std::lower_bound(diagnostics.begin(), diagnostics.end(), diagnostic_id,
                       [](const NamedDiagnostic &entry, unsigned id) { return entry.id < id; });
  return found != diagnostics.end() && found->id == diagnostic_id ? found->name
                                                                  : std::string_view();
}

} // namespace parsers
