#pragma once

#include "parsers/conflict.h"
#include "parsers/diagnostics.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace parsers {

// One gcc (or nvcc) diagnostic message (they have no IDs: the message, as a pattern) and the
// check of ours Clang's matching diagnostic feeds, so one conflict has one name whichever
// compiler saw it.
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

// nvcc's front end words its errors its own way (`"i" has already been declared in the current
// scope`, `function "f" has already been defined (previous definition at line 2)`): one
// pattern per message, with the same check names. Its messages give no column, and the earlier
// place only as `at line N`.
std::span<const GccCheck> NvccChecks();

// nvcc's errors (ParseCompilerText of its output) that are declaration conflicts, as findings
// like ClassifyGccDiagnostics's.
std::vector<Conflict> ClassifyNvccDiagnostics(const std::vector<CompilerDiagnostic> &diagnostics,
                                              const std::string &compiler,
                                              const std::vector<FunctionLines> &functions);

} // namespace parsers
