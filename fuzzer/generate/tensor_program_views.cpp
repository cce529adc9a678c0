#include "fuzzer/generate/op_dtypes.h"
#include "fuzzer/generate/tensor_program_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

// The view and data-movement rows of a tensor program: permutes, transposes, reshapes,
// expands, strided slices, narrows, flips, rolls, diagonals; cat, stack, pads, repeat, tril and
// triu. A row that writes a size as a literal specialises the dimensions it comes from.
namespace fuzzer::generate {
namespace {

constexpr int kMaxRank = 5;

} // namespace

std::optional<TensorValue> TensorProgramBuilder::View(const Value &x, const std::string &op) {
  const int rank = x.Rank();
  Shape shape = x.shape;
  std::vector<int> origin = x.origin;
  const auto d = static_cast<int>(random_.Below(std::max(1, rank)));
  if (op == "permute" || op == "transpose" || op == "t") {
    if (rank < 2 || (op == "t" && rank != 2))
      return std::nullopt;
    std::vector<std::int64_t> order(rank);
    std::iota(order.begin(), order.end(), 0);
    const int other = (d + 1 + static_cast<int>(random_.Below(rank - 1))) % rank;
    std::swap(order[d], order[other]);
    if (op == "permute")
      for (int i = rank - 1; i > 0; --i)
        std::swap(order[i], order[random_.Below(i + 1)]);
    for (int i = 0; i < rank; ++i) {
      shape[i] = x.shape[order[i]];
      origin[i] = x.origin[order[i]];
    }
    const std::string expression =
        op == "t" ? fmt::format("{}.t()", x.name)
        : op == "transpose"
            ? fmt::format("{}.transpose({}, {})", x.name, std::min(d, other), std::max(d, other))
            : fmt::format("{}.permute({})", x.name, fmt::join(order, ", "));
    return Emit(expression, x.dtype, shape, x.bound, origin);
  }
  if (op == "reshape") {
    const std::int64_t n = x.Elements();
    std::vector<std::int64_t> divisors;
    for (std::int64_t a = 1; a <= std::min<std::int64_t>(n, 65); ++a)
      if (n % a == 0)
        divisors.push_back(a);
    if (divisors.empty())
      return std::nullopt;
    const std::int64_t a = random_.Pick(divisors);
    Specialize(x);
    shape = {a, n / a};
    return Emit(fmt::format("{}.reshape({}, {})", x.name, a, n / a), x.dtype, shape, x.bound);
  }
  if (op == "flatten") {
    if (rank < 2)
      return std::nullopt;
    const int start = static_cast<int>(random_.Below(rank - 1));
    const int end = start + 1 + static_cast<int>(random_.Below(rank - 1 - start));
    shape.clear();
    origin.clear();
    for (int i = 0; i < rank; ++i) {
      if (i <= start || i > end) {
        shape.push_back(x.shape[i]);
        origin.push_back(i == start ? Derived(x.origin[i]) : x.origin[i]);
      } else {
        shape.back() *= x.shape[i];
        if (Underlying(x.origin[i]) >= 0)
          specialized_.insert(Underlying(x.origin[i]));
      }
    }
    return Emit(fmt::format("{}.flatten({}, {})", x.name, start, end), x.dtype, shape, x.bound,
                origin);
  }
  if (op == "unflatten") {
    if (rank == 0 || rank >= kMaxRank)
      return std::nullopt;
    const std::int64_t n = x.shape[d];
    std::int64_t a = 0;
    for (std::int64_t f : {8, 4, 3, 2})
      if (n > f && n % f == 0 && random_.Chance(0.7))
        a = f;
    if (a == 0)
      return std::nullopt;
    if (Underlying(x.origin[d]) >= 0)
      specialized_.insert(Underlying(x.origin[d]));
    shape[d] = n / a;
    shape.insert(shape.begin() + d, a);
    origin[d] = -1;
    origin.insert(origin.begin() + d, -1);
    return Emit(fmt::format("{}.unflatten({}, ({}, {}))", x.name, d, a, n / a), x.dtype, shape,
                x.bound, origin);
  }
  if (op == "unsqueeze") {
    if (rank >= kMaxRank)
      return std::nullopt;
    const int at = static_cast<int>(random_.Below(rank + 1));
    shape.insert(shape.begin() + at, 1);
    origin.insert(origin.begin() + at, -1);
    return Emit(fmt::format("{}.unsqueeze({})", x.name, at), x.dtype, shape, x.bound, origin);
  }
  return Reshaped(x, op);
}

// expand, strided slices, narrow, flip, roll, diagonal and contiguous.
std::optional<TensorValue> TensorProgramBuilder::Reshaped(const Value &x, const std::string &op) {
  const int rank = x.Rank();
  Shape shape = x.shape;
  std::vector<int> origin = x.origin;
  const auto d = static_cast<int>(random_.Below(std::max(1, rank)));
  if (op == "expand") {
    const std::int64_t k = random_.Pick(std::vector<std::int64_t>{2, 3, 5, 8});
    std::vector<std::string> sizes(rank, "-1");
    const auto one = std::find(shape.begin(), shape.end(), 1);
    if (one != shape.end() && random_.Chance(0.7)) {
      sizes[one - shape.begin()] = std::to_string(k);
      *one = k;
    } else {
      if (rank >= kMaxRank)
        return std::nullopt;
      sizes.insert(sizes.begin(), std::to_string(k));
      shape.insert(shape.begin(), k);
      origin.insert(origin.begin(), -1);
    }
    if (!Fits(shape))
      return std::nullopt;
    return Emit(fmt::format("{}.expand({})", x.name, fmt::join(sizes, ", ")), x.dtype, shape,
                x.bound, origin);
  }
  if (op == "slice_step" || op == "narrow") {
    if (rank == 0)
      return std::nullopt;
    const std::int64_t n = x.shape[d];
    std::string index(static_cast<std::size_t>(d) * 3, ' ');
    for (int i = 0; i < d; ++i)
      index.replace(static_cast<std::size_t>(i) * 3, 3, ":, ");
    if (op == "narrow") {
      if (n == 0)
        return std::nullopt;
      const std::int64_t start = random_.Between(0, n - 1);
      const std::int64_t length = random_.Between(1, n - start);
      if (Underlying(x.origin[d]) >= 0)
        specialized_.insert(Underlying(x.origin[d]));
      shape[d] = length;
      origin[d] = -1;
      return Emit(fmt::format("{}.narrow({}, {}, {})", x.name, d, start, length), x.dtype, shape,
                  x.bound, origin);
    }
    const std::int64_t start = random_.Between(0, 1), step = random_.Between(2, 3);
    shape[d] = n > start ? (n - start + step - 1) / step : 0;
    origin[d] = Derived(x.origin[d]);
    return Emit(fmt::format("{}[{}{}::{}]", x.name, index, start, step), x.dtype, shape, x.bound,
                origin);
  }
  if (op == "flip" || op == "roll") {
    if (rank == 0)
      return std::nullopt;
    if (op == "roll")
      return Emit(
          fmt::format("torch.roll({}, shifts={}, dims={})", x.name, random_.Between(-3, 5), d),
          x.dtype, shape, x.bound, origin);
    std::vector<std::int64_t> dims = {d};
    if (rank >= 2 && random_.Chance(0.4))
      dims.push_back((d + 1) % rank);
    return Emit(fmt::format("torch.flip({}, dims={})", x.name, Tuple(dims)), x.dtype, shape,
                x.bound, origin);
  }
  if (op == "diagonal") {
    if (rank < 2)
      return std::nullopt;
    const int d1 = static_cast<int>(random_.Below(rank - 1));
    const int d2 = d1 + 1 + static_cast<int>(random_.Below(rank - 1 - d1));
    const std::int64_t offset = random_.Between(-1, 1);
    const std::int64_t n1 = x.shape[d1], n2 = x.shape[d2];
    const std::int64_t length = std::max<std::int64_t>(0, offset >= 0 ? std::min(n1, n2 - offset)
                                                                      : std::min(n1 + offset, n2));
    Specialize(x);
    shape.clear();
    for (int i = 0; i < rank; ++i)
      if (i != d1 && i != d2)
        shape.push_back(x.shape[i]);
    shape.push_back(length);
    return Emit(
        fmt::format("torch.diagonal({}, offset={}, dim1={}, dim2={})", x.name, offset, d1, d2),
        x.dtype, shape, x.bound);
  }
  if (op == "contiguous")
    return Emit(x.name + ".contiguous()", x.dtype, shape, x.bound, origin);
  return std::nullopt;
}

std::optional<TensorValue> TensorProgramBuilder::Movement(const Value &x, const std::string &op) {
  const int rank = x.Rank();
  Shape shape = x.shape;
  std::vector<int> origin = x.origin;
  if (rank == 0)
    return std::nullopt;
  const int d = static_cast<int>(random_.Below(rank));
  if (op == "cat" || op == "stack") {
    if (op == "stack" && rank >= kMaxRank)
      return std::nullopt;
    std::vector<const Value *> fitting;
    for (const auto &v : values_)
      if (v.name != x.name && v.dtype == x.dtype && v.Rank() == rank) {
        bool same = true;
        for (int i = 0; i < rank; ++i)
          same = same && (v.shape[i] == x.shape[i] || (op == "cat" && i == d));
        if (same)
          fitting.push_back(&v);
      }
    Value y;
    if (!fitting.empty() && random_.Chance(0.5)) {
      y = *random_.Pick(fitting);
    } else if (inputs_.size() < max_inputs_) {
      Shape other = x.shape;
      if (op == "cat")
        other[d] = DrawSize(d == rank - 1);
      if (!Fits(other))
        return std::nullopt;
      y = AddInput(x.dtype, other);
    } else {
      return std::nullopt;
    }
    for (int i = 0; i < rank; ++i)
      if ((x.origin[i] != y.origin[i] || x.origin[i] < 0) && !(op == "cat" && i == d)) {
        for (int o : {x.origin[i], y.origin[i]})
          if (Underlying(o) >= 0)
            specialized_.insert(Underlying(o));
        origin[i] = -1;
      }
    if (op == "cat") {
      shape[d] += y.shape[d];
      if (Underlying(y.origin[d]) >= 0)
        specialized_.insert(Underlying(y.origin[d]));
      origin[d] = Derived(x.origin[d]);
    } else {
      shape.insert(shape.begin() + d, 2);
      origin.insert(origin.begin() + d, -1);
    }
    if (!Fits(shape))
      return std::nullopt;
    return Emit(fmt::format("torch.{}(({}, {}), dim={})", op, x.name, y.name, d), x.dtype, shape,
                std::max(x.bound, y.bound), origin);
  }
  if (op.starts_with("pad_")) {
    const std::string mode = op.substr(4);
    if (IsBool(x.dtype) || (mode != "constant" && (!IsFloat(x.dtype) || rank < 2 || rank > 4)))
      return std::nullopt;
    const bool nonempty = x.Elements() > 0;
    if (mode != "constant" && !nonempty)
      return std::nullopt;
    // constant: the last one or two dimensions; reflect and replicate: (N, C, W), (C, W), or
    // (N, C, H, W), (C, H, W) with two.
    const int padded = mode == "constant" ? (rank >= 2 && random_.Chance(0.5) ? 2 : 1)
                       : rank == 4        ? 2
                       : rank == 3        ? static_cast<int>(random_.Between(1, 2))
                                          : 1;
    std::vector<std::int64_t> pads;
    for (int i = 0; i < padded; ++i) {
      const int dim = rank - 1 - i;
      const std::int64_t most = mode == "reflect" ? std::min<std::int64_t>(3, x.shape[dim] - 1) : 3;
      const std::int64_t left = random_.Between(0, most), right = random_.Between(0, most);
      pads.push_back(left);
      pads.push_back(right);
      shape[dim] += left + right;
      origin[dim] = Derived(origin[dim]);
    }
    if (!Fits(shape))
      return std::nullopt;
    std::string value;
    if (mode == "constant")
      value = fmt::format(", value={}", IsFloat(x.dtype) ? "-1.5" : "7");
    else
      value = fmt::format(", mode=\"{}\"", mode);
    return Emit(
        fmt::format("torch.nn.functional.pad({}, ({}){})", x.name, fmt::join(pads, ", "), value),
        x.dtype, shape, std::max(x.bound, 7.0), origin);
  }
  if (op == "repeat") {
    std::vector<std::int64_t> repeats;
    const bool extra = rank < kMaxRank && random_.Chance(0.3);
    if (extra) {
      repeats.push_back(random_.Between(1, 3));
      shape.insert(shape.begin(), repeats[0]);
      origin.insert(origin.begin(), -1);
    }
    for (int i = 0; i < rank; ++i) {
      const std::int64_t r = random_.Between(1, 3);
      repeats.push_back(r);
      const int at = i + (extra ? 1 : 0);
      shape[at] *= r;
      if (r > 1)
        origin[at] = Derived(origin[at]);
    }
    if (!Fits(shape))
      return std::nullopt;
    return Emit(fmt::format("{}.repeat({})", x.name, fmt::join(repeats, ", ")), x.dtype, shape,
                x.bound, origin);
  }
  if (op == "tril" || op == "triu") {
    if (rank < 2)
      return std::nullopt;
    return Emit(fmt::format("torch.{}({}, diagonal={})", op, x.name, random_.Between(-1, 2)),
                x.dtype, shape, x.bound, origin);
  }
  return std::nullopt;
}

} // namespace fuzzer::generate
