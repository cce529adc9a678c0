#include "fuzzer/generate/op_program.h"

#include "fuzzer/generate/op_dtypes.h"

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

namespace {

struct Value {
  std::string name;
  std::string dtype;
  double bound; // the largest magnitude it may hold (infinity for floats)
};

class OpProgramBuilder {
public:
  OpProgramBuilder(Random &random, const GenerationPolicy &policy, corpus::Case &c,
                   std::map<std::string, int> &features)
      : random_(random), policy_(policy), case_(c), features_(features),
        kv_len_(c.create_block_mask.kv_len) {}

  void Build() {
    const auto statements = random_.Between(
        2, static_cast<std::int64_t>(std::max(2.0, policy_.Number("op_statements"))));
    Value current = Source(DrawDtype());
    // Each statement takes the one before it, so that no value is dead code Dynamo drops;
    // earlier values come back as second operands.
    for (std::int64_t i = 0; i < statements; ++i)
      current = Statement(current);
    body_.push_back(fmt::format("    return {}", current.name));
    output_dtype_ = current.dtype;
  }

  std::string Source() const {
    return fmt::format("def mask_mod(b, h, q_idx, kv_idx):\n{}\n", fmt::join(body_, "\n"));
  }
  const std::string &OutputDtype() const { return output_dtype_; }

private:
  std::string Draw(const std::string &category) {
    const std::string &option = policy_.Draw(random_, category);
    ++features_[category + ":" + option];
    return option;
  }
  std::string DrawDtype() { return Draw("op_dtype"); }

  Value Emit(const std::string &expression, const std::string &dtype, double bound) {
    Value value{fmt::format("v{}", values_.size()), dtype, bound};
    body_.push_back(fmt::format("    {} = {}", value.name, expression));
    values_.push_back(value);
    return value;
  }

  std::string Index() {
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
  Value Source(const std::string &dtype) {
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

  Value EdgeSource(const std::string &dtype) {
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
  Value PaddedSource(corpus::CapturedTensor table, const std::string &dtype,
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
  std::optional<Value> Operand(const Value &x, bool mixed) {
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

  std::string IntConstant(const Value &x, bool nonzero, bool positive) {
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
  std::string Divisor(const Value &x, const std::optional<Value> &y) {
    if (!y || IsBool(y->dtype))
      return IntConstant(x, true, false);
    if (IsFloat(y->dtype))
      return y->name;
    if (FactsOf(Promote(x.dtype, y->dtype)).bits >= 32 || IsInteger(x.dtype))
      return fmt::format("torch.where(({0} == 0) | ({0} == -1), 3, {0})", y->name);
    return y->name;
  }

  Value Statement(const Value &x) {
    if (IsFloat(x.dtype))
      return FloatOp(x, Draw("op_float"));
    if (IsBool(x.dtype))
      return BoolOp(x, Draw("op_bool"));
    return IntOp(x, Draw("op_int"));
  }

  // Ops every dtype has: comparisons, where, clamp, casts, bitcasts.
  std::optional<Value> CommonOp(const Value &x, const std::string &op) {
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
  Value Cast(const Value &x, const std::string &to) {
    if (IsFloat(x.dtype) && IsInteger(to)) {
      const std::string range = to == "int8"    ? "-128.0, 127.0"
                                : to == "uint8" ? "0.0, 255.0"
                                : to == "int16" ? "-32768.0, 32512.0"
                                : to == "int32" ? "-2147483648.0, 1073741824.0"
                                                : "-4.611686018427388e18, 4.611686018427388e18";
      // A 16-bit float cannot hold int32's or int64's bounds: clamped in float32.
      const std::string value =
          FactsOf(x.dtype).bits == 16 ? x.name + ".to(torch.float32)" : x.name;
      return Emit(
          fmt::format("torch.nan_to_num({}, nan=0.0).clamp({}).to(torch.{})", value, range, to), to,
          DtypeMagnitude(to));
    }
    return Emit(fmt::format("{}.to(torch.{})", x.name, to), to,
                IsFloat(to) ? std::numeric_limits<double>::infinity()
                            : std::min(x.bound, DtypeMagnitude(to)));
  }

  // Whether bound fits the C++ type the dtype computes in.
  bool Fits(const std::string &dtype, double bound) const { return bound <= ComputeLimit(dtype); }

  Value IntOp(const Value &x, const std::string &op) {
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
    return FloatOp(Cast(x, random_.Pick(std::vector<std::string>{"float32", "float64", "float16",
                                                                 "bfloat16"})),
                   Draw("op_float"));
  }

  std::string IntCountSource(const Value &x) {
    for (const auto &value : values_)
      if (IsInteger(value.dtype) && value.name != x.name &&
          FactsOf(value.dtype).bits <= FactsOf(x.dtype).bits)
        return value.name;
    return Source(x.dtype).name;
  }

  Value FloatOp(const Value &x, const std::string &op) {
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
                         op == "special_binary" || op == "ndtr" || op == "log_ndtr" ||
                         op == "erfcx";
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

  Value BoolOp(const Value &x, const std::string &op) {
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

  Random &random_;
  const GenerationPolicy &policy_;
  corpus::Case &case_;
  std::map<std::string, int> &features_;
  std::vector<Value> values_;
  std::vector<std::string> body_;
  std::string output_dtype_;
  double bound_of_index_ = 0;
  std::int64_t kv_len_;
};

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
