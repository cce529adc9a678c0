#pragma once

#include "parsers/conflict.h"
#include "parsers/diagnostics.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace parsers {

// One gcc diagnostic message (gcc has no IDs: its message, as a pattern) and the check of ours
// Clang's matching diagnostic feeds, so one conflict has one name whichever compiler saw it.
struct GccCheck {
  std::string_view message_pattern; // ECMAScript regex over the whole message
  std::string_view check;
};

std::span<const GccCheck> GccChecks();

// A main-file function: lets a gcc redefinition inside one be named like Clang's.
struct FunctionLines {
  std::string name;
  unsigned first_line = 0, last_line = 0;
};

// gcc's errors (from -fdiagnostics-format=json) that are declaration conflicts, as findings
// with the check names Clang's analysis uses; its other errors are left to the divergence.
std::vector<Conflict> ClassifyGccDiagnostics(const std::vector<CompilerDiagnostic> &diagnostics,
                                             const std::string &compiler,
                                             const std::vector<FunctionLines> &functions);

} // namespace parsers
