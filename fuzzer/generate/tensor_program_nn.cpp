#include "fuzzer/generate/op_dtypes.h"
#include "fuzzer/generate/tensor_program_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

// The indexing, matmul, convolution, normalisation, pooling and in-place rows of a tensor
// program. Indices are computed in range (remainder by the extent) or are permutations where
// torch leaves duplicates unspecified (index_put_ without accumulate); weights, biases and
// running statistics are inputs of the shape the row needs; in-place updates land on inputs
// that have no stride-0 dimension. Each row specialises the dimensions it reads sizes of.
namespace fuzzer::generate {
namespace {

bool AllPositive(const std::vector<std::int64_t> &shape) {
  return std::all_of(shape.begin(), shape.end(), [](std::int64_t n) { return n > 0; });
}

std::string FillValue(Random &random, const std::string &dtype) {
  if (IsBool(dtype))
    return "True";
  if (IsFloat(dtype))
    return random.Pick(std::vector<std::string>{"-2.5", "0.0", "float(\"inf\")", "1.0"});
  return random.Pick(std::vector<std::string>{"0", "5", "1"});
}

} // namespace

std::optional<TensorValue> TensorProgramBuilder::Indexing(const Value &x, const std::string &op) {
  const int rank = x.Rank();
  if (rank == 0 || inputs_.size() >= max_inputs_)
    return std::nullopt;
  const int d = static_cast<int>(random_.Below(rank));
  const std::int64_t n = x.shape[d];
  if (op == "masked_fill" || op == "where") {
    std::vector<const Value *> masks;
    for (const auto &v : values_)
      if (IsBool(v.dtype) && v.Rank() <= rank && v.name != x.name) {
        std::vector<int> ignored;
        bool fits = true;
        for (int i = 1; i <= v.Rank(); ++i)
          fits = fits && (v.shape[v.Rank() - i] == 1 || v.shape[v.Rank() - i] == x.shape[rank - i]);
        if (fits)
          masks.push_back(&v);
      }
    const Value mask =
        !masks.empty() && random_.Chance(0.6) ? *random_.Pick(masks) : AddInput("bool", x.shape);
    std::vector<int> origin;
    Shape shape = Broadcast(x, mask, origin);
    if (op == "masked_fill")
      return Emit(
          fmt::format("{}.masked_fill({}, {})", x.name, mask.name, FillValue(random_, x.dtype)),
          x.dtype, shape, std::max(Bound(x), 5.0), origin);
    const auto y = Partner(x, &AnyDtype, false);
    if (!y)
      return std::nullopt;
    Value both{"", x.dtype, shape, 0, origin, -1};
    shape = Broadcast(both, *y, origin);
    return Emit(fmt::format("torch.where({}, {}, {})", mask.name, x.name, y->name),
                Promote(x.dtype, y->dtype), shape, std::max(Bound(x), Bound(*y)), origin);
  }
  if (n == 0)
    return std::nullopt;
  Specialize(x);
  if (op == "index_select") {
    const std::int64_t k = random_.Between(1, 9);
    Shape shape = x.shape;
    shape[d] = k;
    if (!Fits(shape))
      return std::nullopt;
    return Emit(fmt::format("torch.index_select({}, {}, {})", x.name, d, Indices({k}, n)), x.dtype,
                shape, x.bound);
  }
  if (op == "embedding") {
    if (rank != 2 || x.shape[0] == 0) // the rows of the table
      return std::nullopt;
    Shape shape = {random_.Between(1, 9)};
    if (random_.Chance(0.4))
      shape.push_back(random_.Between(1, 17));
    const std::string idx = Indices(shape, x.shape[0]);
    shape.push_back(x.shape[1]);
    return Emit(fmt::format("torch.nn.functional.embedding({}, {})", idx, x.name), x.dtype, shape,
                x.bound);
  }
  // gather, take_along_dim: an index of x's rank, no larger than x off dimension d.
  Shape shape = x.shape;
  for (int i = 0; i < rank; ++i)
    if (i == d)
      shape[i] = random_.Between(1, 9);
    else if (shape[i] > 0 && op == "gather")
      shape[i] = random_.Between(1, shape[i]);
    else if (op == "take_along_dim" && random_.Chance(0.3))
      shape[i] = 1;
  if (!Fits(shape))
    return std::nullopt;
  const std::string idx = Indices(shape, n);
  if (op == "gather")
    return Emit(fmt::format("torch.gather({}, {}, {})", x.name, d, idx), x.dtype, shape, x.bound);
  Shape result = x.shape;
  result[d] = shape[d];
  return Emit(fmt::format("torch.take_along_dim({}, {}, dim={})", x.name, idx, d), x.dtype, result,
              x.bound);
}

// index_put (a permutation's indices without accumulate), index_add, scatter_add and
// scatter_reduce, on a clone or out of place: the sources are inputs of x's dtype.
std::optional<TensorValue> TensorProgramBuilder::Scatter(const Value &x, const std::string &op) {
  const int rank = x.Rank();
  if (rank == 0 || IsBool(x.dtype) || inputs_.size() + 2 > max_inputs_)
    return std::nullopt;
  const int d = op.starts_with("index_put") ? 0 : static_cast<int>(random_.Below(rank));
  const std::int64_t n = x.shape[d];
  if (n == 0 || x.Elements() == 0)
    return std::nullopt;
  Specialize(x);
  const bool clone = random_.Chance(0.5);
  if (op.starts_with("index_put")) {
    const bool accumulate = op == "index_put_accumulate";
    const std::int64_t k = accumulate ? random_.Between(1, 2 * n) : random_.Between(1, n);
    Shape source = x.shape;
    source[0] = k;
    if (!accumulate && random_.Chance(0.3))
      source.erase(source.begin());
    if (!Holds(x.dtype, Bound(x) + static_cast<double>(k) * 10))
      return std::nullopt;
    const std::string idx = Indices({k}, n, !accumulate);
    const Value src = IsFloat(x.dtype) ? AddInput(x.dtype, source)
                                       : AddInput(x.dtype, source, true, Fill::kBelow, 10);
    Specialize(src);
    const double bound = accumulate ? Bound(x) + static_cast<double>(k) * Bound(src)
                                    : std::max(Bound(x), Bound(src));
    const std::string call =
        fmt::format("(({},), {}, accumulate={})", idx, src.name, PyBool(accumulate));
    return Emit(clone ? fmt::format("{}.clone().index_put_{}", x.name, call)
                      : fmt::format("torch.index_put({}, {}", x.name, call.substr(1)),
                x.dtype, x.shape, bound);
  }
  Shape source = x.shape;
  source[d] = random_.Between(1, 9);
  if (op != "index_add")
    for (int i = 0; i < rank; ++i)
      if (i != d)
        source[i] = random_.Between(1, x.shape[i]);
  const std::string reduce =
      op == "scatter_reduce"
          ? random_.Pick(std::vector<std::string>{"sum", "prod", "mean", "amax", "amin"})
          : "sum";
  if (!Fits(source) || (reduce == "prod" && !IsFloat(x.dtype)))
    return std::nullopt;
  if (!IsFloat(x.dtype) && !Holds(x.dtype, Bound(x) + static_cast<double>(source[d]) * 10))
    return std::nullopt;
  const std::string idx = op == "index_add" ? Indices({source[d]}, n) : Indices(source, n);
  // Small sources (no edges) for integers, whose sums must not overflow.
  const Value src = IsFloat(x.dtype) ? AddInput(x.dtype, source)
                                     : AddInput(x.dtype, source, true, Fill::kBelow, 10);
  Specialize(src);
  const double result = Bound(x) + static_cast<double>(source[d]) * Bound(src);
  if (!Holds(x.dtype, result))
    return std::nullopt;
  if (op == "index_add")
    return Emit(clone ? fmt::format("{}.clone().index_add_({}, {}, {})", x.name, d, idx, src.name)
                      : fmt::format("torch.index_add({}, {}, {}, {})", x.name, d, idx, src.name),
                x.dtype, x.shape, result);
  if (op == "scatter_add")
    return Emit(clone ? fmt::format("{}.clone().scatter_add_({}, {}, {})", x.name, d, idx, src.name)
                      : fmt::format("torch.scatter_add({}, {}, {}, {})", x.name, d, idx, src.name),
                x.dtype, x.shape, result);
  ++features_["program_scatter_reduce:" + reduce];
  return Emit(fmt::format("torch.scatter_reduce({}, {}, {}, {}, reduce=\"{}\", include_self={})",
                          x.name, d, idx, src.name, reduce, PyBool(random_.Chance(0.5))),
              x.dtype, x.shape, result);
}

std::optional<TensorValue> TensorProgramBuilder::Epilogue(const Value &y) {
  if (!policy_.Chance(random_, "p_program_epilogue"))
    return y;
  const std::string kind = Draw("program_epilogue");
  if (kind == "relu")
    return Emit(fmt::format("torch.relu({})", y.name), y.dtype, y.shape, 0);
  if (kind == "gelu")
    return Emit(fmt::format("torch.nn.functional.gelu({})", y.name), y.dtype, y.shape, 0);
  if (kind == "mul")
    return Emit(fmt::format("{} * 0.5", y.name), y.dtype, y.shape, 0);
  if (inputs_.size() >= max_inputs_ || y.Rank() == 0)
    return Emit(fmt::format("{} + 1.0", y.name), y.dtype, y.shape, 0);
  const Value bias = AddInput(y.dtype, {y.shape.back()});
  Specialize(bias);
  return Emit(fmt::format("{} + {}", y.name, bias.name), y.dtype, y.shape, 0);
}

std::optional<TensorValue> TensorProgramBuilder::Matmul(const Value &x, const std::string &op) {
  const int rank = x.Rank();
  if (!MatmulDtype(x.dtype) || rank == 0 || x.shape.back() > 65 || inputs_.size() + 2 > max_inputs_)
    return std::nullopt;
  if ((op == "mm" || op == "addmm") != (rank == 2) || (op == "bmm" && rank != 3))
    return std::nullopt;
  const std::int64_t k = x.shape.back(), n = DrawSize(true);
  Shape weight = op == "linear" ? Shape{n, k} : Shape{k, n};
  if (op == "bmm")
    weight.insert(weight.begin(), x.shape[0]);
  const bool vector = op == "matmul" && random_.Chance(0.2);
  if (vector)
    weight = {k};
  Shape shape(x.shape.begin(), x.shape.end() - 1);
  if (!vector)
    shape.push_back(n);
  if (!Fits(shape) || !Fits(weight))
    return std::nullopt;
  Specialize(x);
  const Value w = AddInput(x.dtype, weight);
  Specialize(w);
  has_matmul_ = true;
  std::string expression;
  if (op == "mm" || op == "bmm" || op == "matmul") {
    expression = fmt::format("torch.{}({}, {})", op, x.name, w.name);
  } else {
    const bool with_bias = op == "addmm" || random_.Chance(0.7);
    std::string bias = "None";
    if (with_bias) {
      const Value b = AddInput(x.dtype, op == "addmm" && random_.Chance(0.3) ? shape : Shape{n});
      Specialize(b);
      bias = b.name;
    }
    expression = op == "addmm"
                     ? fmt::format("torch.addmm({}, {}, {}{})", bias, x.name, w.name,
                                   random_.Chance(0.3) ? ", beta=0.5, alpha=2.0" : "")
                     : fmt::format("torch.nn.functional.linear({}, {}, {})", x.name, w.name, bias);
  }
  return Epilogue(Emit(expression, x.dtype, shape, 0));
}

std::optional<TensorValue> TensorProgramBuilder::Conv(const Value &x, const std::string &op) {
  const int spatial = op == "conv1d" ? 1 : 2;
  if (!MatmulDtype(x.dtype) || x.Rank() != spatial + 2 || !AllPositive(x.shape) ||
      x.shape[1] > 65 || inputs_.size() + 2 > max_inputs_)
    return std::nullopt;
  const std::int64_t channels = x.shape[1];
  const std::int64_t groups = random_.Chance(0.3) ? channels : 1;
  const std::int64_t out = groups * random_.Between(1, groups > 8 ? 1 : 4);
  const std::int64_t kernel = random_.Between(1, 3), stride = random_.Between(1, 2),
                     padding = random_.Between(0, 1);
  Shape weight = {out, channels / groups}, shape = {x.shape[0], out};
  for (int i = 0; i < spatial; ++i) {
    const std::int64_t extent = x.shape[2 + i];
    if (extent + 2 * padding < kernel)
      return std::nullopt;
    weight.push_back(kernel);
    shape.push_back((extent + 2 * padding - kernel) / stride + 1);
  }
  if (!Fits(shape) || !Fits(weight))
    return std::nullopt;
  Specialize(x);
  const Value w = AddInput(x.dtype, weight);
  Specialize(w);
  std::string bias = "None";
  if (random_.Chance(0.6)) {
    const Value b = AddInput(x.dtype, {out});
    Specialize(b);
    bias = b.name;
  }
  return Epilogue(Emit(fmt::format("torch.nn.functional.{}({}, {}, {}, stride={}, padding={}, "
                                   "groups={})",
                                   op, x.name, w.name, bias, stride, padding, groups),
                       x.dtype, shape, 0));
}

std::optional<TensorValue> TensorProgramBuilder::Norm(const Value &x, const std::string &op) {
  const int rank = x.Rank();
  const bool channels = op == "group_norm" || op == "batch_norm";
  if (!IsFloat(x.dtype) || rank < (channels ? 2 : 1) || !AllPositive(x.shape) ||
      inputs_.size() + 4 > max_inputs_ + 1)
    return std::nullopt;
  Specialize(x);
  auto optional_input = [&](const Shape &shape, double p) -> std::string {
    if (inputs_.size() >= max_inputs_ || !random_.Chance(p))
      return "None";
    const Value v = AddInput(x.dtype, shape);
    Specialize(v);
    return v.name;
  };
  if (op == "layer_norm" || op == "rms_norm") {
    const int last = rank >= 2 && random_.Chance(0.3) ? 2 : 1;
    const Shape normalized(x.shape.end() - last, x.shape.end());
    const std::string weight = optional_input(normalized, 0.6);
    const std::string rest = op == "layer_norm" ? fmt::format("{}, {}, eps=1e-5", weight,
                                                              optional_input(normalized, 0.5))
                                                : fmt::format("{}, eps=1e-6", weight);
    return Emit(
        fmt::format("torch.nn.functional.{}({}, {}, {})", op, x.name, Tuple(normalized), rest),
        x.dtype, x.shape, 0);
  }
  const std::int64_t c = x.shape[1];
  if (op == "group_norm") {
    // torch needs more than one value per group: N * C / G * (the spatial extents) > 1.
    const std::int64_t values = x.Elements() / c;
    std::vector<std::int64_t> divisors;
    for (std::int64_t g = 1; g <= c; ++g)
      if (c % g == 0 && values * (c / g) > 1)
        divisors.push_back(g);
    if (divisors.empty())
      return std::nullopt;
    const std::int64_t groups = random_.Pick(divisors);
    const std::string weight = optional_input({c}, 0.6);
    return Emit(fmt::format("torch.nn.functional.group_norm({}, {}, {}, {}, eps=1e-5)", x.name,
                            groups, weight, optional_input({c}, 0.5)),
                x.dtype, x.shape, 0);
  }
  if (inputs_.size() + 2 > max_inputs_)
    return std::nullopt;
  const Value mean = AddInput(x.dtype, {c});
  const Value var = AddInput(x.dtype, {c});
  Specialize(mean);
  Specialize(var);
  const std::string weight = optional_input({c}, 0.5);
  return Emit(fmt::format("torch.nn.functional.batch_norm({}, {}, {}.abs() + 0.5, {}, {}, "
                          "training=False, eps=1e-5)",
                          x.name, mean.name, var.name, weight, optional_input({c}, 0.5)),
              x.dtype, x.shape, 0);
}

std::optional<TensorValue> TensorProgramBuilder::Pool(const Value &x, const std::string &op) {
  const int rank = x.Rank();
  const bool interpolate = op.starts_with("interpolate");
  if (!IsFloat(x.dtype) || rank != 4 - (interpolate ? 0 : static_cast<int>(random_.Below(2))) ||
      !AllPositive(x.shape))
    return std::nullopt;
  const std::int64_t h = x.shape[rank - 2], w = x.shape[rank - 1];
  Shape shape = x.shape;
  std::string expression;
  if (op == "max_pool2d" || op == "avg_pool2d") {
    const std::int64_t kernel = random_.Between(2, 3), stride = random_.Between(1, 2),
                       padding = random_.Between(0, kernel / 2);
    if (h + 2 * padding < kernel || w + 2 * padding < kernel)
      return std::nullopt;
    shape[rank - 2] = (h + 2 * padding - kernel) / stride + 1;
    shape[rank - 1] = (w + 2 * padding - kernel) / stride + 1;
    expression =
        fmt::format("torch.nn.functional.{}({}, kernel_size={}, stride={}, padding={}{})", op,
                    x.name, kernel, stride, padding,
                    op == "avg_pool2d" && random_.Chance(0.5) ? ", count_include_pad=False" : "");
  } else {
    const std::int64_t oh = random_.Between(1, interpolate ? 2 * h : h),
                       ow = random_.Between(1, interpolate ? 2 * w : w);
    shape[rank - 2] = oh;
    shape[rank - 1] = ow;
    if (op == "adaptive_avg_pool2d")
      expression =
          fmt::format("torch.nn.functional.adaptive_avg_pool2d({}, ({}, {}))", x.name, oh, ow);
    else
      expression =
          fmt::format("torch.nn.functional.interpolate({}, size=({}, {}), mode=\"{}\"{})", x.name,
                      oh, ow, op == "interpolate_bilinear" ? "bilinear" : "nearest",
                      op == "interpolate_bilinear"
                          ? fmt::format(", align_corners={}", PyBool(random_.Chance(0.5)))
                          : "");
  }
  if (!Fits(shape))
    return std::nullopt;
  Specialize(x);
  return Emit(expression, x.dtype, shape, 0);
}

} // namespace fuzzer::generate
