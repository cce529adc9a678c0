#include "fuzzer/generate/tensor_program.h"

#include "fuzzer/generate/op_dtypes.h"
#include "fuzzer/generate/tensor_program_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

// How a tensor program is drawn (tensor_program.h): the inputs (dtype, shape, layout), then the
// statements, each a row of a category on a value already drawn, its operands chosen among the
// values of a dtype and shape the row takes (broadcasting), or new inputs made to fit.
namespace fuzzer::generate {

std::int64_t TensorValue::Elements() const {
  std::int64_t n = 1;
  for (auto extent : shape)
    n *= extent;
  return n;
}

bool AnyDtype(const std::string &) { return true; }
bool FloatDtype(const std::string &dtype) { return IsFloat(dtype); }
bool IntegerDtype(const std::string &dtype) { return IsInteger(dtype); }
bool NumericDtype(const std::string &dtype) { return !IsBool(dtype); }
bool MatmulDtype(const std::string &dtype) {
  return dtype == "float32" || dtype == "bfloat16" || dtype == "float64";
}

double Bound(const TensorValue &v) { return IsBool(v.dtype) ? 1 : v.bound; }
bool Holds(const std::string &dtype, double bound) {
  return !IsInteger(dtype) || FactsOf(dtype).bits < 32 || bound <= ComputeLimit(dtype);
}
std::string PyBool(bool value) { return value ? "True" : "False"; }
std::string Tuple(const std::vector<std::int64_t> &items) {
  return items.size() == 1 ? fmt::format("({},)", items[0])
                           : fmt::format("({})", fmt::join(items, ", "));
}

const std::vector<std::string> &TensorProgramLayouts() {
  static const std::vector<std::string> layouts = {"contiguous",    "transposed", "permuted",
                                                   "channels_last", "sliced",     "expanded"};
  return layouts;
}

std::string TensorProgramBuilder::Draw(const std::string &category) {
  const std::string &option = policy_.Draw(random_, category);
  ++features_[category + ":" + option];
  return option;
}

std::int64_t TensorProgramBuilder::DrawSize(bool inner) {
  return std::stoll(Draw(inner ? "program_inner_size" : "program_size"));
}

TensorProgramBuilder::Shape TensorProgramBuilder::DrawShape(int rank) {
  Shape shape;
  for (int d = 0; d < rank; ++d)
    shape.push_back(DrawSize(d == rank - 1));
  // The outer dimensions shrink until the tensor is small enough.
  for (int d = 0; d < rank - 1 && !Fits(shape); ++d)
    shape[d] = random_.Between(1, 3);
  if (!Fits(shape))
    shape.back() = random_.Between(1, 9);
  return shape;
}

bool TensorProgramBuilder::Fits(const Shape &shape) const {
  double n = 1;
  for (auto extent : shape)
    n *= static_cast<double>(extent);
  return n <= policy_.Number("program_max_elements");
}

namespace {

std::vector<std::int64_t> RowMajor(const std::vector<std::int64_t> &shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * std::max<std::int64_t>(1, shape[d + 1]);
  return strides;
}

std::int64_t Product(const std::vector<std::int64_t> &shape) {
  std::int64_t n = 1;
  for (auto extent : shape)
    n *= extent;
  return n;
}

} // namespace

// The view's strides over a storage allocated in another order (a permutation of the sizes),
// a wider one (a step and an offset) or a smaller one (an expanded dimension).
void TensorProgramBuilder::Layout(InputDraft &draft, const std::string &wanted) {
  const Shape &size = draft.value.shape;
  const int rank = static_cast<int>(size.size());
  std::string layout = wanted;
  if ((layout == "transposed" && rank < 2) || (layout == "permuted" && rank < 3) ||
      (layout == "channels_last" && rank != 4) || rank == 0)
    layout = "contiguous";
  draft.layout = layout;
  draft.view.size = size;
  std::vector<int> order(rank); // the storage's dimensions, outermost first
  std::iota(order.begin(), order.end(), 0);
  if (layout == "transposed")
    std::swap(order[rank - 2], order[rank - 1]);
  if (layout == "permuted")
    while (std::is_sorted(order.begin(), order.end()))
      for (int i = rank - 1; i > 0; --i)
        std::swap(order[i], order[random_.Below(i + 1)]);
  if (layout == "channels_last")
    order = {0, 2, 3, 1};
  Shape physical;
  for (int d : order)
    physical.push_back(size[d]);
  int stepped = -1, expanded = -1;
  std::int64_t step = 1;
  if (layout == "sliced") {
    stepped = static_cast<int>(random_.Below(rank));
    step = random_.Between(2, 3);
    physical[stepped] = size[order[stepped]] * step + 1;
  }
  if (layout == "expanded") {
    expanded = static_cast<int>(random_.Below(rank));
    physical[expanded] = 1;
  }
  const Shape strides = RowMajor(physical);
  draft.view.stride.assign(rank, 0);
  for (int i = 0; i < rank; ++i)
    draft.view.stride[order[i]] = i == expanded ? 0 : strides[i] * (i == stepped ? step : 1);
  if (stepped >= 0)
    draft.view.offset = strides[stepped] * random_.Between(1, step);
  draft.storage = std::max<std::int64_t>(1, Product(physical));
  if (Product(size) == 0)
    draft.view.offset = 0;
  ++features_["program_layout:" + layout];
}

TensorValue TensorProgramBuilder::AddInput(const std::string &dtype, const Shape &shape,
                                           bool may_expand, Fill fill, std::int64_t below) {
  InputDraft draft;
  const int index = static_cast<int>(inputs_.size());
  draft.value = {fmt::format("x{}", index), dtype, shape, 0, {}, index};
  for (int d = 0; d < static_cast<int>(shape.size()); ++d)
    draft.value.origin.push_back(index * 16 + d);
  draft.fill = fill == Fill::kOrdinary && policy_.Chance(random_, "p_program_edge_values")
                   ? Fill::kEdges
                   : fill;
  draft.below = below;
  draft.value.bound = draft.fill == Fill::kEdges ? DtypeMagnitude(dtype)
                      : below > 0                ? static_cast<double>(below)
                                                 : 18;
  std::string layout = policy_.Draw(random_, "program_layout");
  if (!may_expand && layout == "expanded")
    layout = "sliced";
  Layout(draft, layout);
  draft.view.tensor = fmt::format("t{}", index);
  ++features_["program_dtype:" + dtype];
  ++features_[fmt::format("program_rank:{}", shape.size())];
  inputs_.push_back(draft);
  values_.push_back(draft.value);
  return draft.value;
}

TensorValue TensorProgramBuilder::Emit(const std::string &expression, const std::string &dtype,
                                       const Shape &shape, double bound, std::vector<int> origin) {
  if (origin.size() != shape.size())
    origin.assign(shape.size(), -1);
  Value value{fmt::format("v{}", body_.size()), dtype, shape, bound, std::move(origin), -1};
  Line(fmt::format("{} = {}", value.name, expression));
  values_.push_back(value);
  return value;
}

const TensorValue &TensorProgramBuilder::PickOperand() {
  if (random_.Chance(0.6))
    return values_.back();
  return values_[random_.Below(values_.size())];
}

void TensorProgramBuilder::Specialize(const Value &v) {
  for (int origin : v.origin)
    if (Underlying(origin) >= 0)
      specialized_.insert(Underlying(origin));
}

// torch's broadcast of two shapes (the caller checked they broadcast); equal extents of
// different origins are a guard that specialises both.
TensorProgramBuilder::Shape TensorProgramBuilder::Broadcast(const Value &a, const Value &b,
                                                            std::vector<int> &origin) {
  const int rank = std::max(a.Rank(), b.Rank());
  Shape shape(rank);
  origin.assign(rank, -1);
  for (int i = 0; i < rank; ++i) {
    const int da = a.Rank() - rank + i, db = b.Rank() - rank + i;
    const std::int64_t sa = da >= 0 ? a.shape[da] : 1, sb = db >= 0 ? b.shape[db] : 1;
    const int oa = da >= 0 ? a.origin[da] : -1, ob = db >= 0 ? b.origin[db] : -1;
    shape[i] = sa == 1 ? sb : sa;
    if (sa == 1 || sb == 1) {
      // A computed extent of 1 broadcast is a guard on it: its input dimension specialises.
      for (int o : {sa == 1 && sb != 1 ? oa : -1, sb == 1 && sa != 1 ? ob : -1})
        if (Underlying(o) >= 0)
          specialized_.insert(Underlying(o));
      origin[i] = sa == 1 ? ob : oa;
    } else if (oa == ob && oa >= 0) {
      origin[i] = oa;
    } else {
      for (int o : {oa, ob})
        if (Underlying(o) >= 0)
          specialized_.insert(Underlying(o));
    }
  }
  return shape;
}

namespace {

bool Broadcasts(const TensorValue &a, const TensorValue &b) {
  for (int i = 1; i <= std::min(a.Rank(), b.Rank()); ++i) {
    const auto sa = a.shape[a.Rank() - i], sb = b.shape[b.Rank() - i];
    if (sa != sb && sa != 1 && sb != 1)
      return false;
  }
  return true;
}

} // namespace

std::optional<TensorValue>
TensorProgramBuilder::Partner(const Value &x, bool (*fits)(const std::string &), bool same_dtype) {
  std::vector<const Value *> candidates;
  for (const auto &v : values_)
    if (v.name != x.name && fits(v.dtype) && (!same_dtype || v.dtype == x.dtype) &&
        Broadcasts(x, v) && v.Rank() <= x.Rank() && v.Elements() <= x.Elements())
      candidates.push_back(&v);
  if (!candidates.empty() && (inputs_.size() >= max_inputs_ || random_.Chance(0.5)))
    return *random_.Pick(candidates);
  if (inputs_.size() >= max_inputs_)
    return std::nullopt;
  std::string dtype = x.dtype;
  if (!same_dtype && random_.Chance(0.3))
    dtype = DrawDtype();
  if (!fits(dtype))
    dtype = x.dtype;
  if (!fits(dtype))
    return std::nullopt;
  Shape shape = x.shape;
  const double roll = static_cast<double>(random_.Below(100)) / 100;
  if (roll < 0.3) {
    for (auto &extent : shape)
      if (random_.Chance(0.4))
        extent = 1;
  } else if (roll < 0.5 && !shape.empty()) {
    shape.erase(shape.begin(),
                shape.begin() + static_cast<std::ptrdiff_t>(random_.Below(shape.size() + 1)));
  }
  return AddInput(dtype, shape);
}

// Indices in [0, n): a permutation input (unique), or an int64 input of small values (some of
// them negative or past n), or an integer value of the program, reduced by remainder.
std::string TensorProgramBuilder::Indices(const Shape &shape, std::int64_t n, bool unique) {
  if (unique || random_.Chance(0.2)) {
    const Value p = AddInput("int64", shape, false, unique ? Fill::kPermutation : Fill::kBelow, n);
    Specialize(p);
    return p.name;
  }
  const std::string dtype = random_.Pick(std::vector<std::string>{"int64", "int32", "int8"});
  const Value raw = AddInput(dtype, shape);
  Specialize(raw);
  return random_.Chance(0.5) ? fmt::format("torch.remainder({}.to(torch.int64), {})", raw.name, n)
                             : fmt::format("({}.to(torch.int64) % {})", raw.name, n);
}

std::optional<TensorValue> TensorProgramBuilder::Row(const std::string &category,
                                                     const std::string &op, const Value &x) {
  if (category == "unary")
    return Unary(x, op);
  if (category == "binary")
    return Binary(x, op);
  if (category == "reduction")
    return Reduction(x, op);
  if (category == "scan")
    return Scan(x, op);
  if (category == "view")
    return View(x, op);
  if (category == "movement")
    return Movement(x, op);
  if (category == "indexing")
    return op.starts_with("scatter") || op.starts_with("index_put") || op == "index_add"
               ? Scatter(x, op)
               : Indexing(x, op);
  if (category == "matmul")
    return Matmul(x, op);
  if (category == "conv")
    return Conv(x, op);
  if (category == "norm")
    return Norm(x, op);
  if (category == "pool")
    return Pool(x, op);
  if (category == "inplace")
    return Inplace(x, op);
  return std::nullopt;
}

bool TensorProgramBuilder::Statement() {
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string category = policy_.Draw(random_, "program_category");
    const std::string op = policy_.Draw(random_, "program_" + category);
    const Value x = PickOperand();
    if (Row(category, op, x)) {
      ++features_["program_category:" + category];
      ++features_["program_" + category + ":" + op];
      ++features_["program_op:" + op];
      return true;
    }
  }
  return false;
}

