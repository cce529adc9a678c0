// create_block_mask: the BlockMask of mask_mod over the case's shape, compared exactly. Most of
// what it does is still the layers' own code, which the mask APIs share (docs/extending.md).
#include "apis/api.h"

namespace apis {

Api CreateBlockMask() {
  return {.name = "create_block_mask",
          .corpus = {.noun = "block mask",
                     .returns_block_mask = true,
                     .issue_label = "module: flex attention"},
          .generate = {.weight = 4, .swaps_to = "create_mask", .makes_block_mask = true},
          .reduce = {.demotes_to = {"create_mask"}}};
}

} // namespace apis
