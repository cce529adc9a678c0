// A campaign's delivery on the real torch: the driver killed while it stores findings, a new
// bug reduced, run on each release and written up (and resumed when killed during reduction),
// and `replay` telling fixed bugs from those still failing.
#include "campaign_fixture.h"

namespace fuzzer {
namespace {

using namespace campaign_testing;

// The driver killed with SIGKILL 20 times while it stores findings, resumed each time: the
// corpus always loads, and every finding the journal reported is in it, with its hits.
TEST_F(CampaignFullTier, DriverKilledTwentyTimesLosesNothing) {
  constexpr int kCases = 40;
  std::string faults;
  for (int index = 0; index < kCases; ++index)
    faults +=
        fmt::format("{}{}:{}", index ? "," : "", index, index % 7 == 3 ? "allocate" : "segfault");
  const auto argv =
      Fuzz("killed", {"--cases", std::to_string(kCases), "--jobs", "2", "--worker-memory", "3000",
                      "--resume", "--inject-fault", faults});
  std::vector<std::string> command = {INDUCTOR_FUZZ_BINARY};
  command.insert(command.end(), argv.begin(), argv.end());
  const fs::path journal = *scratch_ / "killed" / "campaigns" / "seed-3-shard-0of1.jsonl";

  // Finding id -> hits, as the journal reported them: each entry is written after its store.
  auto reported = [&] {
    std::map<std::string, std::size_t> hits;
    std::ifstream in(journal);
    for (std::string line; std::getline(in, line);) {
      const json entry = json::parse(line, nullptr, false);
      if (entry.is_object() && entry.contains("findings"))
        for (const auto &finding : entry["findings"])
          ++hits[finding["id"].get<std::string>()];
    }
    return hits;
  };
  auto journal_lines = [&] {
    std::ifstream in(journal);
    std::size_t lines = 0;
    for (std::string line; std::getline(in, line);)
      ++lines;
    return lines;
  };
  std::size_t kills = 0;
  for (int round = 0; round < 20; ++round) {
    const std::size_t before = journal_lines();
    support::ChildProcess driver(command, {.stderr_file = *scratch_ / "killed.err"});
    // Wait for the next stored case, then kill a few milliseconds into what follows it: the
    // other job's store, the next journal line, or the report.
    for (int waited = 0; waited < 1200 && journal_lines() <= before; ++waited)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::this_thread::sleep_for(std::chrono::milliseconds(37 * round % 400));
    kills += ::kill(driver.pid(), SIGKILL) == 0;
    driver.Wait();

    std::map<std::string, std::size_t> stored;
    ASSERT_NO_THROW({
      for (const auto &finding : corpus::FindingStore(*scratch_ / "killed").List())
        stored[finding.id] = finding.HitCount();
    }) << "round "
       << round;
    for (const auto &[id, hits] : reported())
      EXPECT_GE(stored[id], hits) << "round " << round << ": finding " << id << " lost hits";
  }
  EXPECT_GE(kills, 15u) << "most rounds kill a running driver";

  const auto finished = RunInductorFuzz(argv);
  ASSERT_TRUE(finished.exit_code == 0 || finished.exit_code == 1) << finished.out << finished.err;
  std::map<std::string, std::size_t> stored;
  for (const auto &finding : corpus::FindingStore(*scratch_ / "killed").List())
    stored[finding.id] = finding.HitCount();
  std::size_t hits = 0;
  for (const auto &[id, count] : stored)
    hits += count;
  EXPECT_EQ(hits, static_cast<std::size_t>(kCases)) << "every case is one hit, none twice";
  EXPECT_EQ(stored.size(), 2u) << "one segfault and one memory signature";
  const auto journaled = reported();
  for (const auto &[id, count] : stored)
    EXPECT_EQ(journaled.count(id) ? journaled.at(id) : 0, count) << id;
}

// A campaign delivers its new bug: reduced, the repro run standalone on each installed torch
// release, an issue draft in PyTorch's template, all shown first in the report.
TEST_F(CampaignTest, NewBugIsReducedRunOnEachReleaseAndWrittenUp) {
  const auto run =
      RunInductorFuzz(Fuzz("deliver", {"--cases", "1", "--jobs", "1", "--reduce", "new",
                                       "--reduce-timeout", "150", "--inject-fault", "0:segfault"}),
                      std::chrono::seconds(1200));
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("1 reduced in"), std::string::npos) << run.out;
  const json summary = ReadJson(*scratch_ / "deliver" / "report" / "summary.json");
  ASSERT_EQ(summary["bugs"].size(), 1u) << summary.dump(2);
  const json &bug = summary["bugs"][0];
  ASSERT_TRUE(bug["delivery"].is_object()) << bug.dump(2);
  const json &delivery = bug["delivery"];
  EXPECT_TRUE(delivery["status"] == "reduced" || delivery["status"] == "timeout")
      << delivery.dump(2);
  EXPECT_TRUE(delivery["reproduces_standalone"].get<bool>()) << delivery.dump(2);
  EXPECT_GT(delivery["repro_lines"].get<int>(), 5) << delivery.dump(2);
  EXPECT_GT(summary["campaign"]["reduction_seconds"].get<double>(), 0.0);
  // Each installed release ran the repro, oldest first; the injected segfault fails on each.
  const auto environments = support::FindTorchEnvironments(fs::path(INDUCTOR_FUZZ_SOURCE_DIR));
  ASSERT_EQ(delivery["releases"].size(), environments.size()) << delivery.dump(2);
  for (const auto &release : delivery["releases"])
    EXPECT_EQ(release["result"], "fails") << delivery.dump(2);
  if (environments.size() > 1)
    EXPECT_TRUE(delivery["release_label"].get<std::string>().starts_with("also in "))
        << delivery.dump(2);
  EXPECT_FALSE(delivery["environment"].value("torch", "").empty()) << delivery.dump(2);