void TensorProgramBuilder::Build() {
  max_inputs_ = static_cast<std::size_t>(policy_.Number("program_max_inputs"));
  const auto first_inputs = random_.Between(1, 3);
  for (std::int64_t i = 0; i < first_inputs; ++i)
    AddInput(DrawDtype(), DrawShape(std::stoi(policy_.Draw(random_, "program_rank"))));
  const auto statements = random_.Between(
      2, static_cast<std::int64_t>(std::max(2.0, policy_.Number("program_max_statements"))));
  for (std::int64_t i = 0; i < statements; ++i)
    Statement();
  std::vector<std::string> computed;
  for (const auto &v : values_)
    if (v.input < 0)
      computed.push_back(v.name);
  if (computed.empty())
    computed.push_back(Emit(values_.back().name + ".clone()", values_.back().dtype,
                            values_.back().shape, values_.back().bound, values_.back().origin)
                           .name);
  outputs_ = {computed.back()};
  computed.pop_back();
  while (!computed.empty() && outputs_.size() < 3 &&
         policy_.Chance(random_, "p_program_extra_output")) {
    const std::size_t at = random_.Below(computed.size());
    outputs_.insert(outputs_.begin(), computed[at]);
    computed.erase(computed.begin() + static_cast<std::ptrdiff_t>(at));
  }
  ++features_[fmt::format("program_outputs:{}", outputs_.size())];
}

