#include "fuzzer/generate/op_dtypes.h"
#include "fuzzer/generate/tensor_program_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numeric>

// The elementwise, reduction, scan, view and data-movement rows of a tensor program: each
// checks that eager torch 2.6 takes its operand (dtype, rank, sizes) before it emits anything,
// and gives the result's dtype, shape, bound and origins. Integer values stay within their
// bounds where C++ would overflow a signed type (int32, int64): eager wraps, Inductor's C++ is
// undefined there, neither is a contract.
namespace fuzzer::generate {
namespace {

constexpr double kIntLimit = 4.6e18; // below 2^62: sums and products of int64 stay exact

double ResultBound(const std::string &dtype, double bound) {
  return IsInteger(dtype) ? std::min(bound, DtypeMagnitude(dtype)) : bound;
}

std::string Scalar(Random &random, const std::string &dtype) {
  if (IsFloat(dtype))
    return random.Pick(std::vector<std::string>{"0.5", "-1.25", "2.0", "0.125", "-3.0"});
  if (dtype == "uint8")
    return random.Pick(std::vector<std::string>{"2", "3", "7"});
  return random.Pick(std::vector<std::string>{"3", "-2", "1", "7"});
}

} // namespace

std::optional<TensorValue> TensorProgramBuilder::Cast(const Value &x, const std::string &to) {
  if (to == x.dtype)
    return std::nullopt;
  std::string expression = fmt::format("{}.to(torch.{})", x.name, to);
  double bound = IsBool(to) ? 1 : ResultBound(to, Bound(x));
  if (IsFloat(x.dtype) && IsInteger(to)) { // NaN and out-of-range floats convert undefined
    expression = fmt::format("torch.nan_to_num({}).clamp({}, 100).to(torch.{})", x.name,
                             to == "uint8" ? 0 : -100, to);
    bound = 100;
  }
  return Emit(expression, to, x.shape, bound, x.origin);
}

std::optional<TensorValue> TensorProgramBuilder::Unary(const Value &x, const std::string &op) {
  static const std::map<std::string, std::string> kFloat = {
      {"sigmoid", "torch.sigmoid({})"},
      {"tanh", "torch.tanh({})"},
      {"exp", "torch.exp({})"},
      {"log", "torch.log({})"},
      {"sqrt", "torch.sqrt({})"},
      {"sin", "torch.sin({})"},
      {"gelu", "torch.nn.functional.gelu({})"},
      {"gelu_tanh", "torch.nn.functional.gelu({}, approximate=\"tanh\")"},
      {"silu", "torch.nn.functional.silu({})"},
      {"erf", "torch.erf({})"},
      {"reciprocal", "torch.reciprocal({})"},
      {"log1p", "torch.log1p({})"},
      {"nan_to_num", "torch.nan_to_num({}, nan=0.0, posinf=1.0, neginf=-1.0)"}};
  if (const auto found = kFloat.find(op); found != kFloat.end()) {
    if (!IsFloat(x.dtype))
      return std::nullopt;
    return Emit(fmt::format(fmt::runtime(found->second), x.name), x.dtype, x.shape, 0, x.origin);
  }
  if (op == "cast")
    return Cast(x, DrawDtype());
  if (op == "logical_not")
    return Emit(fmt::format("torch.logical_not({})", x.name), "bool", x.shape, 1, x.origin);
  if (op == "bitwise_not") {
    if (IsFloat(x.dtype))
      return std::nullopt;
    return Emit(fmt::format("torch.bitwise_not({})", x.name), x.dtype, x.shape, Bound(x) + 1,
                x.origin);
  }
  if (IsBool(x.dtype))
    return std::nullopt;
  // relu, abs, neg, square, clamp: every numeric dtype; abs and neg of int32/int64 must not
  // meet the minimum, square must not overflow.
  const double bound = op == "square" ? Bound(x) * Bound(x) : Bound(x);
  if (IsInteger(x.dtype) && FactsOf(x.dtype).bits >= 32 &&
      ((op != "relu" && op != "clamp" && Bound(x) >= ComputeLimit(x.dtype)) ||
       !Holds(x.dtype, bound)))
    return std::nullopt;
  if (op == "clamp") {
    const bool floating = IsFloat(x.dtype);
    return Emit(fmt::format("torch.clamp({}, min={}, max={})", x.name,
                            floating ? "-1.5" : (x.dtype == "uint8" ? "1" : "-2"),
                            floating ? "2.0" : "3"),
                x.dtype, x.shape, std::min(Bound(x), 3.0), x.origin);
  }
  const std::string function = op == "relu" ? "torch.relu" : "torch." + op;
  return Emit(fmt::format("{}({})", function, x.name), x.dtype, x.shape,
              ResultBound(x.dtype, bound), x.origin);
}

std::optional<TensorValue> TensorProgramBuilder::Binary(const Value &x, const std::string &op) {
  const bool arithmetic = op == "add" || op == "sub" || op == "mul";
  const bool bitwise = op.starts_with("bitwise_");
  bool (*fits)(const std::string &) = &AnyDtype;
  if (arithmetic || op == "div" || op == "maximum" || op == "minimum" || op == "compare")
    fits = &NumericDtype;
  if (op == "pow" || op == "atan2")
    fits = &FloatDtype;
  if (bitwise)
    fits = [](const std::string &dtype) { return !IsFloat(dtype); };
  if (!fits(x.dtype))
    return std::nullopt;
  const bool scalar_ok = op != "maximum" && op != "minimum" && op != "atan2" &&
                         op != "logical_and" && !IsBool(x.dtype);
  std::optional<Value> y;
  std::string other;
  if (scalar_ok && random_.Chance(0.25)) {
    other = Scalar(random_, x.dtype);
    y = Value{other, x.dtype, {}, std::abs(std::stod(other)), {}, -1};
  } else {
    y = Partner(x, fits, false);
    if (!y)
      return std::nullopt;
    other = y->name;
  }
  std::vector<int> origin;
  const Shape shape = Broadcast(x, *y, origin);
  if (!Fits(shape))
    return std::nullopt;
  std::string dtype = Promote(x.dtype, y->dtype);
  double bound = std::max(Bound(x), Bound(*y));
  if (op == "add" || op == "sub")
    bound = Bound(x) + Bound(*y);
  if (op == "mul")
    bound = Bound(x) * Bound(*y);
  if (op == "div" && !IsFloat(dtype))
    dtype = "float32";
  if (op == "compare" || op == "logical_and")
    dtype = "bool";
  if (bitwise && IsInteger(dtype))
    bound = DtypeMagnitude(dtype);
  if (!Holds(dtype, bound))
    return std::nullopt;
  std::string expression;
  if (op == "compare") {
    const std::string how =
        random_.Pick(std::vector<std::string>{"<", "<=", ">", ">=", "==", "!="});
    expression = fmt::format("{} {} {}", x.name, how, other);
  } else if (op == "where") {
    expression = fmt::format("torch.where({0} > {1}, {0}, {2})", x.name,
                             IsBool(x.dtype) ? "False" : Scalar(random_, x.dtype), other);
  } else if (op == "div") {
    expression = fmt::format("{} / {}", x.name, other);
  } else {
    expression = fmt::format("torch.{}({}, {})", op, x.name, other);
  }
  return Emit(expression, dtype, shape, ResultBound(dtype, bound), origin);
}

std::optional<TensorValue> TensorProgramBuilder::Reduction(const Value &x, const std::string &op) {
  if (x.Rank() == 0)
    return std::nullopt;
  const bool floating_only = op == "mean" || op == "var" || op == "std" || op == "logsumexp" ||
                             op == "softmax" || op == "log_softmax";
  const bool needs_elements = op == "amax" || op == "amin" || op == "argmax" || op == "argmin";
  if ((floating_only && !IsFloat(x.dtype)) || (needs_elements && IsBool(x.dtype)))
    return std::nullopt;
  const bool single =
      op == "prod" || op == "argmax" || op == "argmin" || op == "softmax" || op == "log_softmax";
  std::vector<int> dims = {static_cast<int>(random_.Below(x.shape.size()))};
  if (!single && x.Rank() >= 2 && random_.Chance(0.3)) {
    int second = static_cast<int>(random_.Below(x.shape.size()));
    if (second != dims[0])
      dims.push_back(second);
    std::sort(dims.begin(), dims.end());
  }
  double reduced = 1;
  for (int d : dims)
    reduced *= static_cast<double>(x.shape[d]);
  if (needs_elements && reduced == 0)
    return std::nullopt;
  if (op == "softmax" || op == "log_softmax")
    return Emit(fmt::format("torch.{}({}, dim={})", op, x.name, dims[0]), x.dtype, x.shape, 0,
                x.origin);
  std::string dtype = x.dtype;
  double bound = Bound(x);
  if (op == "sum" && !IsFloat(x.dtype)) {
    dtype = "int64";
    bound = Bound(x) * std::max(1.0, reduced);
  } else if (op == "prod" && !IsFloat(x.dtype)) {
    dtype = "int64";
    bound = std::pow(std::max(1.0, Bound(x)), reduced);
  } else if (op == "argmax" || op == "argmin") {
    dtype = "int64";
    bound = reduced;
  } else if (op == "any" || op == "all") {
    dtype = "bool";
  }
  if (dtype == "int64" && bound > kIntLimit)
    return std::nullopt;
  const bool keepdim = random_.Chance(0.4);
  Shape shape;
  std::vector<int> origin;
  for (int d = 0; d < x.Rank(); ++d) {
    const bool gone = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!gone || keepdim) {
      shape.push_back(gone ? 1 : x.shape[d]);
      origin.push_back(gone ? -1 : x.origin[d]);
    }
  }
  const std::string dim =
      dims.size() == 1 ? std::to_string(dims[0]) : fmt::format("({})", fmt::join(dims, ", "));
  std::string extra;
  if (op == "var" || op == "std")
    extra = fmt::format(", correction={}", random_.Below(2));
  return Emit(
      fmt::format("torch.{}({}, dim={}{}, keepdim={})", op, x.name, dim, extra, PyBool(keepdim)),
      dtype, shape, bound, origin);
}

std::optional<TensorValue> TensorProgramBuilder::Scan(const Value &x, const std::string &op) {
  if (x.Rank() == 0 || ((op == "cumprod" || op == "logcumsumexp") && !IsFloat(x.dtype)) ||
      (op == "cummax" && IsBool(x.dtype)))
    return std::nullopt;
  const int d = static_cast<int>(random_.Below(x.shape.size()));
  std::string dtype = x.dtype;
  double bound = Bound(x);
  if (op == "cumsum" && !IsFloat(x.dtype)) {
    dtype = "int64";
    bound = Bound(x) * static_cast<double>(std::max<std::int64_t>(1, x.shape[d]));
    if (bound > kIntLimit)
      return std::nullopt;
  }
  const std::string suffix = op == "cummax" ? ".values" : "";
  return Emit(fmt::format("torch.{}({}, dim={}){}", op, x.name, d, suffix), dtype, x.shape, bound,
              x.origin);
}

} // namespace fuzzer::generate
