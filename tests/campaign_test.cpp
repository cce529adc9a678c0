// `inductor-fuzz fuzz` on the real torch: a short campaign is reproducible, survives workers
// that segfault, hang or eat memory, resumes after SIGKILL, and writes reports that parse.
#include "campaign_fixture.h"

namespace fuzzer {
namespace {

using namespace campaign_testing;

// Coverage feedback: a case that reaches a codegen feature first joins CORPUS/queue/; with
// p_mutate 1 the cases after are mutations of queued ones, each journaled with its parent (a
// queue entry) and its mutations; summary.json counts the features. --no-feedback mutates none.
TEST_F(CampaignTest, FeedbackQueuesNewFeaturesAndMutatesQueuedCases) {
  std::ofstream(*scratch_ / "mutate.json")
      << R"({"weights": {"api": {"create_block_mask": 1, "create_mask": 1, "flex_attention": 0}},)"
      << R"( "numbers": {"p_mutate": 1, "p_op_program": 0,)"
      << R"( "p_tensor_program": 0}})";
  const auto run = [&](const std::string &corpus, const std::string &cases, bool feedback) {
    std::vector<std::string> argv = {"fuzz",
                                     "--seed",
                                     "5",
                                     "--policy",
                                     (*scratch_ / "mutate.json").string(),
                                     "--corpus",
                                     (*scratch_ / corpus).string(),
                                     "--cases",
                                     cases,
                                     "--jobs",
                                     "1",
                                     "--matrix-every",
                                     "0",
                                     "--reduce",
                                     "none"};
    if (!feedback)
      argv.push_back("--no-feedback");
    const auto result = RunInductorFuzz(argv);
    EXPECT_LE(result.exit_code, 1) << result.err;
    EXPECT_NE((result.out + result.err).find("codegen feature(s)"), std::string::npos)
        << result.err;
    std::stringstream html;
    html << std::ifstream(*scratch_ / corpus / "report" / "report.html").rdbuf();
    EXPECT_NE(html.str().find("codegen features ("), std::string::npos);
    return ReadJson(*scratch_ / corpus / "report" / "summary.json")["campaign"]["coverage"];
  };

  const json coverage = run("feedback", "4", true);
  EXPECT_GE(coverage["features"].get<int>(), 10) << coverage.dump();
  EXPECT_GE(coverage["mutated_cases"].get<int>(), 1) << coverage.dump();
  const fs::path queue = *scratch_ / "feedback" / "queue";
  std::set<std::string> queued;
  std::set<std::string> features_of_queue;
  for (const auto &entry : fs::directory_iterator(queue)) {
    if (entry.path().filename() == "features-reached.json")
      continue;
    const json queued_case = ReadJson(entry.path());
    queued.insert(entry.path().stem().string());
    EXPECT_FALSE(queued_case["features"].empty());
    for (const auto &feature : queued_case["features"])
      EXPECT_TRUE(features_of_queue.insert(feature.get<std::string>()).second)
          << feature << " was brought by two queue cases";
    EXPECT_NO_THROW(corpus::CaseFromJson(queued_case["case"]));
  }
  EXPECT_GE(queued.size(), 1u);
  EXPECT_EQ(features_of_queue.size(), coverage["features_in_corpus"].get<std::size_t>());
  // Beside the entries, how many cases reached each feature: every queued feature, at least once.
  const json reached = ReadJson(queue / "features-reached.json")["cases_reaching"];
  for (const auto &feature : features_of_queue)
    EXPECT_GE(reached.value(feature, 0u), 1u) << feature;
  std::size_t mutated = 0;
  std::ifstream journal(*scratch_ / "feedback" / "campaigns" / "seed-5-shard-0of1.jsonl");
  for (std::string line; std::getline(journal, line);) {
    const json entry = json::parse(line);
    if (!entry.contains("origin"))
      continue;
    ++mutated;
    EXPECT_TRUE(queued.contains(entry["origin"]["parent"].get<std::string>())) << line;
    EXPECT_FALSE(entry["origin"]["mutations"].empty()) << line;
  }
  EXPECT_EQ(mutated, coverage["mutated_cases"].get<std::size_t>());

  const json off = run("no-feedback", "1", false);
  EXPECT_EQ(off["mutated_cases"], 0);
  EXPECT_GE(off["features"].get<int>(), 10);
}

// Case 1 segfaults and case 2 allocates without bound; each is a finding, and the cases after
// them still run. Run twice, the campaign gives the same signatures.
TEST_F(CampaignTest, FaultsBecomeFindingsAndTheCampaignGoesOnTheSameWayTwice) {
  const std::vector<std::string> faults = {"--cases",         "4",
                                           "--jobs",          "2",
                                           "--case-timeout",  "300",
                                           "--worker-memory", "4000",
                                           "--inject-fault",  "1:segfault,2:allocate"};
  const auto first = RunInductorFuzz(Fuzz("first", faults));
  ASSERT_EQ(first.exit_code, 1) << first.out << first.err;
  const json summary = ReadJson(*scratch_ / "first" / "report" / "summary.json");
  EXPECT_EQ(summary["campaign"]["cases"], 4) << summary.dump(2);
  EXPECT_GE(summary["campaign"]["by_status"].value("finding", 0), 2) << summary.dump(2);
  std::string crashes;
  for (const auto &finding : summary["findings"]) {
    if (finding["kind"] == "crash")
      crashes += finding["signature"].get<std::string>() + "\n";
    EXPECT_TRUE(fs::exists(finding["repro"].get<std::string>())) << finding.dump(2);
    EXPECT_TRUE(fs::exists(finding["smallest_case"].get<std::string>())) << finding.dump(2);
    EXPECT_EQ(finding["seeds"], json::array({3}));
  }
  EXPECT_NE(crashes.find("crash|api=create_block_mask|signal=memory|"), std::string::npos)
      << crashes;
  EXPECT_EQ(crashes.find("No CUDA runtime"), std::string::npos)
      << "torch's log lines are not what a process says as it dies: " << crashes;
  EXPECT_NE(crashes.find("signal=9|abort=resident memory over the worker limit"), std::string::npos)
      << crashes;
  EXPECT_GE(summary["campaign"]["worker_restarts"], 2);

  const auto second = RunInductorFuzz(Fuzz("second", faults));
  ASSERT_EQ(second.exit_code, 1) << second.out << second.err;
  EXPECT_EQ(Signatures("first"), Signatures("second"));
  EXPECT_GE(Signatures("first").size(), 2u);

  // The reports: JUnit with a failure per new bug, SARIF 2.1.0, a self-contained page. The two
  // crashes (a segfault, a worker over its memory) are two bugs.
  const std::size_t bugs =
      ReadJson(*scratch_ / "second" / "report" / "summary.json")["bugs"].size();
  EXPECT_GE(bugs, 2u);
  EXPECT_LE(bugs, Signatures("second").size());
  std::stringstream junit, html;
  const std::string tests = fmt::format("tests=\"{}\"", bugs);
  junit << std::ifstream(*scratch_ / "second" / "report" / "junit.xml").rdbuf();
  EXPECT_NE(junit.str().find(tests + fmt::format(" failures=\"{}\"", bugs)), std::string::npos)
      << junit.str();
  const json sarif = ReadJson(*scratch_ / "second" / "report" / "findings.sarif");
  EXPECT_EQ(sarif["version"], "2.1.0");
  EXPECT_EQ(sarif["runs"][0]["results"].size(), bugs);
  // Against the published schemas: the Ant JUnit XSD and OASIS SARIF 2.1.0.
  const auto valid = support::RunCommand(
      {(fs::path(INDUCTOR_FUZZ_SOURCE_DIR) / "scripts" / "validate-reports").string(),
       (*scratch_ / "second" / "report").string()},
      {}, std::chrono::seconds(120));
  EXPECT_TRUE(valid.status.Succeeded()) << valid.output;
  html << std::ifstream(*scratch_ / "second" / "report" / "report.html").rdbuf();
  EXPECT_NE(html.str().find("<table id=\"bugs\">"), std::string::npos);
  EXPECT_EQ(html.str().find("http://"), html.str().find("http://www.w3.org/2000/svg"))
      << "no network: the only URL is the SVG namespace";

  // Rendered by a real browser: the bugs table is in the DOM, one row per bug.
  const auto chromium = support::FindOnPath("chromium");
  ASSERT_TRUE(chromium) << "chromium is missing; scripts/setup installs it";
  const std::string page = "file://" + (*scratch_ / "second" / "report" / "report.html").string();
  const std::vector<std::string> headless = {
      chromium->string(), "--headless", "--no-sandbox", "--disable-gpu",
      "--user-data-dir=" + (*scratch_ / "chromium").string()};
  auto dump = headless;
  dump.insert(dump.end(), {"--dump-dom", page});
  const auto dom = support::RunCommand(dump, {.stderr_file = *scratch_ / "chromium.err"},
                                       std::chrono::seconds(120));
  ASSERT_TRUE(dom.status.Succeeded()) << dom.output;
  EXPECT_NE(dom.output.find("<table id=\"bugs\">"), std::string::npos) << dom.output;
  std::size_t rows = 0;
  for (std::size_t at = dom.output.find("<tr class=\"new\">"); at != std::string::npos;
       at = dom.output.find("<tr class=\"new\">", at + 1))
    ++rows;
  EXPECT_EQ(rows, bugs) << dom.output;
  const fs::path screenshot = fs::absolute("campaign-report.png");
  auto shot = headless;
  shot.insert(shot.end(), {"--window-size=1280,1600", "--screenshot=" + screenshot.string(), page});
  const auto taken = support::RunCommand(shot, {.stderr_file = *scratch_ / "chromium.err"},
                                         std::chrono::seconds(120));
  EXPECT_TRUE(taken.status.Succeeded()) << taken.output;
  EXPECT_GT(fs::exists(screenshot) ? fs::file_size(screenshot) : 0, 10000u);
  std::cout << "report screenshot: " << screenshot.string() << "\n";
}

// A case that hangs is stopped at its time limit: a timeout finding.
TEST_F(CampaignTest, HangingCaseIsATimeoutFinding) {
  const auto run = RunInductorFuzz(
      Fuzz("hang", {"--cases", "1", "--case-timeout", "20", "--inject-fault", "0:hang"}));
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(Signatures("hang"), std::set<std::string>{"timeout|api=create_block_mask"});
}

// A crash runs again with the sanitizers. Python's own segfault (the injected fault) is in no
// kernel: the crash stays, and no memory-error is made of it.
TEST_F(CampaignFullTier, CrashesRunAgainWithSanitizersAndOnlyKernelErrorsCount) {
  const auto run = RunInductorFuzz(Fuzz("sanitize", {"--cases", "1", "--inject-fault", "0:segfault",
                                                     "--sanitize-crashes", "address,undefined"}));
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  const json summary = ReadJson(*scratch_ / "sanitize" / "report" / "summary.json");
  EXPECT_EQ(summary["campaign"]["sanitized_reruns"], 1) << summary.dump(2);
  EXPECT_EQ(Signatures("sanitize"),
            std::set<std::string>{"crash|api=create_block_mask|signal=memory|abort=memory error"});
  // Every case sanitized: the same fault is still Python's, a crash and no memory-error (ASan
  // catches the segfault and aborts, so it signs as signal 6 here).
  const auto every = RunInductorFuzz(Fuzz(
      "sanitize-every", {"--cases", "1", "--inject-fault", "0:segfault", "--sanitize", "address"}));
  ASSERT_EQ(every.exit_code, 1) << every.out << every.err;
  const auto sanitized = Signatures("sanitize-every");
  ASSERT_EQ(sanitized.size(), 1u);
  EXPECT_TRUE(sanitized.begin()->starts_with("crash|api=create_block_mask|")) << *sanitized.begin();
  const auto bad =
      RunInductorFuzz(Fuzz("sanitize-bad", {"--cases", "1", "--sanitize-crashes", "thread"}));
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("sanitizer 'thread' is not known"), std::string::npos) << bad.err;
}

// The folders under the temporary folder that the driver `pid` made (named with its pid).
std::vector<std::string> TemporaryFoldersOf(int pid) {
  std::vector<std::string> found;
  const std::string mark = "-p" + std::to_string(pid) + "-";
  for (const auto &entry : fs::directory_iterator(fs::temp_directory_path()))
    if (const auto name = entry.path().filename().string();
        name.starts_with("inductor-fuzz-") && name.find(mark) != std::string::npos)
      found.push_back(name);
  return found;
}

// Waits (ten minutes at most) until the journal holds `lines` lines (the header is the first).
void WaitForJournalLines(const fs::path &journal, std::size_t lines) {
  for (int waited = 0; waited < 600; ++waited) {
    std::ifstream in(journal);
    std::size_t count = 0;
    for (std::string line; std::getline(in, line);)
      ++count;
    if (count >= lines)
      return;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

// Killed with SIGKILL mid-campaign, `--resume` finishes the same sequence without rerunning
// what was journaled, and the corpus still loads; the killed driver's temporary folders (its
// campaign's, its worker's) are removed by the next run.
TEST_F(CampaignTest, ResumeAfterSigkillRunsOnlyTheRest) {
  const auto argv =
      Fuzz("resumed", {"--cases", "4", "--jobs", "1", "--inject-fault", "0:segfault"});
  std::vector<std::string> command = {INDUCTOR_FUZZ_BINARY};
  command.insert(command.end(), argv.begin(), argv.end());
  const fs::path journal = *scratch_ / "resumed" / "campaigns" / "seed-3-shard-0of1.jsonl";
  int killed = 0;
  {
    support::ChildProcess driver(command, {.stderr_file = *scratch_ / "resumed.err"});
    WaitForJournalLines(journal, 3); // two cases journaled, then kill it
    killed = driver.pid();
    ::kill(driver.pid(), SIGKILL);
    driver.Wait();
  }
  EXPECT_FALSE(TemporaryFoldersOf(killed).empty()) << "nothing left to test the sweep on";
  EXPECT_EQ(corpus::FindingStore(*scratch_ / "resumed").List().size(), 1u)
      << "the segfault of case 0 was stored before the kill";

  auto resume = argv;
  resume.push_back("--resume");
  const auto resumed = RunInductorFuzz(resume);
  ASSERT_TRUE(resumed.exit_code == 0 || resumed.exit_code == 1) << resumed.out << resumed.err;
  EXPECT_TRUE(TemporaryFoldersOf(killed).empty()) << "the killed run's folders stay";
  const json summary = ReadJson(*scratch_ / "resumed" / "report" / "summary.json");
  const auto skipped = summary["campaign"]["resumed_cases"].get<int>();
  EXPECT_GE(skipped, 2);
  EXPECT_EQ(summary["campaign"]["cases"].get<int>() + skipped, 4) << summary.dump(2);
  std::set<std::uint64_t> indices;
  std::ifstream in(journal);
  for (std::string line; std::getline(in, line);) {
    const json entry = json::parse(line, nullptr, false);
    if (entry.is_object() && entry.contains("index"))
      EXPECT_TRUE(indices.insert(entry["index"].get<std::uint64_t>()).second)
          << "case " << entry["index"] << " ran twice";
  }
  EXPECT_EQ(indices, (std::set<std::uint64_t>{0, 1, 2, 3}));

  // A resumed campaign must be the same one.
  const auto refused = RunInductorFuzz({"fuzz", "--seed", "3", "--cases", "4", "--resume",
                                        "--corpus", (*scratch_ / "resumed").string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("another campaign"), std::string::npos) << refused.err;

  // Run again without --resume, it would replace the journal: refused in one line that says
  // what to do, and the journal is as it was.
  std::stringstream before;
  before << std::ifstream(journal).rdbuf();
  const auto rerun = RunInductorFuzz(argv);
  EXPECT_EQ(rerun.exit_code, 2) << rerun.out << rerun.err;
  EXPECT_NE(rerun.err.find("already holds this campaign"), std::string::npos) << rerun.err;
  EXPECT_NE(rerun.err.find("--resume"), std::string::npos) << rerun.err;
  EXPECT_EQ(std::count(rerun.err.begin(), rerun.err.end(), '\n'), 1) << rerun.err;
  std::stringstream after;
  after << std::ifstream(journal).rdbuf();
  EXPECT_EQ(after.str(), before.str());
}

// Ctrl-C stops a campaign with its reports written, exit 130, and no temporary folder of its own
// left (second tier: the first kills a campaign with SIGKILL and checks the next run sweeps).
TEST_F(CampaignFullTier, CtrlCWritesTheReportsExits130AndLeavesNoTemporaryFolders) {
  const auto argv = Fuzz("interrupted", {"--cases", "6", "--jobs", "1"});
  std::vector<std::string> command = {INDUCTOR_FUZZ_BINARY};
  command.insert(command.end(), argv.begin(), argv.end());
  const fs::path journal = *scratch_ / "interrupted" / "campaigns" / "seed-3-shard-0of1.jsonl";
  support::ChildProcess driver(command, {.stderr_file = *scratch_ / "interrupted.err"});
  WaitForJournalLines(journal, 2);
  ::kill(driver.pid(), SIGINT);
  std::string out;
  for (std::string line;
       driver.ReadLine(line, std::chrono::minutes(5)) == support::ChildProcess::ReadStatus::kLine;)
    out += line + "\n";
  const auto exit = driver.Wait();
  EXPECT_EQ(exit.exit_code, 130) << exit.Describe();
  EXPECT_TRUE(TemporaryFoldersOf(driver.pid()).empty()) << "Ctrl-C left its folders";
  const json summary = ReadJson(*scratch_ / "interrupted" / "report" / "summary.json");
  EXPECT_TRUE(summary["campaign"]["interrupted"].get<bool>()) << summary.dump(2);
  EXPECT_LT(summary["campaign"]["cases"].get<int>(), 6);
  EXPECT_NE(out.find("(interrupted)"), std::string::npos) << out;
}

// The disk fills while case 1's results are written: the campaign stops with one line that says
// what is free where and that --resume goes on, exit 2; case 0 is journaled and stored whole,
// nothing half-written is left, and --resume on freed space runs case 1 and only it.
TEST_F(CampaignTest, AFullDiskStopsTheCampaignWholeAndResumeGoesOn) {
  const auto argv =
      Fuzz("full-disk", {"--cases", "2", "--jobs", "1", "--inject-fault", "1:disk-full"});
  const auto full = RunInductorFuzz(argv);
  EXPECT_EQ(full.exit_code, 2) << full.out << full.err;
  EXPECT_EQ(std::count(full.err.begin(), full.err.end(), '\n'), 1) << full.err;
  EXPECT_NE(full.err.find("No space left on device"), std::string::npos) << full.err;
  EXPECT_NE(full.err.find("MiB free in " + (*scratch_ / "full-disk").string()), std::string::npos)
      << full.err;
  EXPECT_NE(full.err.find("go on with --resume"), std::string::npos) << full.err;
  const fs::path journal = *scratch_ / "full-disk" / "campaigns" / "seed-3-shard-0of1.jsonl";
  const auto indices = [&journal] {
    std::multiset<std::uint64_t> found;
    std::ifstream in(journal);
    for (std::string line; std::getline(in, line);)
      if (const json entry = json::parse(line, nullptr, false);
          entry.is_object() && entry.contains("index"))
        found.insert(entry["index"].get<std::uint64_t>());
    return found;
  };
  EXPECT_EQ(indices(), (std::multiset<std::uint64_t>{0}));
  std::error_code error;
  EXPECT_TRUE(fs::is_empty(*scratch_ / "full-disk" / ".staging", error) || error)
      << "nothing half-written";
  for (const auto &finding : corpus::FindingStore(*scratch_ / "full-disk").List())
    EXPECT_TRUE(fs::exists(finding.smallest / "case.json")) << finding.id;

  auto resume = Fuzz("full-disk", {"--cases", "2", "--jobs", "1", "--resume"});
  const auto resumed = RunInductorFuzz(resume);
  EXPECT_TRUE(resumed.exit_code == 0 || resumed.exit_code == 1) << resumed.out << resumed.err;
  EXPECT_EQ(indices(), (std::multiset<std::uint64_t>{0, 1}));
}

// The compiler matrix inside the campaign: every case's TUs rebuilt on clang++-19 and on a g++
// that fails every build, loaded and replayed. The broken compiler makes a compiler-divergence
// finding, stored with the matrix. Run again, every build comes from the build cache.
TEST_F(CampaignFullTier, MatrixFindingsAreStoredAndBuildsAreCachedByContent) {
  const fs::path broken = *scratch_ / "broken-g++";
  std::ofstream(broken) << "#!/bin/sh\n"
                           "case \"$*\" in *--version*|*-dumpversion*) exec g++-12 \"$@\";; esac\n"
                           "echo 'injected.cpp:1:1: error: this compiler fails every build' >&2\n"
                           "exit 1\n";
  fs::permissions(broken, fs::perms::owner_all);
  const std::vector<std::string> matrix = {
      "--cases",        "2", "--jobs",      "1",
      "--matrix-every", "1", "--compilers", "clang++-19," + broken.string()};
  const auto first = RunInductorFuzz(Fuzz("matrix", matrix));
  ASSERT_EQ(first.exit_code, 1) << first.out << first.err;
  const json summary = ReadJson(*scratch_ / "matrix" / "report" / "summary.json");
  const json &stats = summary["campaign"];
  EXPECT_EQ(stats["matrix_cases"], 2) << stats.dump(2);
  EXPECT_GE(stats["matrix_builds"].get<int>(), 4) << "two compilers, at least a TU a case";
  EXPECT_EQ(stats["build_cache_hits"], 0) << stats.dump(2);
  EXPECT_GE(stats["runtime_replays"].get<int>(), 1)
      << "clang's builds are replayed on the recorded calls: " << stats.dump(2);
  // Where the time went: the stages add up to the cases' wall time, the matrix among them, and
  // the worker's own parts fit inside its run.
  double wall = 0, stages = 0, matrix_seconds = 0;
  bool judged = false; // the judgement's time is there (under a millisecond for a block mask)
  for (const auto &[family, times] : stats["time_by_family"].items()) {
    wall += times.value("wall", 0.0);
    for (const char *stage :
         {"generate", "run", "sanitizer_reruns", "probe", "matrix", "worker_start"})
      stages += times.value(stage, 0.0);
    matrix_seconds += times.value("matrix", 0.0);
    judged = judged || times.contains("compare");
    EXPECT_GE(times.value("run", 0.0) + 0.5,
              times.value("eager", 0.0) + times.value("dynamo_inductor", 0.0) +
                  times.value("cpp_compile", 0.0) + times.value("compare", 0.0))
        << family << ": " << times.dump();
  }
  EXPECT_GT(wall, 0.0) << stats.dump(2);
  EXPECT_LE(stages, wall + 1.0) << stats["time_by_family"].dump(2);
  EXPECT_GE(stages, 0.8 * wall) << stats["time_by_family"].dump(2);
  EXPECT_GT(matrix_seconds, 0.0) << stats["time_by_family"].dump(2);
  EXPECT_TRUE(judged) << stats["time_by_family"].dump(2);
  {
    std::ifstream html(*scratch_ / "matrix" / "report" / "report.html");
    std::stringstream page;
    page << html.rdbuf();
    EXPECT_NE(page.str().find("id=\"time\""), std::string::npos);
  }
  bool divergence = false;
  for (const auto &finding : corpus::FindingStore(*scratch_ / "matrix").List()) {
    if (finding.finding.kind != corpus::FindingKind::kCompilerDivergence)
      continue;
    divergence = true;
    EXPECT_NE(finding.signature.find("this compiler fails every build"), std::string::npos)
        << finding.signature;
    const auto record = corpus::ReadMatrixRecord(finding.smallest / "matrix.json");
    ASSERT_FALSE(record.rows.empty());
    EXPECT_EQ(record.rows.front().builds.size(), 2u);
  }
  EXPECT_TRUE(divergence) << first.out;

  // A later campaign over the same cases (a campaign's journal is never replaced: the first
  // one's goes, as another night's seed would have its own).
  fs::remove_all(*scratch_ / "matrix" / "campaigns");
  const auto second = RunInductorFuzz(Fuzz("matrix", matrix));
  EXPECT_EQ(second.exit_code, 0) << "nothing new the second time: " << second.out << second.err;
  const json again = ReadJson(*scratch_ / "matrix" / "report" / "summary.json")["campaign"];
  EXPECT_EQ(again["build_cache_hits"], stats["matrix_builds"]) << again.dump(2);
  EXPECT_EQ(again["matrix_builds"], stats["matrix_builds"]);

  // Fix verification after a compiler upgrade: with the broken g++ still in the matrix the
  // divergence still fails; with a working g++ in its place it is fixed.
  auto verdicts = [&](const std::string &compilers) {
    const auto replay = RunInductorFuzz(
        {"replay", "--corpus", (*scratch_ / "matrix").string(), "--compilers", compilers});
    std::map<std::string, std::string> by_kind;
    std::istringstream lines(replay.out);
    for (std::string verdict, id, rest; lines >> verdict >> id && std::getline(lines, rest);)
      if (id.starts_with("compiler-divergence-"))
        by_kind[id] = verdict;
    return std::make_pair(replay.exit_code, by_kind);
  };
  const auto [still_exit, still] = verdicts("clang++-19," + broken.string());
  EXPECT_EQ(still_exit, 1);
  ASSERT_FALSE(still.empty());
  for (const auto &[id, verdict] : still)
    EXPECT_EQ(verdict, "still-failing") << id;
  const auto [fixed_exit, fixed] = verdicts("clang++-19,g++-12");
  ASSERT_FALSE(fixed.empty());
  for (const auto &[id, verdict] : fixed)
    EXPECT_EQ(verdict, "fixed") << id;
}

} // namespace
} // namespace fuzzer
