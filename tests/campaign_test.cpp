// `inductor-fuzz fuzz` on the real torch: a short campaign is reproducible, survives workers
// that segfault, hang or eat memory, resumes after SIGKILL, and writes reports that parse.
#include "binary_runner.h"
#include "corpus/finding_store.h"
#include "corpus/matrix_record.h"
#include "support/child_process.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/torch_environments.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace fuzzer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::RunInductorFuzz;

json ReadJson(const fs::path &path) { return json::parse(std::ifstream(path)); }

class CampaignTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<support::ScratchDir>("campaign-test");
    // create_block_mask cases only: they compile in seconds.
    std::ofstream(*scratch_ / "policy.json")
        << R"({"weights": {"api": {"create_block_mask": 1, "create_mask": 0, "flex_attention": 0}}})";
  }
  static void TearDownTestSuite() { scratch_.reset(); }

  // A campaign of seed 3 into the corpus `corpus`; without the compiler matrix unless `extra`
  // asks for it.
  static std::vector<std::string> Fuzz(const std::string &corpus, std::vector<std::string> extra) {
    std::vector<std::string> argv = {"fuzz",
                                     "--seed",
                                     "3",
                                     "--policy",
                                     (*scratch_ / "policy.json").string(),
                                     "--corpus",
                                     (*scratch_ / corpus).string()};
    if (std::find(extra.begin(), extra.end(), "--matrix-every") == extra.end())
      argv.insert(argv.end(), {"--matrix-every", "0"});
    // Reduction (a campaign's default) only where a test is about it: it takes minutes.
    if (std::find(extra.begin(), extra.end(), "--reduce") == extra.end())
      argv.insert(argv.end(), {"--reduce", "none"});
    // Feedback makes a case depend on the queue a corpus holds; these tests compare runs case
    // by case (FeedbackQueuesNewFeaturesAndMutatesQueuedCases is about feedback).
    argv.push_back("--no-feedback");
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }

  static std::set<std::string> Signatures(const std::string &corpus) {
    std::set<std::string> signatures;
    for (const auto &finding : corpus::FindingStore(*scratch_ / corpus).List())
      signatures.insert(finding.signature);
    return signatures;
  }

  static inline std::unique_ptr<support::ScratchDir> scratch_;
};

// The long robustness loops: `scripts/test --full` runs them (tests/CMakeLists.txt).
class CampaignFullTier : public CampaignTest {};

// Coverage feedback: a case that reaches a codegen feature first joins CORPUS/queue/; with
// p_mutate 1 the cases after are mutations of queued ones, each journaled with its parent (a
// queue entry) and its mutations; summary.json counts the features. --no-feedback mutates none.
TEST_F(CampaignTest, FeedbackQueuesNewFeaturesAndMutatesQueuedCases) {
  std::ofstream(*scratch_ / "mutate.json")
      << R"({"weights": {"api": {"create_block_mask": 1, "create_mask": 1, "flex_attention": 0}},)"
      << R"( "numbers": {"p_mutate": 1}})";
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

  // Into a corpus that already holds them, nothing is new: exit 0.
  const auto again = RunInductorFuzz(Fuzz("first", faults));
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("0 new bug(s)"), std::string::npos) << again.out;

  // The reports: JUnit with a failure per new bug, SARIF 2.1.0, a self-contained page. The two
  // crashes (a segfault, a worker over its memory) are two bugs.
  const std::size_t bugs =
      ReadJson(*scratch_ / "second" / "report" / "summary.json")["bugs"].size();
  EXPECT_GE(bugs, 2u);
  EXPECT_LE(bugs, Signatures("second").size());
  std::stringstream junit, html;
  junit << std::ifstream(*scratch_ / "first" / "report" / "junit.xml").rdbuf();
  const std::string tests = fmt::format("tests=\"{}\"", bugs);
  EXPECT_NE(junit.str().find(tests + " failures=\"0\""), std::string::npos) << junit.str();
  junit.str("");
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

// Killed with SIGKILL mid-campaign, `--resume` finishes the same sequence without rerunning
// what was journaled, and the corpus still loads.
TEST_F(CampaignTest, ResumeAfterSigkillRunsOnlyTheRest) {
  const auto argv =
      Fuzz("resumed", {"--cases", "4", "--jobs", "1", "--inject-fault", "0:segfault"});
  std::vector<std::string> command = {INDUCTOR_FUZZ_BINARY};
  command.insert(command.end(), argv.begin(), argv.end());
  const fs::path journal = *scratch_ / "resumed" / "campaigns" / "seed-3-shard-0of1.jsonl";
  {
    support::ChildProcess driver(command, {.stderr_file = *scratch_ / "resumed.err"});
    // Wait until two cases are journaled (the header is the first line), then kill it.
    for (int waited = 0; waited < 600; ++waited) {
      std::ifstream in(journal);
      std::size_t lines = 0;
      for (std::string line; std::getline(in, line);)
        ++lines;
      if (lines >= 3)
        break;
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    ::kill(driver.pid(), SIGKILL);
    driver.Wait();
  }
  EXPECT_EQ(corpus::FindingStore(*scratch_ / "resumed").List().size(), 1u)
      << "the segfault of case 0 was stored before the kill";

  auto resume = argv;
  resume.push_back("--resume");
  const auto resumed = RunInductorFuzz(resume);
  ASSERT_TRUE(resumed.exit_code == 0 || resumed.exit_code == 1) << resumed.out << resumed.err;
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
}

// Three shards over the same six cases, merged, equal one unsharded run.
TEST_F(CampaignTest, ThreeShardsMergedEqualOneRun) {
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

// The compiler matrix inside the campaign: every case's TUs rebuilt on clang++-19 and on a g++
// that fails every build, loaded and replayed. The broken compiler makes a compiler-divergence
// finding, stored with the matrix. Run again, every build comes from the build cache.
TEST_F(CampaignTest, MatrixFindingsAreStoredAndBuildsAreCachedByContent) {
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
  // `corpus issue` prints the same draft.
  const auto issue = RunInductorFuzz({"corpus", "issue", bug["id"].get<std::string>(), "--corpus",
                                      (*scratch_ / "deliver").string()});
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

  // Run again into the same corpus: nothing new, nothing reduced again.
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
