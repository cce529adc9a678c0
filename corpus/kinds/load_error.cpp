#include "corpus/kinds/kinds.h"

#include "corpus/kinds/key_parts.h"

namespace corpus::kinds::load_error {
namespace {

std::string Key(const Finding &finding) {
  const std::string &symbol = Fact(finding, "symbol");
  if (auto missing = MissingSymbol(symbol))
    return *missing;
  return "load-error|symbol=" + ProgramFree(symbol);
}

} // namespace

FindingKindRow Row() {
  return {.kind = FindingKind::kLoadError,
          .name = "load-error",
          .detector = Detector::kMatrix,
          .meaning = "a build does not load: an undefined symbol, the other ABI flag",
          .facts = {"compiler", "symbol"},
          .delivery_order = 4,
          .title = "generated kernel does not load",
          .expected = kEveryCompiler,
          .key = &Key};
}

} // namespace corpus::kinds::load_error
