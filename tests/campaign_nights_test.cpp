// Campaigns over several machines and nights, as docs/nightly.md runs them: shards merged equal
// one run, and the second night on a corpus reports only what is new since the first.
#include "campaign_fixture.h"
#include "corpus/bugs.h"

namespace fuzzer {
namespace {

using namespace campaign_testing;

// Three shards over the same six cases, merged, equal one unsharded run. Second tier (172 s):
// the first tier merges two --shard auto shards in TheSecondNight..., the second also runs a
// three-task Slurm array whose merge equals one run (slurm_night).
TEST_F(CampaignFullTier, ThreeShardsMergedEqualOneRun) {
  const std::vector<std::string> common = {"--cases",         "6",
                                           "--jobs",          "1",
                                           "--inject-fault",  "1:segfault,4:segfault,5:allocate",
                                           "--case-timeout",  "300",
                                           "--worker-memory", "4000"};
  auto whole = common;
  ASSERT_EQ(RunInductorFuzz(Fuzz("whole", whole)).exit_code, 1);
  std::vector<std::string> merge = {"corpus", "merge"};
  for (int shard = 0; shard < 3; ++shard) {
    auto sharded = common;
    sharded.insert(sharded.end(), {"--shard", std::to_string(shard) + "/3"});
    const auto run = RunInductorFuzz(Fuzz("shard" + std::to_string(shard), sharded));
    ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.out << run.err;
    merge.push_back((*scratch_ / ("shard" + std::to_string(shard))).string());
  }
  merge.insert(merge.end(), {"--into", (*scratch_ / "merged").string()});
  const auto merged = RunInductorFuzz(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.out << merged.err;
  auto counts = [](const fs::path &root) {
    std::map<std::string, std::size_t> hits;
    for (const auto &finding : corpus::FindingStore(root).List())
      hits[finding.signature] = finding.HitCount();
    return hits;
  };
  EXPECT_EQ(counts(*scratch_ / "merged"), counts(*scratch_ / "whole"));
  const auto whole_counts = counts(*scratch_ / "whole");
  ASSERT_GE(whole_counts.size(), 2u);
  std::size_t segfault_hits = 0;
  for (const auto &[signature, hits] : whole_counts)
    if (signature.find("signal=memory") != std::string::npos)
      segfault_hits = hits;
  EXPECT_EQ(segfault_hits, 2u) << "cases 1 and 4, in shards 1 and 1: one signature, two hits";

  const auto list =
      RunInductorFuzz({"corpus", "list", "--corpus", (*scratch_ / "merged").string()});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find(fmt::format("from {} signature(s)", whole_counts.size())),
            std::string::npos)
      << list.out;
  const auto outside = RunInductorFuzz(
      {"corpus", "show", "../../etc/passwd", "--corpus", (*scratch_ / "merged").string()});
  EXPECT_EQ(outside.exit_code, 2);
}

// Two nights on one corpus, as docs/nightly.md runs them: night 1 (seed 3) alone; night 2
// (seed 4) as two Kubernetes-style shards (`--shard auto`, JOB_COMPLETION_INDEX) that each start
// from a copy of night 1, merged with night 1 into night 2's corpus. Each shard and the merged
// report say what is new since night 1: the segfault of case 1 is seen again, the memory blow-up
// of night 2's case 2 is new. Merges that would mix campaigns are refused whole.
TEST_F(CampaignTest, TheSecondNightReportsOnlyWhatIsNewSinceTheFirst) {
  auto night = [](const std::string &corpus, const std::string &seed,
                  std::vector<std::string> extra) {
    auto argv = Fuzz(corpus, std::move(extra));
    *(std::find(argv.begin(), argv.end(), "--seed") + 1) = seed;
    return argv;
  };
  const auto first = RunInductorFuzz(
      night("night1", "3", {"--cases", "2", "--jobs", "1", "--inject-fault", "1:segfault"}));
  ASSERT_EQ(first.exit_code, 1) << first.out << first.err;
  const fs::path night1 = *scratch_ / "night1";
  const auto night1_bugs = corpus::GroupIntoBugs(corpus::FindingStore(night1).List());
  ASSERT_EQ(night1_bugs.size(), 1u);
  const std::string segfault_bug = night1_bugs.front().id;

  std::vector<std::string> merge = {"corpus", "merge", night1.string()};
  for (const std::string index : {"0", "1"}) {
    const fs::path shard = *scratch_ / ("night2-shard" + index);
    fs::copy(night1, shard, fs::copy_options::recursive);
    fs::remove_all(shard / "report");
    const auto run =
        RunInductorFuzz(night(shard.filename().string(), "4",
                              {"--cases", "4", "--jobs", "1", "--inject-fault",
                               "1:segfault,2:allocate", "--case-timeout", "300", "--worker-memory",
                               "4000", "--shard", "auto", "--shard-count", "2"}),
                        std::chrono::seconds(900), {{"JOB_COMPLETION_INDEX", index}});
    ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.out << run.err;
    EXPECT_NE(run.out.find("--shard auto: " + index +
                           "/2 from the Kubernetes Indexed Job "
                           "(JOB_COMPLETION_INDEX=" +
                           index + ", --shard-count 2)"),
              std::string::npos)
        << run.out;
    const json since = ReadJson(shard / "report" / "summary.json")["since"];
    EXPECT_EQ(since["campaigns_before"], json::array({"seed-3-shard-0of1"})) << since.dump(2);
    EXPECT_EQ(since["bugs_before"], 1) << since.dump(2);
    if (index == "1") { // cases 1 and 3: the segfault again, nothing new
      EXPECT_EQ(since["seen_again"], json::array({segfault_bug})) << since.dump(2);
      EXPECT_EQ(since["new_bugs"], json::array()) << since.dump(2);
      EXPECT_EQ(run.exit_code, 0) << "a bug seen the night before is not new: " << run.out;
    } else { // cases 0 and 2: the memory blow-up is new
      EXPECT_EQ(since["new_bugs"].size(), 1u) << since.dump(2);
      EXPECT_EQ(run.exit_code, 1) << run.out;
    }
    merge.push_back(shard.string());
  }
  // Shard 1 as an older inductor-fuzz left it (no corpus.json: signature version 1).
  fs::remove(*scratch_ / "night2-shard1" / "corpus.json");
  const fs::path night2 = *scratch_ / "night2";

  // Refused, and nothing merged: a folder that is not a corpus, the target among the sources,
  // and a shard of seed 4 run under another policy.
  auto refused = [&](std::vector<std::string> argv, const std::string &why) {
    const auto run = RunInductorFuzz(argv);
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_NE(run.err.find(why), std::string::npos) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_FALSE(fs::exists(night2 / "findings")) << "merged half-way: " << run.err;
  };
  auto with = [&](std::vector<std::string> argv, std::vector<std::string> more) {
    argv.insert(argv.end(), more.begin(), more.end());
    return argv;
  };
  refused(with(merge, {(*scratch_ / "policy.json").string(), "--into", night2.string()}),
          "is not a corpus");
  const fs::path alien = *scratch_ / "night2-alien";
  fs::copy(*scratch_ / "night2-shard0", alien, fs::copy_options::recursive);
  {
    const fs::path journal = alien / "campaigns" / "seed-4-shard-0of2.jsonl";
    std::string text = support::ReadTextFile(journal, "journal", 1 << 20);
    const auto at = text.find("\"policy_sha256\":\"") + 17;
    text.replace(at, 8, "00000000");
    std::ofstream(journal) << text;
  }
  refused(with(merge, {alien.string(), "--into", night2.string()}), "ran seed 4 differently");
  fs::create_directories(night2);
  refused(with(merge, {night2.string(), "--into", night2.string()}), "is also --into");

  const auto merged = RunInductorFuzz(with(merge, {"--into", night2.string()}));
  ASSERT_EQ(merged.exit_code, 0) << merged.out << merged.err;
  EXPECT_NE(merged.err.find("migrated " + (*scratch_ / "night2-shard1").string()),
            std::string::npos)
      << merged.err;
  EXPECT_NE(merged.out.find("3 campaign journal(s)"), std::string::npos) << merged.out;
  for (const auto &journal :
       {"seed-3-shard-0of1.jsonl", "seed-4-shard-0of2.jsonl", "seed-4-shard-1of2.jsonl"})
    EXPECT_TRUE(fs::exists(night2 / "campaigns" / journal)) << journal;
  for (const auto &entry : fs::directory_iterator(night1 / "queue"))
    EXPECT_TRUE(fs::exists(night2 / "queue" / entry.path().filename()))
        << "the coverage queue carries over: " << entry.path().filename();

  const auto report = RunInductorFuzz({"corpus", "report", "--corpus", night2.string(), "--since",
                                       night1.string(), "--report", (night2 / "report").string()});
  EXPECT_EQ(report.exit_code, 1) << report.out << report.err;
  const json summary = ReadJson(night2 / "report" / "summary.json");
  const json &since = summary["since"];
  EXPECT_EQ(since["seen_again"], json::array({segfault_bug})) << since.dump(2);
  ASSERT_EQ(since["new_bugs"].size(), 1u) << since.dump(2);
  EXPECT_EQ(since["campaigns_since"], json::array({"seed-4-shard-0of2", "seed-4-shard-1of2"}))
      << since.dump(2);
  EXPECT_EQ(summary["new_bugs"], 1) << "only the memory blow-up is new";
  const std::string html =
      support::ReadTextFile(night2 / "report" / "report.html", "report", 64 << 20);
  EXPECT_NE(html.find("1 new bug(s), 1 seen again"), std::string::npos)
      << "report.html says what is new since night 1";
  for (const auto &bug : summary["bugs"]) {
    EXPECT_EQ(bug["new"], bug["id"] != segfault_bug) << bug.dump(2);
    if (bug["id"] == segfault_bug)
      EXPECT_EQ(bug["hit_count"], 2) << "night 1's case 1 and night 2's: " << bug.dump(2);
  }
}

} // namespace
} // namespace fuzzer
