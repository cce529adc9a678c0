#pragma once

// What the generator knows of each API (corpus/api_row.h says the rest): how a case of it is
// drawn, the policy entries its draws read, and which mutations change it. The rows are made by
// apis/NAME.cpp and listed once in apis/registry.cpp, which defines GenerateApis() at link time
// (the reason is in corpus/api_row.h).

#include "fuzzer/generate/policy.h"
#include "fuzzer/generate/random.h"

#include "corpus/case.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fuzzer::generate {

struct GenerateApi {
  std::string_view name;
  // Its weight in the default policy's "api" choice (the structure's draw, generator.cpp); 0: not
  // one of its options (drawn on its own below, or in place of another API's case).
  double weight = 0;
  // Drawn on its own, in place of an op program: from its own random stream (`stream`, a salt
  // distinct from RandomStream's and every other row's), with the chance the policy number
  // `chance` gives, then made by `draw` from the case the rest of the generator drew (its knobs
  // stay). Rows are tried in the list's order and the first drawn wins. No `draw`: the API is
  // drawn by the structure's own choices (generator.cpp), or not at all.
  std::string_view chance;
  RandomStream stream = RandomStream::kStructure;
  void (*draw)(Random &random, const GenerationPolicy &policy, corpus::Case &c,
               std::map<std::string, int> &features) = nullptr;
  // Adds the weights and numbers its draws read to the default policy (policy.cpp).
  void (*add_policy)(GenerationPolicy &policy) = nullptr;
  bool aoti = true; // AOTInductor may compile it (one call, no closure constants)
  // The mutations (mutator.cpp) that may change a case of it; empty: every one.
  std::vector<std::string_view> mutations;
  bool splice_same_api = false; // "subexpression" and "splice" only with a donor of the same API
  bool uint8_tables = false;    // "table_dtype" may make a table uint8
  std::string_view swaps_to;    // the API the "api" mutation makes a case of it ("": none)
  // The structure's own draws (generator.cpp, reach_draws.cpp): drawn with attention's arguments
  // (inputs' dtype and head dims, the families, a score program, decode shapes); its call makes a
  // BlockMask (an attention API's only where it has a mask); a case of it with one call and no
  // .item() may become a case of API `becomes` (an index program), with the chance "p_BECOMES".
  bool attention = false;
  bool makes_block_mask = false;
  std::string_view becomes;
};

// Every API, in the order of its registration list (apis/registry.cpp).
const std::vector<GenerateApi> &GenerateApis();

// The row named `name`, or a row of defaults for a name no row has.
inline const GenerateApi &GenerateApiOf(std::string_view name) {
  static const GenerateApi defaults{};
  for (const GenerateApi &api : GenerateApis())
    if (api.name == name)
      return api;
  return defaults;
}

} // namespace fuzzer::generate
