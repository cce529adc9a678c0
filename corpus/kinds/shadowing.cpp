#include "corpus/kinds/kinds.h"

#include "corpus/kinds/key_parts.h"

namespace corpus::kinds::shadowing {
FindingKindRow Row() {
  return {.kind = FindingKind::kShadowing,
          .name = "shadowing",
          .detector = Detector::kCheck,
          .meaning = "a warning-level check: `-Wshadow` where the hidden name is a local or "
                     "parameter of the same function or lambda",
          .facts = {"check", "name", "type", "previous_type", "kernel"},
          .title = "generated C++ shadows a name",
          .expected = kRunsAsEager,
          .key = &DeclarationKey};
}

} // namespace corpus::kinds::shadowing
