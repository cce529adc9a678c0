#pragma once

#include "corpus/field_reader.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace corpus {

// A tensor the mask or score function captures (document ids, offsets, bias tables), or a
// ready-made input; its values are stored so that the case does not depend on any random
// generator at run time.
struct CapturedTensor {
  std::string name;
  std::string dtype; // one of TensorDtypes()
  std::vector<std::int64_t> shape;
  // Row-major values. Integer and bool tensors in `integers`, exactly (never through a double,
  // which would turn 9007199254740993 into 9007199254740992); floating tensors in `reals`,
  // which hold every float16, bfloat16, float32 and float64 value exactly.
  std::vector<std::int64_t> integers;
  std::vector<double> reals;
  bool IsFloating() const;
  std::size_t size() const { return IsFloating() ? reals.size() : integers.size(); }
  std::int64_t Elements() const;
  bool operator==(const CapturedTensor &) const = default;
};

struct TensorDtype {
  std::string_view name;
  int bytes;
  bool floating;
  std::int64_t min = 0; // integer dtypes: the range a value must lie in
  std::int64_t max = 0;
};

const std::vector<TensorDtype> &TensorDtypes();
// nullptr when `name` is no dtype a case may hold.
const TensorDtype *FindTensorDtype(std::string_view name);
std::string TensorDtypeNames(); // "int8, int16, ..." for messages

// Tensors with more elements than this go to a binary sidecar when a case file is saved.
inline constexpr std::int64_t kInlineTensorElements = 4096;
// A case file (its JSON) may hold at most this many bytes; sidecars at most kSidecarLimit.
inline constexpr std::size_t kCaseFileLimit = 16u << 20;
inline constexpr std::size_t kSidecarLimit = 1024u << 20;

// The tensor's values as raw little-endian bytes of its dtype (the sidecar's contents), and
// back; a decoded sidecar of the wrong length or with a value the dtype cannot hold is a
// FormatError naming `where`.
std::string EncodeTensorBytes(const CapturedTensor &tensor);
void DecodeTensorBytes(std::string_view bytes, CapturedTensor &tensor, const std::string &where);

// The sidecar file a saved case keeps `tensor` in: next to the case, named after both.
std::string SidecarFileName(const std::filesystem::path &case_file, const std::string &tensor);

} // namespace corpus
