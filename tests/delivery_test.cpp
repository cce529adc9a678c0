// What a campaign delivers for a bug (corpus/delivery.h), its issue draft
// (fuzzer/campaign/issue_draft.h) and the known issues' upstream status (corpus/known_issues.h).
#include "corpus/delivery.h"
#include "corpus/known_issues.h"
#include "fuzzer/campaign/issue_draft.h"
#include "support/errors.h"
#include "support/scratch_dir.h"
#include "workflows/delivery.h"
#include "workflows/replay.h"

#include <gtest/gtest.h>

#include <fstream>

namespace fuzzer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

corpus::ReleaseRun OnRelease(const std::string &torch, const std::string &result) {
  return {.torch = torch, .venv = ".venv-torch-" + torch, .result = result, .how = "exit code 1"};
}

TEST(Delivery, RoundTripsThroughItsFile) {
  const support::ScratchDir scratch("delivery-test");
  corpus::Delivery delivery{
      .bug = "bug-0123456789abcdef",
      .finding_id = "exception-0011223344556677",
      .signature = "exception|type=builtins.RuntimeError|message=x",
      .status = corpus::DeliveryStatus::kTimeout,
      .detail = "stopped after 60 s",
      .reduce_seconds = 61.5,
      .repro_lines = 19,
      .reproduces_standalone = true,
      .standalone_how = "exit code 1: RuntimeError: x",
      .standalone_output = "Traceback\nRuntimeError: x",
      .releases = {OnRelease("2.6.0", "passes"), OnRelease("2.15.0", "fails")},
      .release_label = "regression since 2.15.0 (passes on 2.6.0)",
      .environment = {{"torch", "2.15.0"}},
      .tool_version = "0.1.0",
      .command_line = "inductor-fuzz fuzz",
      .time = "2026-11-25T00:00:00Z"};
  corpus::WriteDelivery(scratch.path(), delivery);
  const auto read = corpus::ReadDelivery(scratch.path());
  ASSERT_TRUE(read);
  EXPECT_EQ(corpus::DeliveryToJson(*read), corpus::DeliveryToJson(delivery));
  EXPECT_FALSE(corpus::ReadDelivery(scratch / "elsewhere"));
}

TEST(Delivery, DamagedFileIsAnErrorNamingItsField) {
  const support::ScratchDir scratch("delivery-damaged");
  json document = corpus::DeliveryToJson({.bug = "b", .finding_id = "f", .signature = "s"});
  document["status"] = "halfway";
  std::ofstream(scratch / "delivery.json") << document.dump();
  try {
    corpus::ReadDelivery(scratch.path());
    FAIL() << "a status that is none of the five was read";
  } catch (const support::InputError &error) {
    EXPECT_NE(std::string(error.what()).find("'status'"), std::string::npos) << error.what();
  }
  std::ofstream(scratch / "delivery.json") << "\x7f"
                                              "ELF\x02\x01";
  EXPECT_THROW(corpus::ReadDelivery(scratch.path()), support::InputError);
}

TEST(Delivery, ReleaseLabelNamesWhereTheFailureStarts) {
  using corpus::ReleaseLabel;
  EXPECT_EQ(ReleaseLabel({OnRelease("2.15.0", "fails")}), "");
  EXPECT_EQ(ReleaseLabel({OnRelease("2.6.0", "fails"), OnRelease("2.15.0", "fails")}),
            "also in 2.6.0");
  EXPECT_EQ(ReleaseLabel({OnRelease("2.6.0", "passes"), OnRelease("2.7.1", "fails"),
                          OnRelease("2.15.0", "fails")}),
            "regression since 2.7.1 (passes on 2.6.0)");
  EXPECT_EQ(ReleaseLabel({OnRelease("2.6.0", "fails-differently"), OnRelease("2.15.0", "fails")}),
            "fails from 2.15.0 on (2.6.0 fails differently)");
  EXPECT_EQ(ReleaseLabel({OnRelease("2.6.0", "fails"), OnRelease("2.15.0", "passes")}), "");
}

