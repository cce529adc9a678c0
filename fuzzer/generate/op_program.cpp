#include "fuzzer/generate/op_program.h"

#include "fuzzer/generate/op_dtypes.h"
#include "fuzzer/generate/op_program_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

// How an op program is drawn: values (name, dtype, a bound on their magnitude), sources
// (indices or edge tables), then statements, each an op on values already drawn, chosen from
// the policy's op categories by the operand's dtype. The bound keeps int32/int64 arithmetic
// clear of signed overflow, which C++ leaves undefined (eager wraps; neither is a contract):
// narrower integers are computed in int and wrap on conversion, which C++20 defines.
namespace fuzzer::generate {

void OpProgramBuilder::Build() {
  const auto statements =
      random_.Between(2, static_cast<std::int64_t>(std::max(2.0, policy_.Number("op_statements"))));
  Value current = Source(DrawDtype());
  // Each statement takes the one before it, so that no value is dead code Dynamo drops;
  // earlier values come back as second operands.
  for (std::int64_t i = 0; i < statements; ++i)
    current = Statement(current);
  body_.push_back(fmt::format("    return {}", current.name));
  output_dtype_ = current.dtype;
}

std::string OpProgramBuilder::Source() const {
  return fmt::format("def mask_mod(b, h, q_idx, kv_idx):\n{}\n", fmt::join(body_, "\n"));
}

std::string OpProgramBuilder::Draw(const std::string &category) {
  const std::string &option = policy_.Draw(random_, category);
  ++features_[category + ":" + option];
  return option;
}

OpProgramBuilder::Value OpProgramBuilder::Emit(const std::string &expression,
                                               const std::string &dtype, double bound) {
  Value value{fmt::format("v{}", values_.size()), dtype, bound};
  body_.push_back(fmt::format("    {} = {}", value.name, expression));
  values_.push_back(value);
  return value;
}

std::string OpProgramBuilder::Index() {
  const std::int64_t q = random_.Between(-9, 37), kv = random_.Between(-9, 37);
  std::string index = fmt::format("q_idx * {} + kv_idx * {}", q, kv);
  if (random_.Chance(0.2))
    index += fmt::format(" + h * {}", random_.Between(1, 50));
  if (random_.Chance(0.2))
    index += fmt::format(" + b * {}", random_.Between(1, 50));
  bound_of_index_ = 37.0 * 600 + 50 * 8 + 300;
  return index;
}

// Values of `dtype` from the indices, or from a table of its edge values.
OpProgramBuilder::Value OpProgramBuilder::Source(const std::string &dtype) {
  if (random_.Chance(policy_.Number("p_op_edge_source"))) {
    ++features_["op_source:edges"];
    return EdgeSource(dtype);
  }
  ++features_["op_source:indices"];
  const std::string index = Index();
  const std::int64_t offset = random_.Between(-300, 300);
  if (IsBool(dtype))
    return Emit(fmt::format("(({} + {}) % {}) < {}", index, offset, random_.Between(2, 9),
                            random_.Between(1, 5)),
                "bool", 1);
  if (IsFloat(dtype)) {
    const double scale = random_.Pick(
        std::vector<double>{0.25, 0.37, 1.5, 0.1, 3.7, -0.5, 0.3333, 1e-3, 17.0, -2.25});
    return Emit(fmt::format("({} + {}).to(torch.{}) * {}", index, offset, dtype, scale), dtype,
                std::numeric_limits<double>::infinity());
  }
  const double bound = std::min(bound_of_index_ + 300, DtypeMagnitude(dtype));
  return Emit(fmt::format("({} + {}).to(torch.{})", index, offset, dtype), dtype, bound);
}

OpProgramBuilder::Value OpProgramBuilder::EdgeSource(const std::string &dtype) {
  const std::string name = fmt::format("edges_{}", case_.tensors.size());
  corpus::CapturedTensor table{name, dtype, {}, {}, {}};
  std::string view;
  if (IsFloat(dtype)) {
    const int bits = FactsOf(dtype).bits;
    table.dtype = bits == 16 ? "int16" : bits == 32 ? "int32" : "int64";
    for (std::int64_t pattern : FloatBitPatterns(dtype))
      table.integers.push_back(bits == 16 ? AsSigned16(pattern) : pattern);
    view = fmt::format(".view(torch.{})", dtype);
  } else if (IsBool(dtype)) {
    for (int i = 0; i < 7; ++i)
      table.integers.push_back(static_cast<std::int64_t>(random_.Below(2)));
  } else if (dtype == "uint8") { // no uint8 tables: int16 values converted
    table.dtype = "int16";
    table.integers = IntegerEdges(dtype);
    view = ".to(torch.uint8)";
  } else {
    table.integers = IntegerEdges(dtype);
  }
  // A shuffle, so that which edge meets which index differs from case to case.
  for (std::size_t i = table.integers.size(); i > 1; --i)
    std::swap(table.integers[i - 1], table.integers[random_.Below(i)]);
  // Read along kv_idx, the table is a contiguous load Inductor vectorizes; through a computed
  // index it is a gather, which keeps narrow integers on the scalar path.
  if (random_.Chance(policy_.Number("p_op_padded_source")))
    return PaddedSource(std::move(table), dtype, view);
  if (random_.Chance(0.5)) {
    std::vector<std::int64_t> along(static_cast<std::size_t>(kv_len_));
    for (std::size_t i = 0; i < along.size(); ++i)
      along[i] = table.integers[i % table.integers.size()];
    table.integers = std::move(along);
    table.shape = {kv_len_};
    case_.tensors.push_back(std::move(table));
    ++features_["op_source:edges_along_kv"];
    return Emit(fmt::format("{}[kv_idx]{}", name, view), dtype, DtypeMagnitude(dtype));
  }
  table.shape = {static_cast<std::int64_t>(table.integers.size())};
  const std::int64_t length = table.shape[0];
  case_.tensors.push_back(std::move(table));
  return Emit(fmt::format("{}[({}) % {}]{}", name, Index(), length, view), dtype,
              DtypeMagnitude(dtype));
}

// A table padded in front and read along kv_idx: Inductor loads it under a mask (the pad's
// region), in vector code too. Floats hold finite edges as values here (a pad of a bitcast
// view would load the integer table), the pad's value may be NaN.
OpProgramBuilder::Value OpProgramBuilder::PaddedSource(corpus::CapturedTensor table,
                                                       const std::string &dtype,
                                                       const std::string &view) {
  const std::int64_t pad = random_.Between(1, std::min<std::int64_t>(9, kv_len_ - 1));
  const auto length = static_cast<std::size_t>(kv_len_ - pad);
  std::string fill;
  if (IsFloat(dtype)) {
    // Exact in every float dtype: 2^-10, and no value past bfloat16's 8 bits of mantissa.
    static const std::vector<double> kFiniteEdges = {0.0,  -0.0, 1.5,  -2.5, 0.0009765625,
                                                     1024, -7.0, 0.25, 96.0, -65280.0};
    table.dtype = dtype;
    table.integers.clear();
    table.reals.resize(length);
    for (std::size_t i = 0; i < length; ++i)
      table.reals[i] = kFiniteEdges[(i + random_.Below(3)) % kFiniteEdges.size()];
    fill = random_.Pick(std::vector<std::string>{"-1.5", "0.0", "float(\"nan\")", "1e4"});
  } else {
    std::vector<std::int64_t> along(length);
    for (std::size_t i = 0; i < length; ++i)
      along[i] = table.integers[i % table.integers.size()];
    table.integers = std::move(along);
    fill = IsBool(dtype) ? random_.Pick(std::vector<std::string>{"0", "1"})
                         : random_.Pick(std::vector<std::string>{"0", "1", "7"});
  }
  table.shape = {static_cast<std::int64_t>(length)};
  const std::string name = table.name;
  case_.tensors.push_back(std::move(table));
  ++features_["op_source:padded"];
  return Emit(fmt::format("torch.nn.functional.pad({}{}, ({}, 0), value={})[kv_idx]", name,
                          IsFloat(dtype) ? "" : view, pad, fill),
              dtype, DtypeMagnitude(dtype));
}

// A second operand for x: another value (of x's dtype, or of any other for a mixed op), a
// new source, or nothing (the caller uses a constant).
std::optional<OpProgramBuilder::Value> OpProgramBuilder::Operand(const Value &x, bool mixed) {
  std::vector<Value> same;
  for (const auto &value : values_)
    if (value.name != x.name && (mixed || value.dtype == x.dtype))
      same.push_back(value);
  const double roll = static_cast<double>(random_.Below(100)) / 100;
  if (roll < 0.4 && !same.empty())
    return random_.Pick(same);
  if (roll < 0.75)
    return Source(mixed && random_.Chance(0.3) ? DrawDtype() : x.dtype);
  return std::nullopt;
}

std::string OpProgramBuilder::IntConstant(const Value &x, bool nonzero, bool positive) {
  const DtypeFacts &facts = FactsOf(x.dtype);
  std::vector<std::int64_t> pool = {1, 2, 3, 5, 7, 16, -1, -2, -3, -7, -16, 100, -100, 127};
  std::int64_t value = 0;
  do
    value = random_.Pick(pool);
  while ((nonzero && value == 0) ||
         ((positive || facts.kind == Kind::kUnsigned || facts.bits >= 32) && value < 0) ||
         (facts.kind == Kind::kBool && value > 1));
  return std::to_string(value);
}

// A divisor for x: never zero, and for int32/int64 never -1 (INT_MIN / -1 traps).
std::string OpProgramBuilder::Divisor(const Value &x, const std::optional<Value> &y) {
  if (!y || IsBool(y->dtype))
    return IntConstant(x, true, false);
  if (IsFloat(y->dtype))
    return y->name;
  if (FactsOf(Promote(x.dtype, y->dtype)).bits >= 32 || IsInteger(x.dtype))
    return fmt::format("torch.where(({0} == 0) | ({0} == -1), 3, {0})", y->name);
  return y->name;
}

namespace {

// Reductions of the program's values over the last dimension; those that convert to int64
// first (sum, amax) would convert NaN and infinities, which C++ leaves undefined: floats take
// the others.
std::string DrawReduction(Random &random, const GenerationPolicy &policy, const std::string &dtype,
                          std::map<std::string, int> &features) {
  std::string reduction;
  do
    reduction = policy.Draw(random, "op_reduction");
  while (IsFloat(dtype) && (reduction == "sum" || reduction == "amax"));
  ++features["op_reduction:" + reduction];
  return reduction;
}

} // namespace

const std::vector<std::string> &OpProgramDtypes() {
  static const std::vector<std::string> dtypes = [] {
    std::vector<std::string> names;
    for (const auto &facts : Facts())
      names.push_back(facts.name);
    return names;
  }();
  return dtypes;
}

void DrawOpProgram(Random &random, const GenerationPolicy &policy, corpus::Case &c,
                   std::map<std::string, int> &features) {
  c.api = corpus::kIndexProgram;
  c.tensors.clear();
  c.constants = nlohmann::json::object();
  c.calls.clear();
  c.attention.reset();
  c.score_mod.reset();
  c.expect_raises.clear();
  c.compile_scope = corpus::kCompileApi;
  c.compile_with = corpus::kTorchCompile;
  auto &sizes = c.create_block_mask;
  sizes.batch = random.Chance(0.7) ? 1 : random.Between(2, 3);
  sizes.heads = random.Chance(0.7) ? 1 : random.Between(2, 3);
  sizes.q_len = random.Between(1, 17);
  const std::string length = policy.Draw(random, "op_length");
  ++features["op_length:" + length];
  sizes.kv_len = std::stoll(length);
  sizes.block_size = {128};
  OpProgramBuilder builder(random, policy, c, features);
  builder.Build();
  c.mask_mod = corpus::MaskFunction{"mask_mod", builder.Source()};
  c.index_reduction = DrawReduction(random, policy, builder.OutputDtype(), features);
  ++features["op_program"];
  ++features["op_output:" + builder.OutputDtype()];
  if (policy.Chance(random, "p_knob_cpu_capability")) {
    const std::string capability = policy.Draw(random, "ATEN_CPU_CAPABILITY");
    c.inductor.optional["ATEN_CPU_CAPABILITY"] = capability;
    ++features["ATEN_CPU_CAPABILITY:" + capability];
  }
}

} // namespace fuzzer::generate
