#include "corpus/case_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

// The case reader's checks across fields: what each field allows alone is checked where it is
// read (case_reader.cpp); what fields must agree on is checked here, once they are all read.
namespace corpus {

namespace {

// The shape is one: a block mask used by flex_attention must agree with the inputs.
void CheckShapesAgree(const BlockMaskArguments &mask, const AttentionArguments &a) {
  if (!a.use_block_mask)
    return;
  auto disagree = [](const char *what, std::int64_t mask_value, std::int64_t input_value) {
    throw CaseError(fmt::format("create_block_mask.{} is {} but attention.{} is {}; give the shape "
                                "once (version 2 cases may leave attention's out)",
                                what, mask_value, what, input_value));
  };
  if (mask.q_len != a.q_len)
    disagree("Q_LEN", mask.q_len, a.q_len);
  if (mask.kv_len != a.kv_len)
    disagree("KV_LEN", mask.kv_len, a.kv_len);
  if (mask.batch && *mask.batch != 1 && *mask.batch != a.batch)
    disagree("B", *mask.batch, a.batch);
  if (mask.heads && *mask.heads != 1 && *mask.heads != a.q_heads)
    throw CaseError(fmt::format("create_block_mask.H is {} but attention.Hq is {}; use 1, null or "
                                "Hq",
                                *mask.heads, a.q_heads));
}

// A ready-made block mask's kv_indices (and full_kv_indices) list KV blocks that exist, and its
// counts are at most the number of KV blocks.
void CheckBlockIndices(const Case &c) {
  const auto &names = c.attention->block_mask_tensors;
  const std::int64_t kv_block = c.create_block_mask.block_size.back();
  const std::int64_t columns = (c.attention->kv_len + kv_block - 1) / kv_block;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto tensor = std::find_if(c.tensors.begin(), c.tensors.end(),
                                     [&](const CapturedTensor &t) { return t.name == names[i]; });
    if (tensor->IsFloating())
      throw CaseError(fmt::format("field 'attention.block_mask_tensors' names '{}', a {} tensor; "
                                  "block counts and indices are integers (int32)",
                                  tensor->name, tensor->dtype));
    const bool indices = i % 2 == 1;
    const std::int64_t highest = indices ? columns - 1 : columns;
    for (const std::int64_t value : tensor->integers)
      if (value < 0 || value > highest)
        throw CaseError(fmt::format(
            "tensor '{}' ({} of the block mask) holds {}, outside 0..{}: KV_LEN {} in blocks of {} "
            "has {} KV blocks",
            tensor->name, indices ? "block indices" : "block counts", value, highest,
            c.attention->kv_len, kv_block, columns));
  }
}

} // namespace

// flex_attention's arguments agree with the block mask's shapes and name tensors the case holds.
void CheckAttentionAgrees(const Case &c) {
  CheckShapesAgree(c.create_block_mask, *c.attention);
  std::set<std::string> names;
  for (const auto &tensor : c.tensors)
    names.insert(tensor.name);
  for (const auto *list : {&c.attention->qkv, &c.attention->block_mask_tensors})
    for (const auto &name : *list)
      if (!names.contains(name))
        throw CaseError(fmt::format("field 'attention' uses the tensor '{}', which 'tensors' "
                                    "does not hold",
                                    name));
  if (c.attention->from_kv_blocks && !c.create_block_mask.separate_full_blocks &&
      c.attention->from_kv_blocks->full != "contiguous")
    throw CaseError("field 'attention.from_kv_blocks.full' lays out the full blocks, but "
                    "create_block_mask.separate_full_blocks is false (there are none): remove one");
  CheckBlockIndices(c);
}

// The constants are named apart from the case's tensors and functions.
void CheckConstantNames(const Case &c) {
  std::set<std::string> taken;
  for (const auto &tensor : c.tensors)
    taken.insert(tensor.name);
  for (const auto *function : {&c.mask_mod, &c.score_mod})
    if (*function)
      taken.insert((*function)->name);
  for (const auto &[name, value] : c.constants.items())
    if (taken.contains(name))
      throw CaseError(fmt::format("field 'constants' has '{}', which also names a tensor or a "
                                  "function of the case; rename the constant",
                                  name));
}

} // namespace corpus
