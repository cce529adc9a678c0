// flex_attention: attention with mask_mod's block mask and score_mod, against a float64
// reference. Its arguments are still the case's "attention" field
// (corpus/case_attention_fields.cpp).
#include "apis/api.h"

namespace apis {

Api FlexAttention() {
  return {.name = "flex_attention",
          .corpus = {.noun = "flex_attention call"},
          .generate = {},
          .reduce = {.demotes = true}}; // to create_block_mask or create_mask
}

} // namespace apis
