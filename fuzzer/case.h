#pragma once

#include "fuzzer/text_file.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fuzzer {

inline constexpr int kCaseFormatVersion = 1;

// A case the worker can run: everything that decides what Inductor generates is in here,
// so that a case replays to the same generated C++.
struct MaskFunction {
  std::string name;   // the function the source defines
  std::string source; // Python source; `torch` is in scope
  bool operator==(const MaskFunction &) const = default;
};

struct BlockMaskArguments {
  std::optional<std::int64_t> batch; // B; none means broadcast over the batch
  std::optional<std::int64_t> heads; // H; none means broadcast over the heads
  std::int64_t q_len = 0;
  std::int64_t kv_len = 0;
  std::vector<std::int64_t> block_size{128}; // one value, or (Q, KV)
  std::string device = "cpu";
  bool operator==(const BlockMaskArguments &) const = default;
};

// The Inductor knobs that shape the generated text, each set explicitly for every case.
struct InductorKnobs {
  int cpp_threads = 1;
  std::optional<int> cpp_simdlen; // none: Inductor picks from the CPU
  bool cpp_wrapper = false;
  bool dynamic = false;
  bool operator==(const InductorKnobs &) const = default;
};

struct Case {
  int format_version = kCaseFormatVersion;
  std::string name;
  MaskFunction mask_mod;
  BlockMaskArguments create_block_mask;
  InductorKnobs inductor;
  nlohmann::json provenance = nlohmann::json::object(); // seed, origin, tool version, ...
  bool operator==(const Case &) const = default;
};

// A case file or case JSON that cannot be used; the message names the field and the fix.
class CaseError : public InputError {
public:
  using InputError::InputError;
};

Case CaseFromJson(const nlohmann::json &json);
nlohmann::json CaseToJson(const Case &c);
Case LoadCaseFile(const std::filesystem::path &path);

} // namespace fuzzer
