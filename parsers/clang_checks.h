#pragma once

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

// The registration list: every Clang diagnostic the analysis turns into a finding.
const ClangCheck *FindClangCheck(unsigned diagnostic_id);

} // namespace parsers