namespace {

double HalfToDouble(std::int64_t bits) {
  const int exponent = static_cast<int>((bits >> 10) & 0x1f);
  const double mantissa = static_cast<double>(bits & 0x3ff);
  const double sign = (bits & 0x8000) ? -1 : 1;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

// The dtype's finite edge values (JSON holds no NaN or infinity: the program makes those).
std::vector<double> FloatEdges(const std::string &dtype) {
  std::vector<double> values;
  for (std::int64_t bits : FloatBitPatterns(dtype)) {
    double value = 0;
    if (dtype == "float16")
      value = HalfToDouble(bits);
    else if (dtype == "bfloat16")
      value = std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
    else if (dtype == "float32")
      value = std::bit_cast<float>(static_cast<std::int32_t>(bits));
    else
      value = std::bit_cast<double>(bits);
    if (dtype == "float16" && ((bits >> 10) & 0x1f) == 0x1f)
      continue;
    if (std::isfinite(value))
      values.push_back(value);
  }
  return values;
}

// Every storage element the view reaches, in the view's row-major order.
std::vector<std::int64_t> Reached(const corpus::ProgramInput &view) {
  std::vector<std::int64_t> positions;
  if (Product(view.size) == 0)
    return positions;
  std::vector<std::int64_t> index(view.size.size(), 0);
  while (true) {
    std::int64_t at = view.offset;
    for (std::size_t d = 0; d < index.size(); ++d)
      at += index[d] * view.stride[d];
    positions.push_back(at);
    int d = static_cast<int>(index.size()) - 1;
    while (d >= 0 && ++index[d] == view.size[d])
      index[d--] = 0;
    if (d < 0)
      return positions;
  }
}

} // namespace

// Phase 2: the storages' values.
void TensorProgramBuilder::Finish(corpus::Case &c) {
  for (const auto &draft : inputs_) {
    corpus::CapturedTensor t{draft.view.tensor, draft.value.dtype, {draft.storage}, {}, {}};
    const std::string dtype = t.dtype;
    const bool floating = IsFloat(dtype);
    const std::vector<double> real_edges = floating ? FloatEdges(dtype) : std::vector<double>{};
    const std::vector<std::int64_t> int_edges =
        IsInteger(dtype) ? IntegerEdges(dtype) : std::vector<std::int64_t>{0, 1};
    for (std::int64_t i = 0; i < draft.storage; ++i) {
      const bool edge = draft.fill == Fill::kEdges && random_.Chance(0.5);
      if (floating)
        t.reals.push_back(edge ? random_.Pick(real_edges)
                               : static_cast<double>(random_.Between(-32, 32)) / 8);
      else if (IsBool(dtype))
        t.integers.push_back(static_cast<std::int64_t>(random_.Below(2)));
      else if (edge)
        t.integers.push_back(random_.Pick(int_edges));
      else if (draft.fill == Fill::kBelow)
        t.integers.push_back(random_.Between(0, std::max<std::int64_t>(0, draft.below - 1)));
      else
        t.integers.push_back(dtype == "uint8" ? random_.Between(0, 18) : random_.Between(-9, 9));
    }
    if (draft.fill == Fill::kPermutation) {
      std::vector<std::int64_t> perm(static_cast<std::size_t>(draft.below));
      std::iota(perm.begin(), perm.end(), 0);
      for (std::size_t i = perm.size(); i > 1; --i)
        std::swap(perm[i - 1], perm[random_.Below(i)]);
      const auto positions = Reached(draft.view);
      for (std::size_t i = 0; i < positions.size() && i < perm.size(); ++i)
        t.integers[static_cast<std::size_t>(positions[i])] = perm[i];
    }
    if (dtype == "uint8") { // no uint8 tensors in a case: int16 values, converted first
      t.dtype = "int16";
      body_.insert(body_.begin(), fmt::format("    {0} = {0}.to(torch.uint8)", draft.value.name));
    }
    c.tensors.push_back(std::move(t));
    c.tensor_program->inputs.push_back(draft.view);
  }
  // Phase 3: the dimensions marked dynamic (none that a statement specialises) and the source.
  std::vector<std::vector<std::int64_t>> candidates;
  for (std::size_t i = 0; i < inputs_.size(); ++i)
    for (std::size_t d = 0; d < inputs_[i].value.shape.size(); ++d)
      if (inputs_[i].value.shape[d] >= 2 && !specialized_.contains(static_cast<int>(i * 16 + d)))
        candidates.push_back({static_cast<std::int64_t>(i), static_cast<std::int64_t>(d)});
  if (!candidates.empty() && policy_.Chance(random_, "p_program_dynamic")) {
    c.tensor_program->dynamic.push_back(random_.Pick(candidates));
    ++features_["program_dynamic"];
  }
  std::vector<std::string> names;
  for (const auto &draft : inputs_)
    names.push_back(draft.value.name);
  c.mask_mod = corpus::MaskFunction{
      "program", fmt::format("def program({}):\n{}\n    return ({},)\n", fmt::join(names, ", "),
                             fmt::join(body_, "\n"), fmt::join(outputs_, ", "))};
}

void DrawTensorProgram(Random &random, const GenerationPolicy &policy, corpus::Case &c,
                       std::map<std::string, int> &features) {
  c.api = corpus::kTensorProgram;
  c.tensors.clear();
  c.constants = nlohmann::json::object();
  c.calls.clear();
  c.attention.reset();
  c.score_mod.reset();
  c.expect_raises.clear();
  c.index_reduction = "none";
  c.compile_scope = corpus::kCompileApi;
  c.compile_with = corpus::kTorchCompile;
  c.create_block_mask = corpus::BlockMaskArguments{};
  c.tensor_program = corpus::TensorProgram{};
  TensorProgramBuilder builder(random, policy, features);
  builder.Build();
  builder.Finish(c);
  if (builder.HasMatmul() && policy.Chance(random, "p_program_max_autotune")) {
    c.inductor.max_autotune = true;
    ++features["program_max_autotune"];
  }
  ++features["tensor_program"];
}

} // namespace fuzzer::generate
