// The finding-kind table (corpus/finding_kinds.h): one row per kind, and every question the
// tool asks of a kind answered by the row, also from a signature's text.
#include "corpus/bug_key.h"
#include "corpus/finding.h"
#include "corpus/finding_kinds.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace corpus {
namespace {

TEST(FindingKinds, EveryKindHasOneRowWithItsOwnName) {
  std::set<std::string_view> names;
  std::set<FindingKind> kinds;
  for (const auto &row : FindingKindRows()) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_TRUE(kinds.insert(row.kind).second) << row.name;
    EXPECT_EQ(&RowOf(row.kind), &row);
    EXPECT_EQ(KindName(row.kind), row.name);
    EXPECT_EQ(KindFromName(row.name), row.kind);
    EXPECT_FALSE(row.facts.empty()) << row.name;
    EXPECT_EQ(FactsOfKind(row.name), &row.facts);
    EXPECT_FALSE(row.expected.empty()) << row.name;
  }
  // The list that makes the enum makes the rows, in its order.
  std::size_t listed = 0;
#define INDUCTOR_FUZZ_KIND(enumerator, file)                                                       \
  EXPECT_EQ(FindingKindRows()[listed++].kind, FindingKind::enumerator) << #file;
#include "corpus/finding_kinds.def"
#undef INDUCTOR_FUZZ_KIND
  EXPECT_EQ(kinds.size(), listed);
  EXPECT_EQ(AllFindingKinds().size(), kinds.size());
  EXPECT_EQ(KindFromName("missing-symbol"), std::nullopt);
  ASSERT_NE(FactsOfKind("missing-symbol"), nullptr); // a key's kind, not a finding's
  EXPECT_EQ(FactsOfKind("no-such-kind"), nullptr);
}

TEST(FindingKinds, ASignatureNamesItsRow) {
  const auto *row = RowOfSignature("compile-error|family=gcc|message=x|option=");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->kind, FindingKind::kCompileError);
  EXPECT_TRUE(row->in_one_tu);
  EXPECT_EQ(RowOfSignature("memory-error")->kind, FindingKind::kMemoryError);
  EXPECT_EQ(RowOfSignature("compile-errors|x"), nullptr);
  EXPECT_EQ(RowOfSignature(""), nullptr);
}

TEST(FindingKinds, TheRowsSayWhatTheToolDoesWithEachKind) {
  using enum FindingKind;
  EXPECT_EQ(DetectorOf(kConflictingDeclaration), "check");
  EXPECT_EQ(DetectorOf(kRuntimeDivergence), "matrix");
  EXPECT_EQ(DetectorOf(kMemoryError), "sanitizer");
  EXPECT_EQ(DetectorOf(kTimeout), "worker");
  // Probed: the silent failures. Three runs a candidate: what a heap or a clock decides.
  for (const auto &row : FindingKindRows()) {
    EXPECT_EQ(row.probed, row.kind == kWrongResult || row.kind == kCrash) << row.name;
    EXPECT_EQ(row.confirm_runs, row.kind == kCrash || row.kind == kTimeout ? 3u : 1u) << row.name;
  }
  // A draft: a repro compares values exactly where its output shows a comparison; only the
  // worker's process ends with its kind; a repro unrolls the calls for the worker's failures of
  // the compiled call itself, none of which compares.
  for (const auto &row : FindingKindRows()) {
    EXPECT_EQ(row.compares_values, row.draft_excerpt == DraftExcerpt::kComparison) << row.name;
    EXPECT_EQ(row.ends_the_process, row.kind == kCrash || row.kind == kTimeout) << row.name;
    EXPECT_EQ(row.unrolls, row.detector == Detector::kWorker && !row.compares_values) << row.name;
  }
  // Delivery reduces the worker's own failures first, the matrix's last.
  EXPECT_LT(RowOf(kWrongResult).delivery_order, RowOf(kCrash).delivery_order);
  EXPECT_LT(RowOf(kMemoryError).delivery_order, RowOf(kAnalysisError).delivery_order);
  EXPECT_LT(RowOf(kAnalysisError).delivery_order, RowOf(kLoadError).delivery_order);
  // A memory error reduces sanitized; a memory crash when its sanitized run reports one; an
  // abort that is not the heap's, and every other kind, as it was found.
  EXPECT_EQ(ReduceFormOf("memory-error|error=x"), ReduceForm::kSanitized);
  EXPECT_EQ(ReduceFormOf("crash|api=flex_attention|signal=memory|abort=memory error"),
            ReduceForm::kSanitizedWhenItReports);
  EXPECT_EQ(ReduceFormOf("crash|api=flex_attention|signal=6|abort=terminate called"),
            ReduceForm::kAsFound);
  EXPECT_EQ(ReduceFormOf("wrong-result|api=flex_attention"), ReduceForm::kAsFound);
  EXPECT_EQ(ReduceFormOf("not-a-kind|x=1"), ReduceForm::kAsFound);
  EXPECT_EQ(ExpectedBehaviour(RowOf(kException), "create_mask"),
            "`torch.compile(create_mask)` runs and returns what eager `create_mask` returns.");
}

