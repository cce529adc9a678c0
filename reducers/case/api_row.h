#pragma once

// What the case reducer and the repro emitters know of each API (corpus/api_row.h says the
// rest): its own passes, its own repro script, and what the common passes may do to its cases.
// The rows are made by apis/NAME.cpp and listed once in apis/registry.cpp, which defines
// ReduceApis() at link time (the reason is in corpus/api_row.h).

#include "reducers/case/case_passes.h"
#include "reducers/case/repro_python.h"

#include "corpus/case.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reducers {

struct ReduceApi {
  std::string_view name;
  // The simpler APIs demote-api may make a case of it, the first tried first (none: it keeps its
  // API); the case loses its score_mod and attention.
  std::vector<std::string_view> demotes_to;
  // Its tensors are the storages of its inputs' views: shrink-tensors only fills them.
  bool tensors_are_storages = false;
  // Its own passes (OwnPass below), after shrink-tensors and before use-torch-compile, in order.
  std::vector<CasePass> passes;
  // Its inputs' elements, counted by CaseVolume instead of the block mask's and attention's;
  // nothing where the case has none.
  std::optional<std::int64_t> (*volume)(const corpus::Case &c) = nullptr;
  // Its own repro script: then its short, general and minimal forms, never the unrolled one;
  // nothing where the case lacks what it needs (the common short form is written instead).
  std::optional<std::string> (*repro)(const corpus::Case &c, const std::string &signature,
                                      ReproConfig config) = nullptr;
  // What torch.compile is given in a repro: the case's mask_mod (its program) by name, rather
  // than the API or a `program` wrapper.
  bool compiles_mask_mod = false;
  // What the common short, unrolled and general forms write for it: attention on q, k and v with
  // mask_mod's block mask and score_mod (its inputs, its call, a tolerance by dtype); create_mask's
  // dense mask. A BlockMask is its corpus row's (returns_block_mask). None of them: mask_mod
  // called on the sizes with device="cpu", compared with a tolerance.
  bool attention = false;
  bool dense_mask = false;
  // The short form's body in place of the mask API's call (an index program's), given the
  // compiled function's text; nothing: the mask API's own.
  std::string (*short_body)(const corpus::Case &c, const std::string &compiled) = nullptr;
};

// Every API, in the order of its registration list (apis/registry.cpp).
const std::vector<ReduceApi> &ReduceApis();

// The row named `name`, or a row of defaults for a name no row has.
inline const ReduceApi &ReduceApiOf(std::string_view name) {
  static const ReduceApi defaults{};
  for (const ReduceApi &api : ReduceApis())
    if (api.name == name)
      return api;
  return defaults;
}

// A pass of API `kApi`'s own, as a case pass: its candidates for a case of that API, none for
// another's.
template <const char *kApi, std::vector<corpus::Case> (*kPass)(const corpus::Case &)>
std::vector<corpus::Case> OwnPass(const corpus::Case &c, const PassContext &) {
  return c.api == kApi ? kPass(c) : std::vector<corpus::Case>{};
}

} // namespace reducers
