#include "corpus/kinds/kinds.h"

#include "corpus/kinds/key_parts.h"

namespace corpus::kinds::analysis_error {
FindingKindRow Row() {
  return {.kind = FindingKind::kAnalysisError, // Clang reported an error no check classified
          .name = "analysis-error",
          .detector = Detector::kCheck,
          .meaning =
              "Clang reported an error no registered check classifies, keyed by its diagnostic ID",
          .facts = {"check", "diagnostic", "origin", "name", "type", "previous_type", "kernel",
                    "because"},
          .in_one_tu = true,
          .title = "generated C++ is ill-formed",
          .expected = kRunsAsEager,
          .key = &DeclarationKey};
}

} // namespace corpus::kinds::analysis_error
