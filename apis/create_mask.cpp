// create_mask: the dense mask of mask_mod over the case's shape, the simplest mask API.
#include "apis/api.h"

namespace apis {

Api CreateMask() {
  return {.name = "create_mask",
          .corpus = {.noun = "mask", .issue_label = "module: flex attention"},
          .generate = {.weight = 2, .swaps_to = "create_block_mask", .becomes = "index_program"},
          .reduce = {.dense_mask = true}};
}

} // namespace apis
