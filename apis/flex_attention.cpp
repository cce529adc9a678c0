// flex_attention: attention with mask_mod's block mask and score_mod, against a float64
// reference. Its arguments are its own field of the case, "attention"
// (corpus/case_attention_fields.cpp), written after the block mask's.
#include "apis/api.h"

#include "corpus/case_api_fields.h"

namespace apis {

Api FlexAttention() {
  return {.name = "flex_attention",
          .corpus = {.noun = "flex_attention call",
                     .mask_mod_optional = true,
                     .score_mod = true,
                     .call_dtype = true,
                     .issue_label = "module: flex attention",
                     .fields = {{"attention", &corpus::WriteAttention, &corpus::ReadAttention,
                                 "create_block_mask"}}},
          .generate = {.weight = 3, .attention = true, .makes_block_mask = true},
          .reduce = {.demotes_to = {"create_mask", "create_block_mask"}, .attention = true}};
}

} // namespace apis
