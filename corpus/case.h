#pragma once

#include "corpus/field_reader.h"
#include "corpus/knobs.h"
#include "fuzzer/support/text_file.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace corpus {

inline constexpr int kCaseFormatVersion = 1;

// A case the worker can run: everything that decides what Inductor generates is in here,
// so that a case replays to the same generated C++.
struct MaskFunction {
  std::string name;   // the function the source defines
  std::string source; // Python source; `torch` is in scope
  bool operator==(const MaskFunction &) const = default;
};

// A tensor the mask or score function captures (document ids, offsets, bias tables); its
// values are stored so that the case does not depend on any random generator at run time.
struct CapturedTensor {
  std::string name;
  std::string dtype; // "int64", "bool", "float32"
  std::vector<std::int64_t> shape;
  // Row-major values: int64 and bool tables in `integers`, exactly (never through a double,
  // which would turn 9007199254740993 into 9007199254740992); float32 tables in `reals`.
  std::vector<std::int64_t> integers;
  std::vector<double> reals;
  std::size_t size() const { return dtype == "float32" ? reals.size() : integers.size(); }
  bool operator==(const CapturedTensor &) const = default;
};

// The arguments of create_block_mask / create_mask; for flex_attention, those of its block mask.
struct BlockMaskArguments {
  std::optional<std::int64_t> batch; // B; none means broadcast over the batch
  std::optional<std::int64_t> heads; // H; none means broadcast over the heads
  std::int64_t q_len = 0;
  std::int64_t kv_len = 0;
  std::vector<std::int64_t> block_size{128}; // one value, or (Q, KV)
  std::string device = "cpu";
  bool operator==(const BlockMaskArguments &) const = default;
};

// flex_attention's query/key/value: q is (B, Hq, Q_LEN, E), k (B, Hkv, KV_LEN, E),
// v (B, Hkv, KV_LEN, Ev); inputs are drawn from torch's generator seeded with input_seed.
struct AttentionArguments {
  std::int64_t batch = 1;
  std::int64_t q_heads = 1;
  std::int64_t kv_heads = 1;
  std::int64_t q_len = 1;
  std::int64_t kv_len = 1;
  std::int64_t head_dim = 16;
  std::int64_t value_dim = 16;
  std::string dtype = "float32";
  std::int64_t input_seed = 0;
  bool use_block_mask = true;
  bool enable_gqa = false;
  bool operator==(const AttentionArguments &) const = default;
};

inline const std::vector<std::string> kApis = {"create_block_mask", "create_mask",
                                               "flex_attention"};

struct Case {
  int format_version = kCaseFormatVersion;
  std::string name;
  std::string api = "create_block_mask"; // one of kApis
  std::optional<MaskFunction> mask_mod;  // required but for flex_attention without a mask
  std::optional<MaskFunction> score_mod; // flex_attention only
  std::vector<CapturedTensor> tensors;
  BlockMaskArguments create_block_mask;
  std::optional<AttentionArguments> attention; // flex_attention only
  InductorKnobs inductor;
  std::string expect_raises; // empty, or the class of exception the case is meant to raise
  nlohmann::json provenance = nlohmann::json::object(); // seed, origin, tool version, ...
  bool operator==(const Case &) const = default;
};

// A case file or case JSON that cannot be used; the message names the field and the fix.
using CaseError = FormatError;

// The complete torch._inductor.config patch the case runs under (see knobs.h).
inline nlohmann::json InductorConfig(const Case &c) { return InductorConfig(c.inductor); }

Case CaseFromJson(const nlohmann::json &json);
nlohmann::json CaseToJson(const Case &c);
Case LoadCaseFile(const std::filesystem::path &path);

} // namespace corpus
