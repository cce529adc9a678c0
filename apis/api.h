#pragma once

// An API a case may call, as one row: what each layer knows of it, in the plain struct that layer
// declares (corpus/api_row.h, fuzzer/generate/api_row.h, reducers/case/api_row.h). One file per
// API (apis/NAME.cpp) makes its row; apis/registry.cpp lists them once. This layer sits above
// workflows so that a row may name anything of the layers below it.

#include "corpus/api_row.h"
#include "fuzzer/generate/api_row.h"
#include "reducers/case/api_row.h"

#include <string_view>
#include <vector>

namespace apis {

struct Api {
  std::string_view name; // the case's "api"; each layer's row is given it by the registry
  corpus::CorpusApi corpus;
  fuzzer::generate::GenerateApi generate;
  reducers::ReduceApi reduce;
};

// Every API, in the registration list's order (apis/registry.cpp): the order of the case's
// "api" choices, of the APIs' own fields in a case file, of the generator's own draws and of
// the APIs' own reduction passes.
const std::vector<Api> &Apis();

} // namespace apis
