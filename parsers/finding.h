#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace parsers {

struct SourcePosition {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  bool operator==(const SourcePosition &) const = default;
};

// One conflict found in generated C++: what clashed (name, both places, both types), in which
// kernel, and which check of ours (keyed by Clang's diagnostic, never its text) found it.
struct Finding {
  std::string kind = "conflicting-declaration"; // or "shadowing" (warning level)
  std::string check;                            // e.g. "variable-redeclared"
  std::string severity = "error";               // "error" or "warning"
  std::string clang_diagnostic;                 // e.g. "err_redefinition"; empty for cross-TU
  std::string name;
  SourcePosition location; // the later declaration
  SourcePosition previous; // the earlier one
  std::string type;
  std::string previous_type;
  std::string kernel; // the function the declaration is in, if any
  std::string message;
};

// Generated names reduced to their shape: every run of digits becomes <N>, so tmp_acc0_arr
// and tmp_acc3_arr, buf6_scalar and buf9_scalar are one bug each.
std::string NameShape(const std::string &name);

// What dedups: the kind, the check and the shapes of the name, types and kernel, without
// paths, lines or numbers that vary between runs. Shadowing (legal C++, a warning) has no
// signature unless asked for, so it never makes a finding of its own in a corpus.
std::string FindingSignature(const Finding &finding, bool include_shadowing = false);

nlohmann::json FindingToJson(const Finding &finding);

} // namespace parsers
