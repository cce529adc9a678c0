// The one registration list of the APIs a case may call, and the lookups of the layers below,
// which each declare their own (corpus::CorpusApis, fuzzer::generate::GenerateApis,
// reducers::ReduceApis) and are given them here, at link time: every executable and test links
// this folder's object library (apis/CMakeLists.txt). A lookup defined above its declaration,
// rather than a list passed down, because a case is read, written and generated from a hundred
// call sites in every layer, none of which should carry a table; an object library, so that no
// static library depends on one above it; no row registers itself during static initialisation,
// and every list is built on first use and never changed.
#include "apis/api.h"

namespace apis {

// Each in its own file, apis/NAME.cpp.
Api CreateBlockMask();
Api CreateMask();
Api FlexAttention();
Api IndexProgram();
Api TensorProgram();

const std::vector<Api> &Apis() {
  static const std::vector<Api> apis = [] {
    std::vector<Api> rows = {CreateBlockMask(), CreateMask(), FlexAttention(), IndexProgram(),
                             TensorProgram()};
    for (Api &row : rows) // each layer's row named once, by the API's own name
      row.corpus.name = row.generate.name = row.reduce.name = row.name;
    return rows;
  }();
  return apis;
}

namespace {

template <class Row> std::vector<Row> Project(Row Api::*layer) {
  std::vector<Row> rows;
  for (const Api &api : Apis())
    rows.push_back(api.*layer);
  return rows;
}

} // namespace

} // namespace apis

const std::vector<corpus::CorpusApi> &corpus::CorpusApis() {
  static const auto rows = apis::Project(&apis::Api::corpus);
  return rows;
}

const std::vector<fuzzer::generate::GenerateApi> &fuzzer::generate::GenerateApis() {
  static const auto rows = apis::Project(&apis::Api::generate);
  return rows;
}

const std::vector<reducers::ReduceApi> &reducers::ReduceApis() {
  static const auto rows = apis::Project(&apis::Api::reduce);
  return rows;
}
