#include "fuzzer/generate/api_row.h"
#include "fuzzer/generate/case_builder.h"

#include <fmt/format.h>

#include <algorithm>

// Issue 47's families, drawn from their own stream so that a case without them is the case the
// same seed gave before: block masks built every way users build them, masks that leave rows,
// heads or partitions without a block, score programs of ATen pointwise ops, what flex_attention
// returns, a compiled function instead of the API, constants under names users give them.
namespace fuzzer::generate {

using E = Expression;

namespace {

// Constant names: ones a user writes, and ones shaped like the names Dynamo and Inductor give
// their own symbols (s0, ks1, zf0, u0), where a collision between the two can happen.
const std::map<std::string, std::vector<std::string>> kClosureNames = {
    {"user", {"n", "scale", "cap", "window", "offset", "bias", "size", "shift", "width", "limit"}},
    {"symbol_like", {"n0", "n1", "s0", "s1", "s2", "ks0", "ks1", "ks2", "u0", "zf0", "x0", "ps0"}},
};

// A mask made for every head alike (H=None) reads no h: its head-dependent patterns become one
// prefix for all heads.
std::string ReadableSparsePattern(const Structure &s, std::string pattern) {
  if (s.mask_may_not_read.contains("h") &&
      (pattern == "head_prefix" || pattern == "heads_without_keys"))
    return "kv_prefix";
  return pattern;
}

} // namespace

void CaseBuilder::DrawReach(Structure &s) {
  Random &random = reach_random_;
  // A create_mask case's mask as an index program compiled on its own (its row's `becomes`): one
  // call, no constants, and no .item() (which an index program, without vmap, may take).
  if (const std::string becomes(GenerateApiOf(s.api).becomes);
      !becomes.empty() && s.call_changes.empty() && !s.data_dependent &&
      ChanceFrom(random, "p_" + becomes, "api:" + becomes)) {
    s.api = becomes;
    s.index_reduction = DrawFrom(random, "index_reduction");
  }
  const GenerateApi &api = GenerateApiOf(s.api);
  const bool flex = api.attention;
  const bool skip_mask_score =
      s.kernel_options.is_object() && s.kernel_options.contains("SKIP_MASK_SCORE");
  if (!s.mask_parts.empty() && !skip_mask_score &&
      ChanceFrom(random, "p_sparse_mask", "reach:sparse_mask")) {
    s.sparse_mask = ReadableSparsePattern(s, DrawFrom(random, "sparse_mask"));
    // A data-dependent mask keeps its .item() part: the sparse pattern is and'ed in.
    s.sparse_mask_alone = random.Chance(0.5) && !s.data_dependent;
  }
  if (flex && !skip_mask_score && ChanceFrom(random, "p_score_program", "reach:score_program")) {
    const std::int64_t ops = random.Between(1, 2);
    for (std::int64_t i = 0; i < ops; ++i)
      s.score_program.push_back(DrawFrom(random, "score_program"));
  }
  const bool block_mask = api.makes_block_mask && (!flex || !s.mask_parts.empty());
  if (block_mask && ChanceFrom(random, "p_merged_blocks", "reach:separate_full_blocks=False"))
    s.separate_full_blocks = false;
  if (flex && !s.mask_parts.empty() &&
      ChanceFrom(random, "p_from_kv_blocks", "reach:from_kv_blocks")) {
    corpus::FromKvBlocks rebuilt;
    rebuilt.partial = DrawFrom(random, "block_tensor_layout");
    if (s.separate_full_blocks)
      rebuilt.full = DrawFrom(random, "block_tensor_layout");
    s.from_kv_blocks = rebuilt;
  }
  if (flex && ChanceFrom(random, "p_return_lse", "reach:return_lse"))
    s.return_lse = true;
  const bool index_program = s.api == corpus::kIndexProgram;
  if (!index_program && ChanceFrom(random, "p_function_scope", "reach:compiled_program"))
    s.compile_scope = DrawFrom(random, "compile_scope");
  // A module's tables are its buffers: a call that replaces tables replaces globals, which a
  // compiled function reads (the repro script cannot swap a module's buffers between calls).
  if (s.compile_scope == corpus::kCompileModule &&
      std::find(s.call_changes.begin(), s.call_changes.end(), "tables") != s.call_changes.end())
    s.compile_scope = corpus::kCompileFunction;
  if (!index_program && ChanceFrom(random, "p_closure", "reach:closure_constants"))
    s.closures = s.call_changes.empty();
  if ((s.closures || !s.call_changes.empty()) &&
      ChanceFrom(random, "p_named_constants", "reach:named_constants")) {
    const auto wanted = static_cast<std::size_t>(policy_.Number("max_closure_constants"));
    while (s.closure_names.size() < wanted) {
      const auto &pool = kClosureNames.at(DrawFrom(random, "closure_name"));
      const std::string name = random.Pick(pool);
      if (std::find(s.closure_names.begin(), s.closure_names.end(), name) == s.closure_names.end())
        s.closure_names.push_back(name);
    }
  }
  DrawKvCacheDecode(s);
}

// A serving model's decode step: a few query rows against a long KV cache, the cache's valid
// length as the mask (mostly per head, so that the heads' block counts differ and flash decoding
// cuts the KV by position, leaving whole partitions of some heads without a key; or empty, or one
// prefix for all) and, in some, a large additive bias (`score - 200`, an additive attention
// mask's), which softmax must ignore. Drawn last from the reach stream, so that a case without it
// is the case the same seed gave before.
void CaseBuilder::DrawKvCacheDecode(Structure &s) {
  Random &random = reach_random_;
  const bool skip_mask_score =
      s.kernel_options.is_object() && s.kernel_options.contains("SKIP_MASK_SCORE");
  if (!GenerateApiOf(s.api).attention || skip_mask_score ||
      !ChanceFrom(random, "p_kv_cache_decode", "reach:kv_cache_decode"))
    return;
  s.decode = true;
  if (s.mask_parts.empty()) {
    s.mask_form = "pattern";
    s.mask_parts = {"causal"};
  }
  s.sparse_mask = ReadableSparsePattern(s, DrawFrom(random, "kv_cache_mask"));
  s.sparse_mask_alone = !s.data_dependent && random.Chance(0.5);
  // The cache's length limits the mask: and'ed in, whatever the mask's parts were combined with.
  if (!s.sparse_mask_alone)
    s.and_masks = true;
  if (ChanceFrom(random, "p_kv_cache_bias", "reach:kv_cache_bias"))
    s.score_program.push_back("additive_mask_bias");
}

// Masks that leave parts of the attention without a single key: everything, every KV block
// past a prefix (whole flash-decoding partitions), heads past a head-dependent prefix or every
// other head, the rows below a threshold.
E CaseBuilder::SparsePattern(const std::string &pattern) {
  Random &random = reach_random_;
  const E q = E::Var("q_idx", ValueType::kInt), kv = E::Var("kv_idx", ValueType::kInt);
  const E h = E::Var("h", ValueType::kInt);
  if (pattern == "nothing")
    return E::Binary("<", kv, E::Int(random.Pick(std::vector<std::int64_t>{0, -1})));
  if (pattern == "kv_prefix")
    return E::Binary("<", kv,
                     E::Int(random.Pick(std::vector<std::int64_t>{
                         1, 17, 64, 127, 128, 129, 200, std::max<std::int64_t>(1, kv_len_ / 3)})));
  if (pattern == "head_prefix")
    return E::Binary("<", kv,
                     E::Binary("*", E::Int(random.Pick(std::vector<std::int64_t>{64, 128, 256})),
                               E::Binary("+", h, E::Int(1))));
  if (pattern == "heads_without_keys")
    return E::Binary("&", E::Binary("==", E::Binary("%", h, E::Int(2)), E::Int(0)),
                     E::Binary(">=", E::Binary("+", q, E::Int(kv_len_ - q_len_)), kv));
  // rows_without_keys: the rows from a threshold on see nothing.
  return E::Binary(
      "&", E::Binary("<", q, E::Int(random.Between(0, std::max<std::int64_t>(1, q_len_ - 1)))),
      E::Binary("<=", kv, E::Binary("+", q, E::Int(random.Between(0, 128)))));
}

// A score program: ATen pointwise ops on the score (or what a score_mod made of it), bounds
// (clamp, minimum, maximum, where), large shifts, and scores that ignore `score` or read only
// some indices.
E CaseBuilder::ScoreProgram(const std::vector<std::string> &ops, E score) {
  Random &random = reach_random_;
  const E q = E::Var("q_idx", ValueType::kInt), kv = E::Var("kv_idx", ValueType::kInt);
  auto eighths = [&](std::int64_t low, std::int64_t high) {
    return E::Float(static_cast<double>(random.Between(low, high)) / 8.0);
  };
  auto call = [](const std::string &function, std::vector<E> args) {
    return E::Call(function, std::move(args), ValueType::kFloat);
  };
  for (const std::string &op : ops) {
    if (op == "clamp") {
      const E low = eighths(-16, 0);
      score = call("torch.clamp",
                   {std::move(score), low, E::Float(low.real + random.Between(1, 16) / 8.0)});
    } else if (op == "minimum" || op == "maximum") {
      E bound =
          E::Binary("*", E::Binary("%", random.Chance(0.5) ? kv : q, E::Int(random.Between(2, 9))),
                    eighths(1, 4));
      score = call("torch." + op, {std::move(score), std::move(bound)});
    } else if (op == "where") {
      E condition = E::Binary(random.Chance(0.5) ? ">=" : "<", q, kv);
      score =
          call("torch.where", {std::move(condition), score, E::Binary("*", score, eighths(1, 12))});
    } else if (op == "shift") {
      score = E::Binary(random.Chance(0.8) ? "-" : "+", std::move(score),
                        E::Float(random.Pick(std::vector<double>{90.0, 100.0, 200.0, 1000.0})));
    } else if (op == "additive_mask_bias") { // past float32's exp range: exp(-200) == 0
      score = E::Binary("-", std::move(score),
                        E::Float(random.Pick(std::vector<double>{200.0, 1000.0, 10000.0})));
    } else if (op == "ignore_score") {
      score = E::Binary("*", random.Chance(0.5) ? kv : E::Binary("-", q, kv), eighths(1, 4));
    } else if (op == "some_indices") {
      const std::string index = random.Pick(std::vector<std::string>{"b", "h", "q_idx", "kv_idx"});
      score = E::Binary("+", std::move(score),
                        E::Binary("*", E::Var(index, ValueType::kInt), eighths(1, 4)));
    } else { // pointwise
      const std::string unary = DrawFrom(random, "pointwise_op");
      if (unary == "sqrt_abs")
        score = call("torch.sqrt", {call("torch.abs", {std::move(score)})});
      else if (unary == "log1p_abs")
        score = call("torch.log1p", {call("torch.abs", {std::move(score)})});
      else if (unary == "exp_tanh")
        score = call("torch.exp", {call("torch.tanh", {std::move(score)})});
      else if (unary == "square")
        score = E::Binary("*", score, score);
      else if (unary == "reciprocal")
        score = call("torch.reciprocal",
                     {E::Binary("+", call("torch.abs", {std::move(score)}), E::Float(1.0))});
      else if (unary == "neg")
        score = E::Unary("neg", std::move(score));
      else
        score = call("torch." + unary, {std::move(score)});
    }
  }
  return score;
}

void CaseBuilder::ApplyReach(const Structure &s, std::vector<E> &parts, std::optional<E> &score,
                             corpus::Case &c) {
  // The score program was applied where the score was drawn (DrawValues), under a float table.
  if (!s.sparse_mask.empty() && !parts.empty()) {
    E sparse = SparsePattern(s.sparse_mask);
    if (s.sparse_mask_alone)
      parts = {std::move(sparse)};
    else
      parts.push_back(std::move(sparse));
  }
  c.create_block_mask.separate_full_blocks = s.separate_full_blocks;
  c.index_reduction = s.index_reduction;
  if (c.attention) {
    c.attention->from_kv_blocks = s.from_kv_blocks;
    c.attention->return_lse = s.return_lse;
  }
  c.compile_scope = s.compile_scope;
  if (s.closures && s.call_changes.empty()) {
    std::vector<E *> literals;
    // SKIP_MASK_SCORE's mask keeps its block sizes literal, as a call sequence's does.
    if (c.attention == std::nullopt || !c.attention->kernel_options.is_object() ||
        !c.attention->kernel_options.contains("SKIP_MASK_SCORE"))
      for (auto &part : parts)
        CollectLiterals(part, literals);
    if (score)
      CollectLiterals(*score, literals);
    LiftConstants(s, std::move(literals), reach_random_, c);
  }
}

} // namespace fuzzer::generate