TEST(KnownIssues, StatusesAreTheFourUpstreamOnesAndFixedInARelease) {
  EXPECT_TRUE(corpus::IsKnownIssueStatus("unreported"));
  EXPECT_TRUE(corpus::IsKnownIssueStatus("reported"));
  EXPECT_TRUE(corpus::IsKnownIssueStatus("fixed-upstream"));
  EXPECT_TRUE(corpus::IsKnownIssueStatus("fixed-in 2.16.0"));
  EXPECT_EQ(corpus::FixedInRelease("fixed-in 2.16.0"), "2.16.0");
  EXPECT_FALSE(corpus::IsKnownIssueStatus("fixed-in"));
  EXPECT_FALSE(corpus::IsKnownIssueStatus("fixed-in <release>"));
  EXPECT_FALSE(corpus::IsKnownIssueStatus("fixed-in soon"));
  EXPECT_FALSE(corpus::IsKnownIssueStatus("done"));
}

TEST(KnownIssues, ReducedFolderAndStatusSurviveAWriteBack) {
  const support::ScratchDir scratch("known-issues-write");
  const fs::path file = scratch / "known-issues.json";
  std::ofstream(file) << R"({"format_version": 1, "issues": [{"id": "a", "match": "crash|api=x",
    "status": "reported", "link": "https://github.com/pytorch/pytorch/issues/1",
    "reduced": "corpus/findings/reduced/a", "title": "t"}]})";
  auto known = corpus::ReadKnownIssues(file);
  ASSERT_EQ(known.issues.size(), 1u);
  EXPECT_EQ(known.issues[0].reduced, "corpus/findings/reduced/a");
  known.issues[0].status = "fixed-in 2.16.0";
  corpus::WriteKnownIssues(file, known);
  EXPECT_EQ(corpus::ReadKnownIssues(file).issues, known.issues);
  std::ofstream(file) << R"({"format_version": 1, "issues": [{"id": "a", "match": "crash|api=x",
    "status": "fixed-in someday", "link": "", "title": "t"}]})";
  EXPECT_THROW(corpus::ReadKnownIssues(file), support::InputError);
}

corpus::StoredFinding Stored(const std::string &id, const std::string &signature,
                             const std::string &torch) {
  corpus::StoredFinding finding{.id = id, .signature = signature};
  finding.hits.push_back({.id = "s1-i0", .provenance = {{"torch_version", torch}}});
  return finding;
}

TEST(KnownIssues, ReplayMarksFixedOnlyOnAnotherRelease) {
  corpus::KnownIssues known{
      .issues = {{.id = "gone", .match = "crash|a", .status = "reported"},
                 {.id = "flaky", .match = "crash|b", .status = "unreported"},
                 {.id = "still", .match = "crash|c", .status = "unreported"}}};
  using workflows::ReplayVerdict;
  const std::vector<workflows::ReplayResult> results = {
      {.id = "crash-a", .bug = "bug-a", .signature = "crash|a", .verdict = ReplayVerdict::kFixed},
      {.id = "crash-b", .bug = "bug-b", .signature = "crash|b", .verdict = ReplayVerdict::kFixed},
      {.id = "crash-c",
       .bug = "bug-c",
       .signature = "crash|c",
       .verdict = ReplayVerdict::kStillFailing}};
  const std::vector<corpus::StoredFinding> findings = {Stored("crash-a", "crash|a", "2.15.0"),
                                                       Stored("crash-b", "crash|b", "2.16.0"),
                                                       Stored("crash-c", "crash|c", "2.15.0")};
  const auto changed = workflows::MarkFixedKnownIssues(results, findings, "2.16.0", known);
  EXPECT_EQ(changed, std::vector<std::string>{"gone"});
  EXPECT_EQ(known.issues[0].status, "fixed-in 2.16.0");
  EXPECT_EQ(known.issues[1].status, "unreported"); // found on 2.16.0 itself: flaky, not fixed
  EXPECT_EQ(known.issues[2].status, "unreported");
}

