#pragma once

#include "corpus/case.h"
#include "fuzzer/generate/policy.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fuzzer::generate {

struct MutationRequest {
  std::uint64_t seed = 0;  // the campaign's seed
  std::uint64_t index = 0; // the case's index: with the seed, fixes every choice
  std::string command_line;
  std::string parent_id; // the pool entries the case derives from, recorded in it
  std::string donor_id;
  // The source of mutate_source.py (the syntax-tree mutations, a module of the worker's package
  // compiled into the binary), run by `python -c` (no torch needed).
  std::string source_mutator;
  std::filesystem::path python = "python3";
};

struct MutatedCase {
  corpus::Case c;
  std::vector<std::string> mutations; // one line each, in the order applied
};

// A new case made from `parent` by one to a few changes, each the dual of a case-reducer pass:
// an operator, a constant or a subexpression of mask_mod/score_mod (a donor's), the donor's mask
// spliced in, one knob, one length, the block size, the dtype, the API, a closure constant, one
// more call. Which changes and how many come from the policy ("mutation" weights,
// "mutation_stack"). A pure function of (parent, donor, request, policy): the case records its
// seed, index, parent and donor, so it can be made again from them.
MutatedCase MutateCase(const corpus::Case &parent, const corpus::Case &donor,
                       const MutationRequest &request, const GenerationPolicy &policy);

} // namespace fuzzer::generate
