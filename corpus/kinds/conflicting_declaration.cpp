#include "corpus/kinds/kinds.h"

#include "corpus/kinds/key_parts.h"

namespace corpus::kinds::conflicting_declaration {
FindingKindRow Row() {
  return {.kind = FindingKind::kConflictingDeclaration,
          .name = "conflicting-declaration",
          .detector = Detector::kCheck,
          .meaning = "Clang finds a redeclaration or redefinition conflict, or one `extern \"C\"` "
                     "name with two signatures across linked TUs",
          .facts = {"check", "name", "type", "previous_type", "kernel"},
          .in_one_tu = true,
          .title = "generated C++ declares a name twice",
          .expected = kRunsAsEager,
          .key = &DeclarationKey};
}

} // namespace corpus::kinds::conflicting_declaration
