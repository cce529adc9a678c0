// One known issue, one bug (issue 83): findings of one known cause that their keys tell apart
// are one bug in a campaign's report (summary.json, report.html, junit.xml, findings.sarif),
// with every key and signature of them; findings no known issue names stay as they are, and the
// stored findings keep their keys. No torch: the findings are made here.
#include "corpus/bugs.h"
#include "corpus/finding_store.h"
#include "corpus/known_issues.h"
#include "fuzzer/campaign/reports.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

namespace fuzzer::campaign {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

corpus::Finding Crash(const std::string &abort) {
  corpus::Finding finding{.kind = corpus::FindingKind::kCrash};
  finding.essence.Add("api", "flex_attention").Add("signal", "6").Add("abort", abort);
  finding.summary = "worker died: " + abort;
  return finding;
}

corpus::Case Generated(std::uint64_t index) {
  corpus::Case c;
  c.name = "s5-" + std::to_string(index);
  c.mask_mod = corpus::MaskFunction{"mask", "def mask(b, h, q_idx, kv_idx):\n    return q_idx >= "
                                            "kv_idx\n"};
  c.create_block_mask.batch = 1;
  c.create_block_mask.heads = 1;
  c.create_block_mask.q_len = 128;
  c.create_block_mask.kv_len = 128;
  c.provenance = {{"seed", 5}, {"index", index}};
  return c;
}

void Record(corpus::FindingStore &store, const corpus::Finding &finding, std::uint64_t index) {
  const corpus::Case c = Generated(index);
  store.Record(finding, corpus::MakeHit(c, {{"torch_version", "2.15.0"}}, "2026-12-02T00:00:00Z"),
               [c](const fs::path &dir) {
                 support::WriteFileAtomically(dir / "case.json", corpus::CaseToJson(c).dump(2));
                 support::WriteFileAtomically(dir / "repro.py", "# repro of " + c.name + "\n");
               });
}

std::string Read(const fs::path &path) {
  std::stringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  return text.str();
}

// Every file of a folder and its text, to see that writing a report changes none of them.
std::map<std::string, std::string> Files(const fs::path &root) {
  std::map<std::string, std::string> files;
  for (const auto &entry : fs::recursive_directory_iterator(root))
    if (entry.is_regular_file())
      files[fs::relative(entry.path(), root).string()] = Read(entry.path());
  return files;
}

class KnownIssueReport : public ::testing::Test {
protected:
  void SetUp() override {
    // Two assertions of one known cause, worded apart: two keys; a third crash that no known
    // issue names.
    corpus::FindingStore store(corpus_);
    Record(store, Crash("Assertion `numel > 0' failed."), 1);
    Record(store, Crash("Assertion `ndim > 0' failed."), 2);
    Record(store, Crash("Assertion `ndim > 0' failed."), 3);
    Record(store, Crash("terminate called after throwing an instance of 'c10::Error'"), 4);
    findings_ = store.List();
    known_.issues.push_back(
        corpus::KnownIssue{.id = "flex-assertion",
                           .match = "crash|api=flex_attention|abort=Assertion *",
                           .status = "reported",
                           .link = "https://github.com/pytorch/pytorch/issues/1"});
  }

