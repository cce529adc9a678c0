#pragma once

#include "parsers/diagnostics.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fuzzer::matrix {

// What a warning is, whatever words the compiler used: its diagnostic option (or, for the few
// warnings without one, the message's template) and the shape of the function it is in, with
// generated names' numbers dropped (`cpp_fused_sum_3` -> `cpp_fused_sum_N`, `tmp12` -> `tmpN`).
// Two compilers' warnings are the same when these are: "-Wunused-variable in cpp_fused_sum_N".
struct WarningIdentity {
  std::string option;
  std::string function; // empty when the warning is outside any function
  std::string Key() const;
  static WarningIdentity FromKey(std::string_view key);
  bool operator==(const WarningIdentity &) const = default;
};

// Numbers at the end of identifiers become N: the same generated name in another case.
std::string NameShape(std::string_view text);

// The function whose definition holds `line` (1-based) of a generated TU, as a shape: the last
// line at or above it that starts a definition at column 0. Inductor writes every function that
// way; empty when the line is before the first one.
std::string EnclosingFunctionShape(const std::vector<std::string> &lines, int line);

// The identity of each warning `diagnostics` holds on `source` (the TU's own lines only: torch's
// headers warn alike for every kernel), once each, in order.
std::vector<std::string> WarningKeys(const std::vector<parsers::CompilerDiagnostic> &diagnostics,
                                     const std::filesystem::path &source);

// A checked-in list of warnings that say nothing about a compiler upgrade, each with its reason.
// A line is `COMPILERS OPTION FUNCTION -- WHY`: COMPILERS is gcc, clang or *, FUNCTION a shape
// where * matches any text.
struct KnownWarning {
  std::string compilers;
  std::string option;
  std::string function;
  std::string reason;
  int line = 0;
};

class KnownWarnings {
public:
  // Throws support::InputError naming the line when an entry is malformed or gives no reason.
  static KnownWarnings Parse(std::string_view text, const std::string &origin);
  static KnownWarnings CheckedIn(); // fuzzer/matrix/known_warnings.txt, compiled in
  static KnownWarnings Read(const std::filesystem::path &path);

  // The entry that explains this warning of a build by `compiler` (g++-12, clang++-19...).
  const KnownWarning *Match(const std::string &compiler, std::string_view key) const;
  const std::vector<KnownWarning> &Entries() const { return entries_; }
  const std::string &Origin() const { return origin_; }

private:
  std::vector<KnownWarning> entries_;
  std::string origin_;
};

std::string_view CheckedInKnownWarnings();

} // namespace fuzzer::matrix
