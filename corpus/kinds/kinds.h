#pragma once

// Each finding kind's row, made by its own file (corpus/kinds/FILE.cpp) and listed once in
// corpus/finding_kinds.def.

#include "corpus/finding_kinds.h"

#include <string_view>

namespace corpus::kinds {

// The "Expected:" sentences several kinds share.
inline constexpr std::string_view kRunsAsEager =
    "`torch.compile({api})` runs and returns what eager `{api}` returns.";
inline constexpr std::string_view kEveryCompiler =
    "the kernel Inductor generates builds, loads and gives the same values with every supported "
    "compiler.";

} // namespace corpus::kinds

#define INDUCTOR_FUZZ_KIND(enumerator, file)                                                       \
  namespace corpus::kinds::file {                                                                  \
  FindingKindRow Row();                                                                            \
  }
#include "corpus/finding_kinds.def"
#undef INDUCTOR_FUZZ_KIND