  support::ScratchDir scratch_{"known-issue-report"};
  fs::path corpus_ = scratch_ / "corpus";
  std::vector<corpus::StoredFinding> findings_;
  corpus::KnownIssues known_;
};

TEST_F(KnownIssueReport, BugsOfOneKnownIssueAreJoinedAndTheOthersStayAsTheyAre) {
  const auto corpus_bugs = corpus::GroupIntoBugs(findings_);
  ASSERT_EQ(corpus_bugs.size(), 3u) << "three keys: three bugs in the corpus";
  std::set<std::string> known_ids, other_ids;
  for (const auto &bug : corpus_bugs)
    (bug.Known(known_) ? known_ids : other_ids).insert(bug.id);
  ASSERT_EQ(known_ids.size(), 2u);

  const auto bugs = corpus::JoinByKnownIssue(corpus_bugs, known_);
  ASSERT_EQ(bugs.size(), 2u);
  const auto joined = std::find_if(bugs.begin(), bugs.end(),
                                   [](const corpus::Bug &bug) { return bug.joined.size() == 2; });
  ASSERT_NE(joined, bugs.end());
  EXPECT_EQ(joined->known_issue, "flex-assertion");
  EXPECT_EQ(std::set<std::string>(joined->joined.begin(), joined->joined.end()), known_ids);
  EXPECT_TRUE(known_ids.contains(joined->id)) << "its id is that of its smallest key's bug";
  EXPECT_EQ(joined->keys.size(), 2u);
  EXPECT_EQ(joined->key, joined->keys.front());
  EXPECT_EQ(joined->members.size(), 2u);
  EXPECT_EQ(joined->members.front().finding.summary, "worker died: Assertion `ndim > 0' failed.")
      << "most hits first";
  EXPECT_EQ(joined->hit_ids.size(), 3u);
  EXPECT_EQ(joined->Known(known_)->id, "flex-assertion");
  const auto other = joined == bugs.begin() ? bugs.begin() + 1 : bugs.begin();
  EXPECT_EQ(other->joined, std::vector<std::string>{other->id});
  EXPECT_TRUE(other->known_issue.empty());
  EXPECT_TRUE(other_ids.contains(other->id));
  EXPECT_EQ(corpus::JoinByKnownIssue(corpus_bugs, {}).size(), 3u) << "no known issues: as stored";
}

TEST_F(KnownIssueReport, TheReportListsOneBugPerKnownIssueWithItsSignaturesAndKeys) {
  const auto stored_before = Files(corpus_);
  const fs::path report = scratch_ / "report";
  WriteReports(report, ReportInput{.findings = findings_,
                                   .known_issues = known_,
                                   .provenance = {{"tool_version", "test"}, {"seed", 5}}});
  EXPECT_EQ(Files(corpus_), stored_before) << "the stored findings are not touched";

  const json summary = json::parse(Read(report / "summary.json"));
  ASSERT_EQ(summary["bugs"].size(), 2u);
  const json *joined = nullptr;
  for (const auto &bug : summary["bugs"])
    if (!bug["known_issue"].is_null())
      joined = &bug;
  ASSERT_NE(joined, nullptr);
  EXPECT_EQ((*joined)["known_issue"]["id"], "flex-assertion");
  EXPECT_EQ((*joined)["signatures"].size(), 2u);
  EXPECT_EQ((*joined)["keys"].size(), 2u);
  EXPECT_EQ((*joined)["joined_bugs"].size(), 2u);
  EXPECT_EQ((*joined)["hit_count"], 3);
  // Per signature, as stored: each finding names the one bug it is listed under.
  ASSERT_EQ(summary["findings"].size(), 3u);
  std::size_t under_joined = 0;
  for (const auto &finding : summary["findings"])
    under_joined += finding["bug"] == (*joined)["id"];
  EXPECT_EQ(under_joined, 2u);

  const std::string html = Read(report / "report.html");
  EXPECT_NE(html.find("of the 2 bugs of known issue flex-assertion"), std::string::npos);
  std::size_t rows = 0;
  for (auto at = html.find("<td>known issue flex-assertion"); at != std::string::npos;
       at = html.find("<td>known issue flex-assertion", at + 1))
    ++rows;
  EXPECT_EQ(rows, 1u) << "one row for the known issue";
  const std::string junit = Read(report / "junit.xml");
  std::size_t testcases = 0;
  for (auto at = junit.find("<testcase "); at != std::string::npos;
       at = junit.find("<testcase ", at + 1))
    ++testcases;
  EXPECT_EQ(testcases, 2u);
  const json sarif = json::parse(Read(report / "findings.sarif"));
  EXPECT_EQ(sarif["runs"][0]["results"].size(), 2u);
}

} // namespace
} // namespace fuzzer::campaign
