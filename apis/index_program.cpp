// index_program: mask_mod on broadcast aranges of create_block_mask's shape, compiled on its own.
// Its reduction is its own field of the case, "index_program" (corpus/case_index_fields.cpp); its
// short repro's body is reducers/case/short_repro.cpp's IndexProgramBody.
#include "apis/api.h"

#include "corpus/case_api_fields.h"
#include "reducers/case/repro_python.h"

namespace apis {

Api IndexProgram() {
  return {.name = "index_program",
          .corpus = {.noun = "index program",
                     .format_version = 2,
                     .one_call = true,
                     .fields = {{"index_program", &corpus::WriteIndexProgram,
                                 &corpus::ReadIndexProgram}}},
          .generate = {.aoti = false},
          .reduce = {.short_body = &reducers::repro::IndexProgramBody}};
}

} // namespace apis
