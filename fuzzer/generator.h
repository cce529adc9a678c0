#pragma once

#include "fuzzer/case.h"
#include "fuzzer/policy.h"

#include <cstdint>
#include <map>
#include <string>

namespace fuzzer {

// Bumped whenever the same (seed, policy) would generate a different case.
inline constexpr int kGeneratorVersion = 1;

struct GeneratedCase {
  Case c;
  std::map<std::string, int> features; // "int_operator://" -> times used, for --stats
};

struct GenerationRequest {
  std::uint64_t seed = 0;
  std::uint64_t index = 0;  // case `index` of the run started at `seed`
  std::string command_line; // recorded in the case
};

// Generates one case in three phases: structure (API, mask form, patterns, shape classes,
// knobs), values (lengths, constants, captured tensors, expression trees), emission (Python
// source and the case). A pure function of (request.seed, request.index, policy).
GeneratedCase GenerateCase(const GenerationRequest &request, const GenerationPolicy &policy);

// The case JSON without what legitimately varies between runs of the same generator (the
// command line and the tool's build); its SHA-256 pins generation in the golden test.
std::string StableCaseHash(const Case &c);

} // namespace fuzzer
