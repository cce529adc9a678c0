#include "fuzzer/generate/case_builder.h"

#include <fmt/format.h>

#include <algorithm>

// Phase 2's drawing of numbers and expressions: lengths, captured tables, integer and boolean
// expressions, the mask and score patterns.
namespace fuzzer::generate {

using E = Expression;

std::int64_t CaseBuilder::LengthOf(const std::string &length_class) {
  if (length_class == "below_128")
    return random_.Between(2, 126);
  if (length_class == "non_multiple") {
    std::int64_t length = random_.Between(130, 511);
    return length % 128 == 0 ? length + 1 : length;
  }
  return std::stoll(length_class);
}

std::string CaseBuilder::AddTable(const std::string &stem, const std::string &dtype,
                                  std::int64_t length,
                                  const std::function<double(std::int64_t)> &value) {
  const std::string name = fmt::format("{}_{}", stem, case_->tensors.size());
  corpus::CapturedTensor tensor{name, dtype, {length}, {}, {}};
  for (std::int64_t i = 0; i < length; ++i) {
    if (corpus::FindTensorDtype(dtype)->floating)
      tensor.reals.push_back(value(i));
    else
      tensor.integers.push_back(static_cast<std::int64_t>(value(i)));
  }
  case_->tensors.push_back(std::move(tensor));
  return name;
}

E CaseBuilder::IntConstant() {
  const std::string kind = Draw("int_constant");
  if (kind == "small")
    return E::Int(random_.Between(0, 16));
  if (kind == "negative")
    return E::Int(random_.Between(-300, -1));
  if (kind == "large")
    return E::Int(random_.Pick(std::vector<std::int64_t>{1 << 20, (1 << 20) + 1, 1000003}));
  const std::int64_t length = std::max(q_len_, kv_len_);
  return E::Int(random_.Pick(
      std::vector<std::int64_t>{63, 64, 127, 128, 129, 255, 256, length - 1, length, length + 1}));
}

E CaseBuilder::IntLeaf() {
  const std::string leaf = DrawExcept("int_leaf", leaves_excluded_);
  if (leaf == "constant")
    return IntConstant();
  return E::Var(leaf, ValueType::kInt);
}

E CaseBuilder::IndexedInt(int depth) {
  E value = Int(depth);
  if (!value.indexed)
    value = E::Binary("+", E::Var(random_.Chance(0.5) ? "q_idx" : "kv_idx", ValueType::kInt),
                      std::move(value));
  return value;
}

E CaseBuilder::TableLookup(ValueType type, int depth) {
  const std::int64_t length = random_.Between(1, 64);
  const std::string name =
      type == ValueType::kBool
          ? AddTable("flags", "bool", length, [this](std::int64_t) { return random_.Below(2); })
          : AddTable("table", "int64", length,
                     [this](std::int64_t) { return random_.Between(-16, 16); });
  // Python's % with a positive divisor is never negative: the index stays in range.
  return E::Table(name, type, E::Binary("%", IndexedInt(depth), E::Int(length)));
}

E CaseBuilder::Int(int depth) {
  if (depth <= 0 || random_.Chance(0.3))
    return IntLeaf();
  const std::string op = Draw("int_operator");
  if (op == "//" || op == "%") {
    std::int64_t divisor = random_.Between(1, 130);
    if (Chance("p_negative_divisor", "negative_divisor"))
      divisor = -divisor;
    return E::Binary(op, Int(depth - 1), E::Int(divisor));
  }
  if (op == "*") // one small factor keeps products far from int64 overflow
    return E::Binary(op, Int(depth - 1), E::Int(random_.Between(-8, 8)));
  if (op == "~")
    return E::Unary("~", Int(depth - 1));
  if (op == "abs")
    return E::Unary("abs", Int(depth - 1));
  if (op == "minimum" || op == "maximum")
    return E::Call("torch." + op, {IndexedInt(depth - 1), Int(depth - 1)}, ValueType::kInt);
  if (op == "where")
    return E::Call("torch.where", {Bool(depth - 1), IndexedInt(depth - 1), Int(depth - 1)},
                   ValueType::kInt);
  if (op == "table")
    return TableLookup(ValueType::kInt, depth - 1);
  return E::Binary(op, Int(depth - 1), Int(depth - 1)); // + - & | ^
}

E CaseBuilder::Bool(int depth) {
  const std::string op =
      depth <= 0 ? random_.Pick(std::vector<std::string>{"<=", ">="}) : Draw("bool_operator");
  if (op == "&" || op == "|" || op == "^")
    return E::Binary(op, Bool(depth - 1), Bool(depth - 1));
  if (op == "~")
    return E::Unary("~", Bool(depth - 1));
  if (op == "where")
    return E::Call("torch.where", {Bool(depth - 1), Bool(depth - 1), Bool(depth - 1)},
                   ValueType::kBool);
  if (op == "table")
    return TableLookup(ValueType::kBool, depth - 1);
  return E::Binary(op, IndexedInt(depth - 1), Int(depth - 1)); // a comparison
}

E CaseBuilder::MaskPattern(const std::string &pattern) {
  const E q = E::Var("q_idx", ValueType::kInt), kv = E::Var("kv_idx", ValueType::kInt);
  const std::int64_t length = std::max(q_len_, kv_len_);
  if (pattern == "random_expression")
    return Bool(static_cast<int>(policy_.Number("max_expression_depth")));
  if (pattern == "block_causal") { // whole blocks only: what SKIP_MASK_SCORE asks for
    const auto &size = case_->create_block_mask.block_size;
    return E::Binary(">=", E::Binary("//", q, E::Int(size.front())),
                     E::Binary("//", kv, E::Int(size.back())));
  }
  if (pattern == "causal") {
    if (q_len_ != kv_len_ && random_.Chance(0.5)) // bottom-right aligned
      return E::Binary(">=", E::Binary("+", q, E::Int(kv_len_ - q_len_)), kv);
    return E::Binary(">=", q, kv);
  }
  if (pattern == "sliding_window")
    return E::Binary("<=", E::Unary("abs", E::Binary("-", q, kv)),
                     E::Int(random_.Between(0, length)));
  if (pattern == "prefix_lm")
    return E::Binary("|", E::Binary("<", kv, E::Int(random_.Between(0, length))),
                     E::Binary(">=", q, kv));
  if (pattern == "document") {
    std::int64_t document = 0;
    const std::string table = AddTable("document_id", "int64", length, [&](std::int64_t) {
      document += random_.Chance(0.02) ? 1 : 0;
      return document;
    });
    return E::Binary("==", E::Table(table, ValueType::kInt, q),
                     E::Table(table, ValueType::kInt, kv));
  }
  if (pattern == "jagged") {
    const std::string table = AddTable("sequence_length", "int64", batch_,
                                       [&](std::int64_t) { return random_.Between(1, kv_len_); });
    const E b = E::Var("b", ValueType::kInt);
    return E::Binary("&", E::Binary("<", kv, E::Table(table, ValueType::kInt, b)),
                     E::Binary("<", q, E::Table(table, ValueType::kInt, b)));
  }
  if (pattern == "dilated")
    return E::Binary("==", E::Binary("%", E::Binary("-", q, kv), E::Int(random_.Between(2, 8))),
                     E::Int(0));
  if (pattern == "chunked") {
    const std::int64_t chunk = random_.Pick(std::vector<std::int64_t>{16, 64, 100, 128, 256});
    return E::Binary("==", E::Binary("//", q, E::Int(chunk)), E::Binary("//", kv, E::Int(chunk)));
  }
  // head_offset: each head sees a differently shifted causal band.
  const std::string table = AddTable("head_offset", "int64", heads_,
                                     [&](std::int64_t) { return random_.Between(-64, 64); });
  return E::Binary(
      ">=", E::Binary("+", q, E::Table(table, ValueType::kInt, E::Var("h", ValueType::kInt))), kv);
}

E CaseBuilder::ScorePattern(const std::string &pattern) {
  const E score = E::Var("score", ValueType::kFloat);
  const E q = E::Var("q_idx", ValueType::kInt), kv = E::Var("kv_idx", ValueType::kInt);
  const E h = E::Var("h", ValueType::kInt);
  auto eighths = [this](std::int64_t low, std::int64_t high) {
    return E::Float(static_cast<double>(random_.Between(low, high)) / 8.0);
  };
  if (pattern == "alibi") {
    const std::string slopes = AddTable("alibi_slope", "float32", heads_, [](std::int64_t i) {
      return 1.0 / static_cast<double>(std::int64_t{2} << std::min<std::int64_t>(i, 20));
    });
    return E::Binary("+", score,
                     E::Binary("*", E::Table(slopes, ValueType::kFloat, h), E::Binary("-", kv, q)));
  }
  if (pattern == "soft_cap") {
    const E cap = E::Float(random_.Pick(std::vector<double>{5.0, 20.0, 50.0}));
    return E::Binary("*", cap,
                     E::Call("torch.tanh", {E::Binary("/", score, cap)}, ValueType::kFloat));
  }
  if (pattern == "relative_bias") {
    const std::string bias =
        AddTable("relative_bias", "float32", q_len_ + kv_len_ - 1,
                 [&](std::int64_t) { return random_.Between(-64, 64) / 32.0; });
    return E::Binary("+", score,
                     E::Table(bias, ValueType::kFloat,
                              E::Binary("+", E::Binary("-", q, kv), E::Int(kv_len_ - 1))));
  }
  if (pattern == "head_bias") {
    const std::string bias = AddTable("head_bias", "float32", heads_, [&](std::int64_t) {
      return random_.Between(-64, 64) / 32.0;
    });
    return E::Binary("+", score, E::Table(bias, ValueType::kFloat, h));
  }
  if (pattern == "scale_shift")
    return E::Binary("+", E::Binary("*", score, eighths(1, 24)), eighths(-16, 16));
  if (pattern == "masked_penalty")
    return E::Call("torch.where", {Bool(1), score, E::Binary("-", score, eighths(8, 64))},
                   ValueType::kFloat);
  // random_expression: an integer expression of the indices, scaled into the score.
  return E::Binary("+", score,
                   E::Binary("*", E::Binary("%", IndexedInt(2), E::Int(7)), eighths(1, 4)));
}

// A score_mod that reads a captured float table (float32, bfloat16 or float16) through a
// computed, gather-like index, on top of `score` (the drawn score_mod's expression, or the
// plain score). Values are multiples of 1/32 in [-2, 2] (slopes: powers of two), exact in
// every dtype.
E CaseBuilder::FloatTableScore(const std::string &pattern, const std::string &dtype, E score) {
  Random &random = family_random_;
  const E q = E::Var("q_idx", ValueType::kInt), kv = E::Var("kv_idx", ValueType::kInt);
  const E h = E::Var("h", ValueType::kInt);
  auto values = [&](std::int64_t) { return random.Between(-64, 64) / 32.0; };
  if (pattern == "head_slopes") { // score * slopes[h]
    const std::string slopes = AddTable("slopes", dtype, heads_, [&](std::int64_t i) {
      return 1.0 / static_cast<double>(std::int64_t{1} << std::min<std::int64_t>(i, 12));
    });
    return E::Binary("*", std::move(score), E::Table(slopes, ValueType::kFloat, h));
  }
  if (pattern == "head_distance_bias") { // score + bias[h, abs(q_idx - kv_idx) % 17]
    const std::int64_t buckets = random.Pick(std::vector<std::int64_t>{5, 17, 32});
    const std::string bias = AddTable("distance_bias", dtype, heads_ * buckets, values);
    case_->tensors.back().shape = {heads_, buckets};
    E lookup = E::Table(bias, ValueType::kFloat,
                        E::Binary("%", E::Unary("abs", E::Binary("-", q, kv)), E::Int(buckets)));
    lookup.args.insert(lookup.args.begin(), h);
    return E::Binary("+", std::move(score), std::move(lookup));
  }
  if (pattern == "kv_bucket_bias") { // score + bias[kv_idx // width]
    const std::int64_t width = random.Pick(std::vector<std::int64_t>{1, 8, 64});
    const std::string bias = AddTable("kv_bias", dtype, (kv_len_ + width - 1) / width, values);
    return E::Binary("+", std::move(score),
                     E::Table(bias, ValueType::kFloat, E::Binary("//", kv, E::Int(width))));
  }
  // mixed_index_bias: score + bias[(q_idx * 3 + kv_idx) % n]
  const std::int64_t length = random.Between(7, 40);
  const std::string bias = AddTable("mixed_bias", dtype, length, values);
  return E::Binary(
      "+", std::move(score),
      E::Table(bias, ValueType::kFloat,
               E::Binary("%", E::Binary("+", E::Binary("*", q, E::Int(3)), kv), E::Int(length))));
}

} // namespace fuzzer::generate