  const std::string repro =
      support::ReadTextFile(bug["reduced_repro"].get<std::string>(), "repro", 1 << 20);
  const std::string draft =
      support::ReadTextFile(bug["issue_draft"].get<std::string>(), "draft", 1 << 20);
  EXPECT_TRUE(draft.starts_with("# [inductor][cpu] create_block_mask")) << draft;
  EXPECT_NE(draft.find(repro), std::string::npos) << "the draft holds the repro in full\n" << draft;
  for (const char *part : {"### 🐛 Describe the bug", "**Expected:**", "**Actual:**",
                           "**Releases:**", "### Versions", "CPU capability (ATen):"})
    EXPECT_NE(draft.find(part), std::string::npos) << part << "\n" << draft;
  // `corpus issue` prints the same draft, its repro run again, with the corpus given by a path
  // relative to where it runs as well as by an absolute one.
  const auto issue = RunInductorFuzz({"corpus", "issue", bug["id"].get<std::string>(), "--corpus",
                                      fs::relative(*scratch_ / "deliver").string()});
  EXPECT_EQ(issue.exit_code, 0) << issue.err;
  EXPECT_EQ(issue.out, draft);
  // In the report the draft comes before the unreduced evidence.
  const std::string html =
      support::ReadTextFile(*scratch_ / "deliver" / "report" / "report.html", "report", 8 << 20);
  const auto section = html.find("<section class=\"bug\"");
  ASSERT_NE(section, std::string::npos);
  const auto shown = html.find("id=\"draft-" + bug["id"].get<std::string>() + "\"", section);
  ASSERT_NE(shown, std::string::npos) << html.substr(section, 2000);
  EXPECT_LT(shown, html.find("<b>key</b>", section));
  EXPECT_NE(html.find("copyDraft("), std::string::npos);
  // Rendered by a real browser: the draft is in the DOM, in its <pre>, with its Copy button.
  const auto chromium = support::FindOnPath("chromium");
  ASSERT_TRUE(chromium) << "chromium is missing; scripts/setup installs it";
  const auto dom =
      support::RunCommand({chromium->string(), "--headless", "--no-sandbox", "--disable-gpu",
                           "--user-data-dir=" + (*scratch_ / "chromium").string(), "--dump-dom",
                           "file://" + (*scratch_ / "deliver" / "report" / "report.html").string()},
                          {.stderr_file = *scratch_ / "chromium.err"}, std::chrono::seconds(120));
  ASSERT_TRUE(dom.status.Succeeded()) << dom.output;
  const auto pre =
      dom.output.find("<pre class=\"draft\" id=\"draft-" + bug["id"].get<std::string>());
  ASSERT_NE(pre, std::string::npos) << dom.output.substr(0, 3000);
  EXPECT_NE(dom.output.find("### 🐛 Describe the bug", pre), std::string::npos);
  EXPECT_NE(dom.output.find(">Copy</button>"), std::string::npos);

