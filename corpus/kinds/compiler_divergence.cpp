#include "corpus/kinds/kinds.h"

#include "corpus/kinds/key_parts.h"

#include <fmt/format.h>

namespace corpus::kinds::compiler_divergence {
namespace {

std::string Key(const Finding &finding) {
  std::string key = fmt::format("compiler-divergence|failed={}|crashed={}", Fact(finding, "failed"),
                                Fact(finding, "crashed"));
  for (const auto &error : Facts(finding, "error"))
    key += "|error=" + ProgramFree(error);
  return key;
}

} // namespace

FindingKindRow Row() {
  return {.kind = FindingKind::kCompilerDivergence,
          .name = "compiler-divergence",
          .detector = Detector::kMatrix,
          .meaning = "a TU builds on some compilers and not on others, or a compiler crashes",
          .facts = {"built", "failed", "crashed", "error"},
          .list_facts = {"built", "failed", "crashed"},
          .delivery_order = 4,
          .title = "generated C++ builds on one compiler only",
          .expected = kEveryCompiler,
          .key = &Key};
}

} // namespace corpus::kinds::compiler_divergence
