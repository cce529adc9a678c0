#include "fuzzer/generate/op_program_builder.h"

#include "fuzzer/generate/op_dtypes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

// The statements of an op program: an op for the dtype of the value before, drawn from its
// family's category, with another value, a new source or a constant as its second operand.
// Each op keeps what C++ leaves undefined out of the kernel: no division by zero (nor INT_MIN by
// -1), integer arithmetic within its values' bounds, and no NaN or out-of-range float converted
// to an integer (op_program.cpp draws the values).
namespace fuzzer::generate {

OpProgramBuilder::Value OpProgramBuilder::Statement(const Value &x) {
  if (IsFloat(x.dtype))
    return FloatOp(x, Draw("op_float"));
  if (IsBool(x.dtype))
    return BoolOp(x, Draw("op_bool"));
  return IntOp(x, Draw("op_int"));
}

// Ops every dtype has: comparisons, where, clamp, casts, bitcasts.
std::optional<OpProgramBuilder::Value> OpProgramBuilder::CommonOp(const Value &x,
                                                                  const std::string &op) {
  if (op == "compare") {
    const std::string how =
        random_.Pick(std::vector<std::string>{"<", "<=", ">", ">=", "==", "!="});
    const auto y = Operand(x, true);
    const std::string other =
        y                  ? y->name
        : IsFloat(x.dtype) ? random_.Pick(std::vector<std::string>{"0.5", "0.0", "-1.0", "2.5"})
                           : IntConstant(x, false, false);
    return Emit(fmt::format("{} {} {}", x.name, how, other), "bool", 1);
  }
  if (op == "where") {
    const auto y = Operand(x, true);
    const std::string condition =
        fmt::format("({} {} {})", x.name, random_.Chance(0.5) ? ">" : "<=",
                    IsFloat(x.dtype)  ? "0.5"
                    : IsBool(x.dtype) ? "False"
                                      : "3");
    const std::string other = y                  ? y->name
                              : IsFloat(x.dtype) ? "-2.0"
                                                 : IntConstant(x, false, false);
    const std::string dtype = y ? Promote(x.dtype, y->dtype) : x.dtype;
    const double bound = std::max(x.bound, y ? y->bound : 128.0);
    return random_.Chance(0.5)
               ? Emit(fmt::format("torch.where({}, {}, {})", condition, x.name, other), dtype,
                      bound)
               : Emit(fmt::format("torch.where({}, {}, {})", condition, other, x.name), dtype,
                      bound);
  }
  if (op == "cast")
    return Cast(x, DrawDtype());
  if (op == "bitcast") {
    const int bits = FactsOf(x.dtype).bits;
    std::vector<std::string> same_width;
    for (const auto &facts : Facts())
      if (facts.bits == bits && facts.name != x.dtype && facts.kind != Kind::kBool)
        same_width.push_back(facts.name);
    if (IsBool(x.dtype) || same_width.empty())
      return Cast(x, DrawDtype());
    const std::string to = random_.Pick(same_width);
    return Emit(fmt::format("{}.view(torch.{})", x.name, to), to, DtypeMagnitude(to));
  }
  if (op == "clamp") {
    if (IsBool(x.dtype))
      return std::nullopt;
    const auto y = random_.Chance(0.4) ? Operand(x, true) : std::nullopt;
    if (y && !IsBool(y->dtype)) // mixed dtypes: a tensor bound
      return Emit(fmt::format("torch.clamp({}, min={})", x.name, y->name),
                  Promote(x.dtype, y->dtype), std::max(x.bound, y->bound));
    if (IsFloat(x.dtype))
      return Emit(fmt::format("torch.clamp({}, {}, {})", x.name,
                              random_.Pick(std::vector<std::string>{"-1.5", "0.0", "-100.0"}),
                              random_.Pick(std::vector<std::string>{"2.5", "1.0", "1e4"})),
                  x.dtype, x.bound);
    const std::string low = IntConstant(x, false, false);
    std::string high = IntConstant(x, false, true);
    if (std::stoll(high) < std::stoll(low))
      high = low;
    return Emit(fmt::format("torch.clamp({}, {}, {})", x.name, low, high), x.dtype,
                std::max(std::abs(std::stod(low)), std::abs(std::stod(high))));
  }
  return std::nullopt;
}

// A conversion; a float converted to an integer is made finite and in range first (C++
// leaves the conversion of NaN or of an out-of-range float undefined, eager too).
OpProgramBuilder::Value OpProgramBuilder::Cast(const Value &x, const std::string &to) {
  if (IsFloat(x.dtype) && IsInteger(to)) {
    const std::string range = to == "int8"    ? "-128.0, 127.0"
                              : to == "uint8" ? "0.0, 255.0"
                              : to == "int16" ? "-32768.0, 32512.0"
                              : to == "int32" ? "-2147483648.0, 1073741824.0"
                                              : "-4.611686018427388e18, 4.611686018427388e18";
    // A 16-bit float cannot hold int32's or int64's bounds: clamped in float32.
    const std::string value = FactsOf(x.dtype).bits == 16 ? x.name + ".to(torch.float32)" : x.name;
    return Emit(
        fmt::format("torch.nan_to_num({}, nan=0.0).clamp({}).to(torch.{})", value, range, to), to,
        DtypeMagnitude(to));
  }
  return Emit(fmt::format("{}.to(torch.{})", x.name, to), to,
              IsFloat(to) ? std::numeric_limits<double>::infinity()
                          : std::min(x.bound, DtypeMagnitude(to)));
}

// Whether bound fits the C++ type the dtype computes in.
bool OpProgramBuilder::Fits(const std::string &dtype, double bound) const {
  return bound <= ComputeLimit(dtype);
}

OpProgramBuilder::Value OpProgramBuilder::IntOp(const Value &x, const std::string &op) {
  if (auto common = CommonOp(x, op))
    return *common;
  const bool narrow = FactsOf(x.dtype).bits < 32;
  if (op == "add" || op == "sub" || op == "mul") {
    const auto y = Operand(x, true);
    // eager refuses `-` with a bool tensor: it subtracts the bool as x's dtype.
    const std::string other = !y ? IntConstant(x, false, false)
                              : op == "sub" && IsBool(y->dtype)
                                  ? fmt::format("{}.to(torch.{})", y->name, x.dtype)
                                  : y->name;
    const double other_bound = y ? y->bound : 128;
    const std::string dtype = y ? Promote(x.dtype, y->dtype) : x.dtype;
    const double bound = op == "mul" ? x.bound * other_bound : x.bound + other_bound;
    if (IsFloat(dtype) || Fits(dtype, bound) || (narrow && FactsOf(dtype).bits < 32)) {
      const std::string symbol = op == "add" ? "+" : op == "sub" ? "-" : "*";
      return Emit(fmt::format("{} {} {}", x.name, symbol, other), dtype,
                  std::min(bound, DtypeMagnitude(dtype)));
    }
    return Emit(fmt::format("{} ^ {}", x.name, IntConstant(x, false, true)), x.dtype, x.bound);
  }
  if (op == "floordiv" || op == "mod" || op == "fmod" || op == "remainder" || op == "truncdiv") {
    const auto y = Operand(x, false);
    const std::string divisor = Divisor(x, y);
    const std::string expression =
        op == "floordiv" ? fmt::format("{} // {}", x.name, divisor)
        : op == "mod"    ? fmt::format("{} % {}", x.name, divisor)
        : op == "truncdiv"
            ? fmt::format("torch.div({}, {}, rounding_mode=\"trunc\")", x.name, divisor)
            : fmt::format("torch.{}({}, {})", op, x.name, divisor);
    return Emit(expression, x.dtype, x.bound);
  }
  if (op == "bitwise_and" || op == "bitwise_or" || op == "bitwise_xor") {
    const auto y = Operand(x, false);
    const std::string symbol = op == "bitwise_and" ? "&" : op == "bitwise_or" ? "|" : "^";
    const std::string other = y && !IsFloat(y->dtype) ? y->name : IntConstant(x, false, true);
    return Emit(fmt::format("{} {} {}", x.name, symbol, other), x.dtype, DtypeMagnitude(x.dtype));
  }
  if (op == "lshift" || op == "rshift") {
    // Counts at and past the width on purpose; eager defines them (0, or the sign).
    const int bits = FactsOf(x.dtype).bits;
    const std::string count =
        random_.Chance(0.3) ? fmt::format("({} & {})", IntCountSource(x),
                                          random_.Pick(std::vector<int>{7, 15, 31, 63, 127}))
                            : std::to_string(random_.Pick(
                                  std::vector<int>{0, 1, 3, bits - 1, bits, bits + 1, 2 * bits}));
    return Emit(fmt::format("{} {} {}", x.name, op == "lshift" ? "<<" : ">>", count), x.dtype,
                DtypeMagnitude(x.dtype));
  }
  if (op == "minimum" || op == "maximum") {
    auto y = Operand(x, true);
    if (!y)
      y = Source(x.dtype);
    return Emit(fmt::format("torch.{}({}, {})", op, x.name, y->name), Promote(x.dtype, y->dtype),
                std::max(x.bound, y->bound));
  }
  if (op == "pow") {
    const int exponent = static_cast<int>(random_.Between(0, 5));
    const double bound = std::pow(x.bound, exponent);
    if (!Fits(x.dtype, bound) && !narrow)
      return Emit(fmt::format("{} >> 1", x.name), x.dtype, x.bound);
    return Emit(fmt::format("torch.pow({}, {})", x.name, exponent), x.dtype,
                std::min(bound, DtypeMagnitude(x.dtype)));
  }
  if (op == "neg" || op == "abs") {
    if (!narrow && x.bound >= ComputeLimit(x.dtype)) // -INT_MIN overflows
      return Emit(fmt::format("torch.{}({} >> 1)", op, x.name), x.dtype, x.bound / 2);
    return Emit(fmt::format("torch.{}({})", op, x.name), x.dtype, x.bound);
  }
  if (op == "bitwise_not")
    return Emit(fmt::format("~{}", x.name), x.dtype, DtypeMagnitude(x.dtype));
  if (op == "relu")
    return Emit(fmt::format("torch.relu({})", x.name), x.dtype, x.bound);
  if (op == "logical")
    return FloatOp(x, "logical"); // the same forms, on integers
  if (op == "sign")
    return Emit(fmt::format("torch.sign({})", x.name), x.dtype, 1);
  if (op == "square") {
    if (!narrow && !Fits(x.dtype, x.bound * x.bound))
      return Emit(fmt::format("{} & 255", x.name), x.dtype, 255);
    return Emit(fmt::format("{0} * {0}", x.name), x.dtype,
                std::min(x.bound * x.bound, DtypeMagnitude(x.dtype)));
  }
  // to_float: a float function of an integer (torch promotes it to float32)
  return FloatOp(
      Cast(x, random_.Pick(std::vector<std::string>{"float32", "float64", "float16", "bfloat16"})),
      Draw("op_float"));
}

std::string OpProgramBuilder::IntCountSource(const Value &x) {
  for (const auto &value : values_)
    if (IsInteger(value.dtype) && value.name != x.name &&
        FactsOf(value.dtype).bits <= FactsOf(x.dtype).bits)
      return value.name;
  return Source(x.dtype).name;
}

OpProgramBuilder::Value OpProgramBuilder::FloatOp(const Value &x, const std::string &op) {
  if (auto common = CommonOp(x, op))
    return *common;
  const double inf = std::numeric_limits<double>::infinity();
  static const std::vector<std::string> kUnary = {
      "floor",  "ceil",    "round",   "trunc", "frac",       "sign",       "abs",  "neg",
      "sqrt",   "rsqrt",   "exp",     "exp2",  "expm1",      "log",        "log2", "log10",
      "log1p",  "sin",     "cos",     "tan",   "asin",       "acos",       "atan", "sinh",
      "cosh",   "tanh",    "asinh",   "acosh", "atanh",      "erf",        "erfc", "erfinv",
      "lgamma", "digamma", "sigmoid", "relu",  "reciprocal", "nan_to_num", "i0"};
  if (std::find(kUnary.begin(), kUnary.end(), op) != kUnary.end())
    return Emit(fmt::format("torch.{}({})", op, x.name), x.dtype, inf);
  static const std::vector<std::string> kSpecialUnary = {"ndtr",
                                                         "log_ndtr",
                                                         "erfcx",
                                                         "ndtri",
                                                         "i0e",
                                                         "i1",
                                                         "i1e",
                                                         "bessel_j0",
                                                         "bessel_j1",
                                                         "bessel_y0",
                                                         "bessel_y1",
                                                         "airy_ai",
                                                         "modified_bessel_i0",
                                                         "modified_bessel_i1",
                                                         "modified_bessel_k0",
                                                         "modified_bessel_k1",
                                                         "scaled_modified_bessel_k0",
                                                         "scaled_modified_bessel_k1",
                                                         "spherical_bessel_j0"};
  const bool special = op == "special_unary" || op == "special_polynomial" ||
                       op == "special_binary" || op == "ndtr" || op == "log_ndtr" || op == "erfcx";
  if (special && FactsOf(x.dtype).bits == 16) // eager has no 16-bit kernel for most of them
    return FloatOp(Cast(x, "float32"), op);
  if (op == "special_unary" || op == "ndtr" || op == "log_ndtr" || op == "erfcx") {
    const std::string function = op == "special_unary" ? random_.Pick(kSpecialUnary) : op;
    ++features_["op_special:" + function];
    return Emit(fmt::format("torch.special.{}({})", function, x.name), x.dtype, inf);
  }
  if (op == "special_polynomial") { // a polynomial of degree n: n a small integer tensor
    const std::string function = random_.Pick(std::vector<std::string>{
        "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
        "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
        "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
        "laguerre_polynomial_l", "legendre_polynomial_p"});
    ++features_["op_special:" + function];
    return Emit(fmt::format("torch.special.{}({}, torch.full_like({}, {}))", function, x.name,
                            x.name, random_.Between(0, 6)),
                x.dtype, inf);
  }
  if (op == "special_binary") { // zeta(x, q), the regularized incomplete gammas, polygamma
    const std::string function =
        random_.Pick(std::vector<std::string>{"zeta", "gammainc", "gammaincc", "polygamma"});
    ++features_["op_special:" + function];
    if (function == "polygamma")
      return Emit(fmt::format("torch.special.polygamma({}, {})", random_.Between(0, 3), x.name),
                  x.dtype, inf);
    auto y = Operand(x, false);
    if (!y || !IsFloat(y->dtype) || FactsOf(y->dtype).bits == 16)
      y = Source(x.dtype);
    return Emit(fmt::format("torch.special.{}({}, {})", function, x.name, y->name),
                Promote(x.dtype, y->dtype), inf);
  }
  if (op == "logical") { // logical ops of a number: nonzero is true
    auto y = Operand(x, true);
    const std::string function =
        random_.Pick(std::vector<std::string>{"logical_and", "logical_or", "logical_xor"});
    if (!y || random_.Chance(0.25))
      return Emit(fmt::format("torch.logical_not({})", x.name), "bool", 1);
    return Emit(fmt::format("torch.{}({}, {})", function, x.name, y->name), "bool", 1);
  }
  if (op == "isnan" || op == "isinf" || op == "signbit" || op == "isfinite")
    return Emit(fmt::format("torch.{}({})", op, x.name), "bool", 1);
  if (op == "frexp_mantissa")
    return Emit(fmt::format("torch.frexp({})[0]", x.name), x.dtype, inf);
  if (op == "frexp_exponent")
    return Emit(fmt::format("torch.frexp({})[1]", x.name), "int32", 1100);
  if (op == "ldexp") {
    const std::string exponent =
        random_.Pick(std::vector<std::string>{"-3", "1", "10", "-150", "200"});
    return Emit(fmt::format("torch.ldexp({}, torch.full_like({}, {}, dtype=torch.int32))", x.name,
                            x.name, exponent),
                x.dtype, inf);
  }
  if (op == "nextafter" || op == "atan2" || op == "hypot" || op == "copysign" || op == "fmod" ||
      op == "remainder" || op == "pow" || op == "minimum" || op == "maximum" || op == "fmax" ||
      op == "fmin") {
    auto y = Operand(x, op != "nextafter");
    if (!y)
      y = Source(x.dtype);
    std::string other = y->name;
    std::string dtype = Promote(x.dtype, y->dtype);
    if (op == "nextafter" && y->dtype != x.dtype) {
      other = fmt::format("{}.to(torch.{})", y->name, x.dtype);
      dtype = x.dtype;
    }
    return Emit(fmt::format("torch.{}({}, {})", op, x.name, other), dtype, inf);
  }
  if (op == "add" || op == "sub" || op == "mul" || op == "div" || op == "floordiv") {
    const auto y = Operand(x, true);
    const std::string symbol = op == "add"   ? "+"
                               : op == "sub" ? "-"
                               : op == "mul" ? "*"
                               : op == "div" ? "/"
                                             : "//";
    const std::string other =
        y ? (IsBool(y->dtype) && (op == "sub") ? y->name + ".to(torch.float32)" : y->name)
          : random_.Pick(std::vector<std::string>{"0.5", "3.0", "-1.25", "1e-3", "1e30"});
    const std::string dtype =
        y ? Promote(x.dtype, IsBool(y->dtype) && op == "sub" ? "float32" : y->dtype) : x.dtype;
    return Emit(fmt::format("{} {} {}", x.name, symbol, other), dtype, inf);
  }
  if (op == "square")
    return Emit(fmt::format("{0} * {0}", x.name), x.dtype, inf);
  return Cast(x, DrawDtype()); // to_int and whatever else: a conversion
}

OpProgramBuilder::Value OpProgramBuilder::BoolOp(const Value &x, const std::string &op) {
  if (op == "and" || op == "or" || op == "xor") {
    auto y = Operand(x, false);
    if (!y || !IsBool(y->dtype))
      y = Source("bool");
    const std::string symbol = op == "and" ? "&" : op == "or" ? "|" : "^";
    return Emit(fmt::format("{} {} {}", x.name, symbol, y->name), "bool", 1);
  }
  if (op == "logical_and" || op == "logical_or" || op == "logical_xor") {
    auto y = Operand(x, true);
    if (!y)
      y = Source("bool");
    return Emit(fmt::format("torch.{}({}, {})", op, x.name, y->name), "bool", 1);
  }
  if (op == "not")
    return Emit(fmt::format("~{}", x.name), "bool", 1);
  if (op == "logical_not")
    return Emit(fmt::format("torch.logical_not({})", x.name), "bool", 1);
  if (op == "add" || op == "mul") { // with a bool: bool (or, and); with a number: int64
    if (random_.Chance(0.5)) {
      auto y = Operand(x, false);
      if (!y || !IsBool(y->dtype))
        y = Source("bool");
      return Emit(fmt::format("{} {} {}", x.name, op == "add" ? "+" : "*", y->name), "bool", 1);
    }
    return Emit(fmt::format("{} {} {}", x.name, op == "add" ? "+" : "*", random_.Between(-5, 9)),
                "int64", 10);
  }
  if (auto common = CommonOp(x, op))
    return *common;
  return Cast(x, DrawDtype());
}

} // namespace fuzzer::generate