// Each kind's own judge of a standalone repro's run: the one reduce, delivery and
// `repro SCRIPT --signature` use.
TEST(FindingKinds, EachKindJudgesItsOwnRepro) {
  const auto shows = [](const std::string &signature, const ReproRun &run) {
    const auto *row = RowOfSignature(signature);
    return row && row->shows_in_repro && row->shows_in_repro(run, ExpectationOf(signature));
  };
  const ReproRun assertion{.exit_code = 1, .output = "AssertionError: Tensor-likes are not close!"};
  EXPECT_TRUE(shows("wrong-result|api=create_mask", assertion));
  EXPECT_FALSE(shows("wrong-result|api=create_mask", {.exit_code = 0, .output = assertion.output}));
  EXPECT_FALSE(
      shows("wrong-result|api=create_mask", {.timed_out = true, .output = "AssertionError"}));
  const std::string raised = "exception|type=builtins.RuntimeError|message=boom <N> times";
  EXPECT_TRUE(shows(raised, {.exit_code = 1, .output = "RuntimeError: boom 3 times"}));
  EXPECT_FALSE(shows(raised, {.exit_code = 1, .output = "RuntimeError: bang 3 times"}));
  EXPECT_FALSE(shows(raised, {.exit_code = 1, .output = "ValueError: boom 3 times"}));
  EXPECT_TRUE(shows("crash|api=create_mask|signal=11", {.signal = 11}));
  EXPECT_FALSE(shows("crash|api=create_mask|signal=11", {.signal = 6}));
  EXPECT_TRUE(shows("timeout|api=create_mask", {.timed_out = true}));
  EXPECT_FALSE(shows("timeout|api=create_mask", {.exit_code = 1}));
  EXPECT_TRUE(shows("compile-error|family=gcc|message=x",
                    {.exit_code = 1, .output = "CppCompileError: ..."}));
  const std::string memory = "memory-error|error=heap-buffer-overflow|kernel=k";
  EXPECT_EQ(RowOfSignature(memory)->repro_form, ReproForm::kSanitized);
  EXPECT_TRUE(shows(memory, {.exit_code = 1, .sanitizer_signatures = {memory}}));
  EXPECT_FALSE(shows(memory, {.exit_code = 1, .sanitizer_signatures = {"memory-error|other"}}));
  // The matrix's kinds and `check`'s have no repro.py to judge.
  EXPECT_FALSE(shows("compiler-divergence|failed=g++-12", {.exit_code = 1}));
  EXPECT_FALSE(shows("conflicting-declaration|check=redeclared-variable", {.exit_code = 1}));
}

} // namespace
} // namespace corpus