  // Run again into the same corpus, as a later campaign over the same case (its own journal):
  // nothing new, nothing reduced again.
  fs::remove_all(*scratch_ / "deliver" / "campaigns");
  const auto again = RunInductorFuzz(Fuzz("deliver", {"--cases", "1", "--jobs", "1", "--reduce",
                                                      "new", "--inject-fault", "0:segfault"}));
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(again.out.find("reducing"), std::string::npos) << again.out;
}

// Killed (SIGKILL) while it reduces its new bug, the campaign finishes that reduction with
// --resume, from the best case so far, and runs no case again.
TEST_F(CampaignFullTier, KilledDuringReductionResumesIt) {
  const auto argv =
      Fuzz("killed-reducing", {"--cases", "1", "--jobs", "1", "--reduce", "new", "--reduce-timeout",
                               "150", "--inject-fault", "0:segfault"});
  std::vector<std::string> command = {INDUCTOR_FUZZ_BINARY};
  command.insert(command.end(), argv.begin(), argv.end());
  const fs::path corpus_dir = *scratch_ / "killed-reducing";
  std::string pending;
  {
    support::ChildProcess driver(command, {.stderr_file = *scratch_ / "killed-reducing.err"});
    // Wait until the reducer has kept a smaller case, then kill the driver (its reducer dies too).
    for (int waited = 0; waited < 900 && pending.empty(); ++waited) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      for (const auto &finding : corpus::FindingStore(corpus_dir).List())
        if (finding.delivery && fs::exists(finding.folder / "reduced" / "case.json"))
          pending = finding.id;
    }
    ::kill(driver.pid(), SIGKILL);
    driver.Wait();
  }
  ASSERT_FALSE(pending.empty()) << "no reduction started";
  const auto before = corpus::FindingStore(corpus_dir).Load(pending);
  ASSERT_TRUE(before.delivery);
  EXPECT_EQ(before.delivery->status, corpus::DeliveryStatus::kPending);

  auto resume = argv;
  resume.push_back("--resume");
  const auto resumed = RunInductorFuzz(resume, std::chrono::seconds(1200));
  ASSERT_TRUE(resumed.exit_code == 0 || resumed.exit_code == 1) << resumed.out << resumed.err;
  EXPECT_NE(resumed.out.find("reducing 1 bug(s)"), std::string::npos) << resumed.out;
  const auto after = corpus::FindingStore(corpus_dir).Load(pending);
  ASSERT_TRUE(after.delivery);
  EXPECT_NE(after.delivery->status, corpus::DeliveryStatus::kPending) << resumed.out;
  EXPECT_TRUE(fs::exists(after.folder / "issue.md"));
  const json summary = ReadJson(corpus_dir / "report" / "summary.json");
  EXPECT_EQ(summary["campaign"]["cases"], 0) << "the case ran before the kill";
}

// Fix verification: a stored finding whose case passes today is fixed; one that still
// segfaults is still failing.
TEST_F(CampaignTest, ReplayTellsFixedFromStillFailing) {
  const auto run =
      RunInductorFuzz(Fuzz("replay", {"--cases", "1", "--inject-fault", "0:segfault"}));
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  // A finding of an older torch whose case, the causal seed, passes on this one.
  corpus::FindingStore store(*scratch_ / "replay");
  corpus::Finding old{.kind = corpus::FindingKind::kCrash};
  old.essence.Add("api", "create_block_mask").Add("signal", "6").Add("abort", "double free");
  const auto seed = corpus::LoadCaseFile(std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                                         "corpus/seeds/causal-151290.json");
  store.Record(old, corpus::MakeHit(seed, {}, corpus::UtcNow()), [&](const fs::path &dir) {
    std::ofstream(dir / "case.json") << corpus::CaseToJson(seed).dump(2);
  });

  // Known issues: the fixed bug's becomes fixed-in this torch; the still failing one's does not.
  const fs::path known_file = *scratch_ / "replay-known-issues.json";
  std::string injected;
  for (const auto &stored : store.List())
    if (stored.id != corpus::StoredFindingId(old))
      injected = stored.signature;
  const json issues = {{"format_version", 1},
                       {"issues",
                        {{{"id", "old-double-free"},
                          {"match", corpus::Signature(old)},
                          {"status", "reported"},
                          {"link", "https://github.com/pytorch/pytorch/issues/1"},
                          {"title", "t"}},
                         {{"id", "injected"},
                          {"match", injected},
                          {"status", "unreported"},
                          {"link", ""},
                          {"title", "t"}}}}};
  std::ofstream(known_file) << issues.dump(2);
  const auto replay = RunInductorFuzz({"replay", "--corpus", (*scratch_ / "replay").string(),
                                       "--known-issues", known_file.string()});
  EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
  const json known = ReadJson(known_file);
  EXPECT_TRUE(known["issues"][0]["status"].get<std::string>().starts_with("fixed-in 2."))
      << known.dump(2) << replay.out;
  EXPECT_EQ(known["issues"][1]["status"], "unreported") << known.dump(2);
  const std::string fixed_id = corpus::StoredFindingId(old);
  std::map<std::string, std::string> verdicts;
  std::istringstream lines(replay.out);
  for (std::string verdict, id, rest; lines >> verdict >> id && std::getline(lines, rest);)
    verdicts[id] = verdict;
  EXPECT_EQ(verdicts[fixed_id], "fixed") << replay.out;
  std::size_t still = 0;
  for (const auto &[id, verdict] : verdicts)
    still += verdict == "still-failing";
  EXPECT_EQ(still, 1u) << replay.out;
  EXPECT_NE(replay.out.find("2 finding(s) of 2 bug(s) replayed: 1 bug(s) still failing"),
            std::string::npos)
      << replay.out;
}

} // namespace
} // namespace fuzzer
