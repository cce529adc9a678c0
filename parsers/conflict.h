#pragma once

#include "corpus/finding.h"

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
struct Conflict {
  // "conflicting-declaration", "shadowing" (warning level) or "analysis-error" (an error no
  // check classifies: check "unclassified-error", keyed by clang_diagnostic)
  std::string kind = "conflicting-declaration";
  std::string check;              // e.g. "variable-redeclared"
  std::string severity = "error"; // "error" or "warning"
  std::string clang_diagnostic;   // e.g. "err_redefinition"; empty for cross-TU and gcc's
  std::string reported_by;        // the compiler, when it is not our Clang (check --compilers)
  std::string name;
  SourcePosition location; // the later declaration
  SourcePosition previous; // the earlier one
  std::string type;
  std::string previous_type;
  std::string kernel; // the function the declaration is in, if any
  std::string scope;  // of the later declaration: "namespace", "class", "function", "parameter"
  // Where the diagnostic points: "translation-unit", or "torch-headers" (the environment, not
  // the kernel) or "included-header".
  std::string origin = "translation-unit";
  std::string message;
  // Of an unclassified error, the first note Clang attached (its diagnostic ID, e.g.
  // "note_ovl_candidate_arity"): why no candidate fit, where the error's ID alone does not say.
  std::string note_diagnostic;
};

// The conflict as the corpus keeps it. The essence is the check and the shapes of the name,
// types and kernel (corpus::Signature normalises them), never paths or lines.
corpus::Finding ToFinding(const Conflict &conflict);

// The conflict for `check --format json`, with its corpus signature.
nlohmann::json ConflictToJson(const Conflict &conflict);

} // namespace parsers
