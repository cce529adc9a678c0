#pragma once

#include "fuzzer/generator.h"

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>

namespace fuzzer {

struct GenOptions {
  std::uint64_t seed = 1;
  std::uint64_t count = 1;
  std::optional<std::filesystem::path> policy_file;
  bool python = false;
  bool stats = false;
  bool print_policy = false;
  std::string command_line;
};

// Feature counts over many generated cases, with every option of the policy listed even when
// it never came up (a zero there is a generator bug or a policy that turned it off).
std::map<std::string, int> CountFeatures(const GenerationPolicy &policy, std::uint64_t seed,
                                         std::uint64_t count);

// `inductor-fuzz gen`: cases as JSON lines, as Python scripts, or their statistics.
int GenCommand(const GenOptions &options, std::ostream &out);

} // namespace fuzzer
