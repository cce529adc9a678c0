#include "parsers/clang_checks.h"

#include <clang/Basic/DiagnosticLex.h>
#include <clang/Basic/DiagnosticSema.h>

#include <array>

namespace parsers {

namespace {

constexpr std::string_view kConflict = "conflicting-declaration";

const std::array kChecks = {
    ClangCheck{clang::diag::err_redefinition, "err_redefinition", kConflict, "redefinition", false},
    ClangCheck{clang::diag::err_redefinition_different_type, "err_redefinition_different_type",
               kConflict, "conflicting-types", true},
    ClangCheck{clang::diag::err_redefinition_different_kind, "err_redefinition_different_kind",
               kConflict, "different-kind-of-symbol", false},
    ClangCheck{clang::diag::err_redefinition_different_typedef,
               "err_redefinition_different_typedef", kConflict, "conflicting-types", true},
    ClangCheck{clang::diag::err_conflicting_types, "err_conflicting_types", kConflict,
               "conflicting-types", false},
    ClangCheck{clang::diag::err_ovl_diff_return_type, "err_ovl_diff_return_type", kConflict,
               "return-type-only", false},
    ClangCheck{clang::diag::err_static_non_static, "err_static_non_static", kConflict,
               "conflicting-linkage", false},
    ClangCheck{clang::diag::err_non_static_static, "err_non_static_static", kConflict,
               "conflicting-linkage", false},
    ClangCheck{clang::diag::err_different_language_linkage, "err_different_language_linkage",
               kConflict, "conflicting-linkage", false},
    ClangCheck{clang::diag::err_redefinition_of_enumerator, "err_redefinition_of_enumerator",
               kConflict, "redefinition", false},
    ClangCheck{clang::diag::err_duplicate_member, "err_duplicate_member", kConflict,
               "duplicate-member", false},
    ClangCheck{clang::diag::ext_pp_macro_redef, "ext_pp_macro_redef", kConflict,
               "macro-redefinition", false},
    ClangCheck{clang::diag::warn_decl_shadow, "warn_decl_shadow", "shadowing", "shadowed-local",
               false},
};

} // namespace

const ClangCheck *FindClangCheck(unsigned diagnostic_id) {
  for (const auto &check : kChecks)
    if (check.diagnostic_id == diagnostic_id)
      return &check;
  return nullptr;
}

} // namespace parsers
