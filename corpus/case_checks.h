#pragma once

#include "corpus/case.h"

// Checks across a case's fields, run by the case reader once the fields are read (internal to
// corpus). Each throws CaseError naming the fields that disagree.
namespace corpus {

// flex_attention's arguments agree with the block mask's shapes, name tensors the case holds,
// and a ready-made block mask lists KV blocks that exist.
void CheckAttentionAgrees(const Case &c);
// The constants are named apart from the case's tensors and functions.
void CheckConstantNames(const Case &c);

} // namespace corpus
