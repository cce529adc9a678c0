#pragma once

#include "fuzzer/generate/generator.h"

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace workflows {

struct GenOptions {
  std::uint64_t seed = 1;
  std::uint64_t count = 1;
  std::optional<std::filesystem::path> policy_file;
  bool python = false;
  bool stats = false;
  bool print_policy = false;
  // Run requests (the case, its Inductor config and compile arguments), one JSON line each: the
  // cases file of the portable capture. From `from` when given, else generated.
  bool requests = false;
  std::vector<std::filesystem::path> from;
  std::string command_line;
};

// `inductor-fuzz gen`: cases as JSON lines, as run requests, as Python scripts, or their
// statistics.
int Generate(const GenOptions &options, std::ostream &out);

} // namespace workflows
