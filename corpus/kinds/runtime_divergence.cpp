#include "corpus/kinds/kinds.h"

#include "corpus/kinds/key_parts.h"

#include <fmt/format.h>

namespace corpus::kinds::runtime_divergence {
namespace {

std::string Key(const Finding &finding) {
  return fmt::format("runtime-divergence|differs={}|how={}|dtype={}", Fact(finding, "differs"),
                     Fact(finding, "how"), Fact(finding, "dtype"));
}

} // namespace

FindingKindRow Row() {
  return {
      .kind = FindingKind::kRuntimeDivergence,
      .name = "runtime-divergence",
      .detector = Detector::kMatrix,
      .meaning =
          "builds of one kernel by different compilers compute different outputs on the same calls",
      .facts = {"same", "differs", "how", "dtype", "kernel"},
      .list_facts = {"same", "differs"},
      .delivery_order = 4,
      .title = "generated kernel gives other values on another compiler",
      .expected = kEveryCompiler,
      .key = &Key};
}

} // namespace corpus::kinds::runtime_divergence