// A repro that did not fail standalone, or a reducer that could not run, is delivered again;
// a compiler divergence (its repro.py never fails) and a case that no longer fails are not.
TEST(Delivery, OnlyADeliveryWhoseReproFailsOrCannotIsDone) {
  constexpr auto kCrash = corpus::FindingKind::kCrash;
  corpus::Delivery delivery{.signature = "crash|api=flex_attention|signal=11",
                            .status = corpus::DeliveryStatus::kReduced,
                            .reproduces_standalone = true};
  EXPECT_TRUE(workflows::DeliveryIsDone(delivery, kCrash));
  delivery.reproduces_standalone = false;
  EXPECT_FALSE(workflows::DeliveryIsDone(delivery, kCrash));
  delivery.status = corpus::DeliveryStatus::kTimeout;
  EXPECT_FALSE(workflows::DeliveryIsDone(delivery, kCrash));
  delivery.status = corpus::DeliveryStatus::kNotReproducible;
  EXPECT_TRUE(workflows::DeliveryIsDone(delivery, kCrash));
  delivery.status = corpus::DeliveryStatus::kFailed;
  EXPECT_FALSE(workflows::DeliveryIsDone(delivery, kCrash));
  delivery.status = corpus::DeliveryStatus::kPending;
  delivery.reproduces_standalone = true;
  EXPECT_FALSE(workflows::DeliveryIsDone(delivery, kCrash));
  delivery = {.signature = "compiler-divergence|built=g++-11|failed=clang++-19",
              .status = corpus::DeliveryStatus::kReduced};
  EXPECT_TRUE(workflows::DeliveryIsDone(delivery, corpus::FindingKind::kCompilerDivergence));
  // A reduction whose time ran out with a repro past a draft's length goes on the next night.
  delivery = {.signature = "crash|api=flex_attention|signal=memory",
              .status = corpus::DeliveryStatus::kTimeout,
              .repro_lines = corpus::kDraftReproLines,
              .reproduces_standalone = true};
  EXPECT_TRUE(workflows::DeliveryIsDone(delivery, kCrash));
  delivery.repro_lines = corpus::kDraftReproLines + 1;
  EXPECT_FALSE(workflows::DeliveryIsDone(delivery, kCrash));
  delivery.status = corpus::DeliveryStatus::kReduced; // finished: as short as it gets
  EXPECT_TRUE(workflows::DeliveryIsDone(delivery, kCrash));
}

TEST(IssueDraft, ShowsTheFirstDifferingValuesOfAWrongResult) {
  const std::string draft = campaign::RenderIssueDraft(
      {.api = "create_mask",
       .failure = "compiled differs from eager",
       .kind = corpus::FindingKind::kWrongResult,
       .repro = "import torch\nprint(1)\n",
       .output = "Traceback (most recent call last):\nAssertionError: Tensor-likes are not "
                 "equal!\n\nMismatched elements: 2873 / 65024 (4.4%)\nGreatest absolute "
                 "difference: 1 at index (0, 0, 3, 7)\n",
       .releases = {OnRelease("2.6.0", "passes"), OnRelease("2.15.0", "fails")},
       .release_label = "regression since 2.15.0 (passes on 2.6.0)",
       .environment = {{"torch", "2.15.0"}, {"cpu_capability", "AVX512"}},
       .signature = "wrong-result|api=create_mask",
       .provenance = "a test"});
  EXPECT_TRUE(draft.starts_with("# [inductor][cpu] create_mask: compiled differs from eager\n"))
      << draft;
  EXPECT_NE(draft.find("```python\nimport torch\nprint(1)\n```"), std::string::npos) << draft;
  EXPECT_NE(draft.find("**Actual:** `Mismatched elements: 2873 / 65024 (4.4%); Greatest absolute "
                       "difference: 1 at index (0, 0, 3, 7)`"),
            std::string::npos)
      << draft;
  EXPECT_NE(draft.find("**Releases:** regression since 2.15.0 (passes on 2.6.0)."),
            std::string::npos)
      << draft;
  EXPECT_NE(draft.find("CPU capability (ATen): AVX512"), std::string::npos) << draft;
}

TEST(IssueDraft, ACompileErrorShowsTheCompilersError) {
  const std::string draft = campaign::RenderIssueDraft(
      {.api = "flex_attention",
       .failure = "the generated C++ does not compile",
       .kind = corpus::FindingKind::kCompileError,
       .repro = "x\n",
       .output = "torch._inductor.exc.InductorError: CppCompileError: C++ compile error\n"
                 "/tmp/x.cpp:12:5: error: cannot convert 'accum_t*' to 'bool*'\nmore\n"});
  EXPECT_NE(draft.find("**Actual:** `<tmp>/x.cpp:12:5: error: cannot convert 'accum_t*' to "
                       "'bool*'`"),
            std::string::npos)
      << draft;
  EXPECT_NE(draft.find("**Expected:** the C++ Inductor generates compiles"), std::string::npos)
      << draft;
}

TEST(IssueDraft, AKnownIssueWithoutAReducedFolderIsAnInputError) {
  const support::ScratchDir scratch("issue-draft-known");
  EXPECT_THROW(campaign::KnownIssueDraft({.id = "x", .match = "crash|x", .status = "unreported"},
                                         scratch.path(), {}),
               support::InputError);
}

} // namespace
} // namespace fuzzer
