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
  // Through the last enumerator: a kind added to the enum without a row fails here.
  EXPECT_EQ(kinds.size(), static_cast<std::size_t>(FindingKind::kMemoryError) + 1);
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
  // Probed: the silent failures. Flaky: what a heap or a clock decides.
  for (const auto &row : FindingKindRows()) {
    EXPECT_EQ(row.probed, row.kind == kWrongResult || row.kind == kCrash) << row.name;
    EXPECT_EQ(row.flaky, row.kind == kCrash || row.kind == kTimeout || row.kind == kMemoryError)
        << row.name;
  }
  // Delivery reduces the worker's own failures first, the matrix's last.
  EXPECT_LT(RowOf(kWrongResult).delivery_order, RowOf(kCrash).delivery_order);
  EXPECT_LT(RowOf(kMemoryError).delivery_order, RowOf(kAnalysisError).delivery_order);
  EXPECT_LT(RowOf(kAnalysisError).delivery_order, RowOf(kLoadError).delivery_order);
  EXPECT_EQ(ExpectedBehaviour(RowOf(kException), "create_mask"),
            "`torch.compile(create_mask)` runs and returns what eager `create_mask` returns.");
}

} // namespace
} // namespace corpus
