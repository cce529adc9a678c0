#include "fuzzer/generate/op_dtypes.h"
#include "fuzzer/generate/tensor_program_builder.h"

#include <fmt/format.h>

#include <algorithm>

// The in-place rows of a tensor program: add_, mul_, clamp_, a strided slice assigned and
// index_put_ on one of the program's inputs (never one with a stride-0 dimension), whose value
// after the call the worker compares too. Integer updates keep every integer value's bound.
namespace fuzzer::generate {
namespace {

// The order torch casts results into an in-place target: bool < integers < floats.
int KindOrder(const std::string &dtype) { return IsBool(dtype) ? 0 : IsFloat(dtype) ? 2 : 1; }

} // namespace

std::optional<TensorValue> TensorProgramBuilder::WritableInput(const Value &x) {
  std::vector<std::string> writable;
  for (const auto &draft : inputs_)
    if (draft.Writable())
      writable.push_back(draft.value.name);
  if (writable.empty())
    return std::nullopt;
  const std::string name =
      x.input >= 0 && inputs_[x.input].Writable() ? x.name : random_.Pick(writable);
  return *std::find_if(values_.begin(), values_.end(),
                       [&](const Value &v) { return v.name == name; });
}

std::optional<TensorValue> TensorProgramBuilder::Inplace(const Value &x, const std::string &op) {
  const auto target = WritableInput(x);
  if (!target)
    return std::nullopt;
  const Value t = *target;
  double bound = Bound(t);
  std::string line;
  if (op == "add_" || op == "mul_") {
    if (IsBool(t.dtype))
      return std::nullopt;
    const auto y = Partner(t, &NumericDtype, false);
    if (!y || KindOrder(y->dtype) > KindOrder(t.dtype))
      return std::nullopt;
    std::vector<int> origin;
    if (Broadcast(t, *y, origin) != t.shape)
      return std::nullopt;
    bound = op == "add_" ? Bound(t) + Bound(*y) : Bound(t) * Bound(*y);
    if (IsInteger(t.dtype) && FactsOf(t.dtype).bits >= 32 && bound > ComputeLimit(t.dtype))
      return std::nullopt;
    line = fmt::format("{}.{}({})", t.name, op, y->name);
  } else if (op == "clamp_") {
    if (IsBool(t.dtype))
      return std::nullopt;
    line = fmt::format("{}.clamp_(min={}, max={})", t.name, IsFloat(t.dtype) ? "-1.0" : "0",
                       IsFloat(t.dtype) ? "1.5" : "5");
  } else if (op == "setitem") {
    if (t.Rank() == 0)
      return std::nullopt;
    const int d = static_cast<int>(random_.Below(t.shape.size()));
    Shape slice = t.shape;
    slice[d] = slice[d] > 1 ? slice[d] / 2 : 0; // [..., 1::2]
    std::string index;
    for (int i = 0; i < d; ++i)
      index += ":, ";
    std::string value = IsBool(t.dtype) ? "True" : IsFloat(t.dtype) ? "-0.75" : "4";
    if (inputs_.size() < max_inputs_ && random_.Chance(0.6)) {
      const Value v = AddInput(t.dtype, slice);
      Specialize(v);
      Specialize(t);
      value = v.name;
      bound = std::max(bound, Bound(v));
    }
    line = fmt::format("{}[{}1::2] = {}", t.name, index, value);
  } else if (op == "index_put_") {
    if (t.Rank() == 0 || t.shape[0] == 0 || IsBool(t.dtype) || inputs_.size() + 2 > max_inputs_)
      return std::nullopt;
    const bool accumulate = random_.Chance(0.5);
    const std::int64_t n = t.shape[0];
    const std::int64_t k = accumulate ? random_.Between(1, 2 * n) : random_.Between(1, n);
    bound = Bound(t) + static_cast<double>(k) * 10;
    if (IsInteger(t.dtype) && FactsOf(t.dtype).bits >= 32 && bound > ComputeLimit(t.dtype))
      return std::nullopt;
    Specialize(t);
    const std::string idx = Indices({k}, n, !accumulate);
    Shape source = t.shape;
    source[0] = k;
    const Value src = IsFloat(t.dtype) ? AddInput(t.dtype, source)
                                       : AddInput(t.dtype, source, true, Fill::kBelow, 10);
    Specialize(src);
    line = fmt::format("{}.index_put_(({},), {}, accumulate={})", t.name, idx, src.name,
                       accumulate ? "True" : "False");
  } else {
    return std::nullopt;
  }
  Line(line);
  // Views of the input see the update: every integer value may now hold the new bound.
  if (IsInteger(t.dtype))
    for (auto &v : values_)
      if (IsInteger(v.dtype))
        v.bound = std::max(v.bound, std::min(bound, DtypeMagnitude(v.dtype)));
  return *std::find_if(values_.begin(), values_.end(),
                       [&](const Value &v) { return v.name == t.name; });
}

} // namespace fuzzer::generate
