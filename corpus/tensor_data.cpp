#include "corpus/tensor_data.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace corpus {
namespace {

// IEEE half precision to float and back, for values a float16 tensor holds exactly.
float HalfToFloat(std::uint16_t half) {
  const std::uint32_t sign = (half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1f;
  const std::uint32_t mantissa = half & 0x3ff;
  if (exponent == 0x1f)
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) { // zero or subnormal: mantissa * 2^-24
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

std::uint16_t FloatToHalf(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const float magnitude = std::fabs(value);
  if (std::isnan(value))
    return sign | 0x7e00u;
  if (magnitude >= 65520.0f)
    return sign | 0x7c00u;
  if (magnitude < std::ldexp(1.0f, -14)) // subnormal
    return sign | static_cast<std::uint16_t>(std::lrint(std::ldexp(magnitude, 24)));
  const std::uint32_t exponent = ((bits >> 23) & 0xff) - 112;
  const std::uint32_t mantissa = (bits >> 13) & 0x3ff;
  return sign | static_cast<std::uint16_t>((exponent << 10) | mantissa);
}

template <typename T> void Put(std::string &out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T)); // the machines we run on are little-endian
  out.append(bytes, sizeof(T));
}

template <typename T> T Get(const char *data) {
  T value;
  std::memcpy(&value, data, sizeof(T));
  return value;
}

} // namespace

const std::vector<TensorDtype> &TensorDtypes() {
  static const std::vector<TensorDtype> dtypes = {
      {"int8", 1, false, INT8_MIN, INT8_MAX},
      {"int16", 2, false, INT16_MIN, INT16_MAX},
      {"int32", 4, false, INT32_MIN, INT32_MAX},
      {"int64", 8, false, INT64_MIN, INT64_MAX},
      {"bool", 1, false, 0, 1},
      {"float16", 2, true},
      {"bfloat16", 2, true},
      {"float32", 4, true},
      {"float64", 8, true},
      // Last, so that the messages and draws of the dtypes before keep their order.
      {"uint8", 1, false, 0, UINT8_MAX},
  };
  return dtypes;
}

const TensorDtype *FindTensorDtype(std::string_view name) {
  for (const auto &dtype : TensorDtypes())
    if (dtype.name == name)
      return &dtype;
  return nullptr;
}

std::string TensorDtypeNames() {
  std::string names;
  for (const auto &dtype : TensorDtypes())
    names += (names.empty() ? "" : ", ") + std::string(dtype.name);
  return names;
}

bool CapturedTensor::IsFloating() const {
  const TensorDtype *found = FindTensorDtype(dtype);
  return found && found->floating;
}

std::int64_t CapturedTensor::Elements() const {
  std::int64_t elements = 1;
  for (auto extent : shape)
    elements *= extent;
  return elements;
}

std::string EncodeTensorBytes(const CapturedTensor &tensor) {
  std::string out;
  const TensorDtype &dtype = *FindTensorDtype(tensor.dtype);
  out.reserve(tensor.size() * dtype.bytes);
  if (dtype.floating) {
    for (double value : tensor.reals) {
      if (dtype.name == "float64")
        Put(out, value);
      else if (dtype.name == "float32")
        Put(out, static_cast<float>(value));
      else if (dtype.name == "bfloat16")
        Put(out, static_cast<std::uint16_t>(
                     std::bit_cast<std::uint32_t>(static_cast<float>(value)) >> 16));
      else
        Put(out, FloatToHalf(static_cast<float>(value)));
    }
    return out;
  }
  for (std::int64_t value : tensor.integers) {
    switch (dtype.bytes) {
    case 1:
      Put(out, static_cast<std::int8_t>(value));
      break;
    case 2:
      Put(out, static_cast<std::int16_t>(value));
      break;
    case 4:
      Put(out, static_cast<std::int32_t>(value));
      break;
    default:
      Put(out, value);
    }
  }
  return out;
}

void DecodeTensorBytes(std::string_view bytes, CapturedTensor &tensor, const std::string &where) {
  const TensorDtype &dtype = *FindTensorDtype(tensor.dtype);
  const std::int64_t elements = tensor.Elements();
  if (static_cast<std::int64_t>(bytes.size()) != elements * dtype.bytes)
    throw FormatError(fmt::format("{} holds {} bytes, but {} {} values take {}", where,
                                  bytes.size(), elements, dtype.name, elements * dtype.bytes));
  tensor.integers.clear();
  tensor.reals.clear();
  for (std::int64_t i = 0; i < elements; ++i) {
    const char *at = bytes.data() + i * dtype.bytes;
    if (dtype.floating) {
      double value = 0;
      if (dtype.name == "float64")
        value = Get<double>(at);
      else if (dtype.name == "float32")
        value = Get<float>(at);
      else if (dtype.name == "bfloat16")
        value = std::bit_cast<float>(static_cast<std::uint32_t>(Get<std::uint16_t>(at)) << 16);
      else
        value = HalfToFloat(Get<std::uint16_t>(at));
      if (!std::isfinite(value))
        throw FormatError(fmt::format("{} holds {} at element {}; a case's tensors must be finite",
                                      where, value, i));
      tensor.reals.push_back(value);
      continue;
    }
    std::int64_t value = 0;
    switch (dtype.bytes) {
    case 1:
      value = dtype.min == 0 ? std::int64_t{Get<std::uint8_t>(at)} : Get<std::int8_t>(at);
      break;
    case 2:
      value = Get<std::int16_t>(at);
      break;
    case 4:
      value = Get<std::int32_t>(at);
      break;
    default:
      value = Get<std::int64_t>(at);
    }
    if (value < dtype.min || value > dtype.max)
      throw FormatError(
          fmt::format("{} holds {} at element {}, not a {} value", where, value, i, dtype.name));
    tensor.integers.push_back(value);
  }
}

std::string SidecarFileName(const std::filesystem::path &case_file, const std::string &tensor) {
  return case_file.stem().string() + "." + tensor + ".bin";
}

} // namespace corpus
