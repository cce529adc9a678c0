#pragma once

#include <string_view>

namespace parsers {

// The name a Clang diagnostic ID has in Clang's .td files (err_redefinition, warn_decl_shadow),
// for the Clang we link. Empty for an ID it does not know (a custom diagnostic).
std::string_view ClangDiagnosticName(unsigned diagnostic_id);

} // namespace parsers
