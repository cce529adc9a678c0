#include "fuzzer/generate/op_dtypes.h"

#include <bit>
#include <cmath>
#include <limits>

namespace fuzzer::generate {

const std::vector<DtypeFacts> &Facts() {
  static const std::vector<DtypeFacts> facts = {
      {"bool", 8, Kind::kBool},      {"int8", 8, Kind::kSigned},     {"uint8", 8, Kind::kUnsigned},
      {"int16", 16, Kind::kSigned},  {"int32", 32, Kind::kSigned},   {"int64", 64, Kind::kSigned},
      {"float16", 16, Kind::kFloat}, {"bfloat16", 16, Kind::kFloat}, {"float32", 32, Kind::kFloat},
      {"float64", 64, Kind::kFloat},
  };
  return facts;
}

const DtypeFacts &FactsOf(const std::string &dtype) {
  for (const auto &facts : Facts())
    if (facts.name == dtype)
      return facts;
  return Facts().front();
}

bool IsFloat(const std::string &dtype) { return FactsOf(dtype).kind == Kind::kFloat; }
bool IsBool(const std::string &dtype) { return dtype == "bool"; }
bool IsInteger(const std::string &dtype) { return !IsFloat(dtype) && !IsBool(dtype); }

// torch's result type of two tensors (torch.result_type), for the dtypes programs draw.
std::string Promote(const std::string &a, const std::string &b) {
  if (a == b)
    return a;
  const DtypeFacts &x = FactsOf(a), &y = FactsOf(b);
  if (x.kind == Kind::kFloat && y.kind == Kind::kFloat) {
    if (x.bits == 16 && y.bits == 16)
      return "float32";
    return x.bits >= y.bits ? a : b;
  }
  if (x.kind == Kind::kFloat)
    return a;
  if (y.kind == Kind::kFloat)
    return b;
  if (x.kind == Kind::kBool)
    return b;
  if (y.kind == Kind::kBool)
    return a;
  if (x.kind == Kind::kUnsigned || y.kind == Kind::kUnsigned) {
    const DtypeFacts &other = x.kind == Kind::kUnsigned ? y : x;
    return other.bits > 8 ? other.name : "int16";
  }
  return x.bits >= y.bits ? a : b;
}

// The largest magnitude a value of the dtype may hold without overflowing the C++ type Inductor
// computes it in: int for the narrow integers (promoted), the type itself for int32 and int64.
double ComputeLimit(const std::string &dtype) {
  const DtypeFacts &facts = FactsOf(dtype);
  if (facts.kind == Kind::kFloat || facts.kind == Kind::kBool)
    return std::numeric_limits<double>::infinity();
  return facts.bits < 32 ? 2147483647.0 : std::ldexp(1.0, facts.bits - 1) - 1;
}

double DtypeMagnitude(const std::string &dtype) {
  const DtypeFacts &facts = FactsOf(dtype);
  if (facts.kind == Kind::kBool)
    return 1;
  if (facts.kind == Kind::kFloat)
    return std::numeric_limits<double>::infinity();
  return facts.kind == Kind::kUnsigned ? 255.0 : std::ldexp(1.0, facts.bits - 1);
}

std::vector<std::int64_t> FloatBitPatterns(const std::string &dtype) {
  if (dtype == "float16")
    return {0x0000, 0x8000, 0x3C00, 0xBC00, 0x3800, 0xB800, 0x3E00, 0x4100, 0xC100, 0x4200,
            0x0001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x3555, 0x4248};
  if (dtype == "bfloat16")
    return {0x0000, 0x8000, 0x3F80, 0xBF80, 0x3F00, 0xBF00, 0x3FC0, 0x4020, 0xC020, 0x4040,
            0x0001, 0x007F, 0x0080, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0x3EAB, 0x4049};
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                0.5,
                                -0.5,
                                1.5,
                                2.5,
                                -2.5,
                                3.0,
                                1.0 / 3.0,
                                3.14159265358979,
                                2147483648.0,
                                16777217.0,
                                0.49999997,
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
  std::vector<std::int64_t> bits;
  if (dtype == "float32") {
    for (double value : values)
      bits.push_back(std::bit_cast<std::int32_t>(static_cast<float>(value)));
    for (float value : {std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
                        std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()})
      bits.push_back(std::bit_cast<std::int32_t>(value));
    bits.push_back(0x007FFFFF); // the largest subnormal
    return bits;
  }
  for (double value : values)
    bits.push_back(std::bit_cast<std::int64_t>(value));
  for (double value :
       {std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
        std::numeric_limits<double>::max(), -std::numeric_limits<double>::max()})
    bits.push_back(std::bit_cast<std::int64_t>(value));
  return bits;
}

// 16-bit patterns above 0x7fff are stored as the int16 they are.
std::int64_t AsSigned16(std::int64_t bits) { return bits >= 0x8000 ? bits - 0x10000 : bits; }

std::vector<std::int64_t> IntegerEdges(const std::string &dtype) {
  if (dtype == "int8")
    return {0, 1, -1, 2, -2, 7, 8, 9, -128, 127, -127, 126, 64, -64, 100};
  if (dtype == "uint8")
    return {0, 1, 2, 7, 8, 9, 127, 128, 129, 254, 255, 64};
  if (dtype == "int16")
    return {0, 1, -1, 7, 15, 16, 17, -32768, 32767, -32767, 255, 256, -256, 1000, -1000};
  if (dtype == "int32")
    return {0,         1,         -1,    7,     31,     32,      33,
            INT32_MIN, INT32_MAX, 65535, 65536, -65536, 1 << 30, -(1 << 30)};
  return {0,           1, -1, 7, 31, 63, 64, 65, INT64_MIN, INT64_MAX, 1LL << 32, (1LL << 53) + 1,
          -(1LL << 40)};
}

} // namespace fuzzer::generate
