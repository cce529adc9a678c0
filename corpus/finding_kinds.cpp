#include "corpus/finding_kinds.h"

#include <algorithm>

namespace corpus {
namespace {

constexpr std::string_view kRunsAsEager =
    "`torch.compile({api})` runs and returns what eager `{api}` returns.";
constexpr std::string_view kEveryCompiler =
    "the kernel Inductor generates builds, loads and gives the same values with every supported "
    "compiler.";

std::vector<FindingKindRow> MakeRows() {
  using enum FindingKind;
  const std::vector<std::string_view> declaration_facts = {"check", "name", "type", "previous_type",
                                                           "kernel"};
  return {
      {.kind = kWrongResult,
       .name = "wrong-result",
       .detector = Detector::kWorker,
       .facts = {"api", "fields", "tables", "blocks", "problems", "how", "where", "template",
                 "wrapper", "shapes", "needs"},
       .probed = true,
       .delivery_order = 0,
       .title = "compiled result differs from eager",
       .expected = "`torch.compile({api})` gives the result eager `{api}` gives (the repro "
                   "compares them with `torch.testing.assert_close`)."},
      {.kind = kException,
       .name = "exception",
       .detector = Detector::kWorker,
       .facts = {"api", "type", "message", "frame"},
       .delivery_order = 0,
       .title = "torch.compile raises",
       .expected = kRunsAsEager},
      {.kind = kCompileError,
       .name = "compile-error",
       .detector = Detector::kWorker,
       .facts = {"family", "message", "option"},
       .in_one_tu = true,
       .delivery_order = 0,
       .title = "C++ compile error",
       .expected = "the C++ Inductor generates compiles, and the compiled call returns what "
                   "eager does."},
      {.kind = kCrash,
       .name = "crash",
       .detector = Detector::kWorker,
       .facts = {"api", "signal", "abort", "protocol", "template", "wrapper", "shapes", "needs"},
       .probed = true,
       .flaky = true,
       .delivery_order = 1,
       .title = "compiled call crashes the process",
       .expected = kRunsAsEager},
      {.kind = kTimeout,
       .name = "timeout",
       .detector = Detector::kWorker,
       .facts = {"api", "template", "wrapper", "shapes", "needs"},
       .flaky = true,
       .delivery_order = 1,
       .title = "compiled call never returns",
       .expected = "the call ends, as eager does."},
      {.kind = kConflictingDeclaration,
       .name = "conflicting-declaration",
       .detector = Detector::kCheck,
       .facts = declaration_facts,
       .in_one_tu = true,
       .title = "generated C++ declares a name twice",
       .expected = kRunsAsEager},
      {.kind = kShadowing,
       .name = "shadowing",
       .detector = Detector::kCheck,
       .facts = declaration_facts,
       .title = "generated C++ shadows a name",
       .expected = kRunsAsEager},
      {.kind = kAnalysisError,
       .name = "analysis-error",
       .detector = Detector::kCheck,
       .facts = {"check", "diagnostic", "origin", "name", "type", "previous_type", "kernel",
                 "because"},
       .in_one_tu = true,
       .title = "generated C++ is ill-formed",
       .expected = kRunsAsEager},
      {.kind = kCompilerDivergence,
       .name = "compiler-divergence",
       .detector = Detector::kMatrix,
       .facts = {"built", "failed", "crashed", "error"},
       .delivery_order = 4,
       .title = "generated C++ builds on one compiler only",
       .expected = kEveryCompiler},
      {.kind = kLoadError,
       .name = "load-error",
       .detector = Detector::kMatrix,
       .facts = {"compiler", "symbol"},
       .delivery_order = 4,
       .title = "generated kernel does not load",
       .expected = kEveryCompiler},
      {.kind = kRuntimeDivergence,
       .name = "runtime-divergence",
       .detector = Detector::kMatrix,
       .facts = {"same", "differs", "how", "dtype", "kernel"},
       .delivery_order = 4,
       .title = "generated kernel gives other values on another compiler",
       .expected = kEveryCompiler},
      {.kind = kMemoryError,
       .name = "memory-error",
       .detector = Detector::kSanitizer,
       .facts = {"error", "access", "kernel", "statement"},
       .flaky = true,
       .delivery_order = 2,
       .title = "generated kernel accesses memory out of bounds",
       .expected = kRunsAsEager},
  };
}

} // namespace

const std::vector<FindingKindRow> &FindingKindRows() {
  static const std::vector<FindingKindRow> rows = MakeRows();
  return rows;
}

const FindingKindRow &RowOf(FindingKind kind) {
  for (const auto &row : FindingKindRows())
    if (row.kind == kind)
      return row;
  return FindingKindRows().front(); // unreachable: every kind has a row (finding_kinds_test)
}

const FindingKindRow *RowOfName(std::string_view name) {
  for (const auto &row : FindingKindRows())
    if (row.name == name)
      return &row;
  return nullptr;
}

const FindingKindRow *RowOfSignature(std::string_view signature) {
  return RowOfName(signature.substr(0, signature.find('|')));
}

std::string_view DetectorName(Detector detector) {
  switch (detector) {
  case Detector::kCheck:
    return "check";
  case Detector::kMatrix:
    return "matrix";
  case Detector::kSanitizer:
    return "sanitizer";
  case Detector::kWorker:
    break;
  }
  return "worker";
}

std::string ExpectedBehaviour(const FindingKindRow &row, std::string_view api) {
  std::string text(row.expected);
  for (std::size_t at = text.find("{api}"); at != std::string::npos; at = text.find("{api}", at))
    text.replace(at, 5, api), at += api.size();
  return text;
}

} // namespace corpus
