// index_program: mask_mod on broadcast aranges of create_block_mask's shape, compiled on its own
// (its "index_program" field is still corpus/case_fields.cpp's, its repro short_repro.cpp's).
#include "apis/api.h"

namespace apis {

Api IndexProgram() {
  return {.name = "index_program",
          .corpus = {.noun = "index program", .format_version = 2},
          .generate = {.aoti = false},
          .reduce = {}};
}

} // namespace apis
