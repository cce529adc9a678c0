// The command line on bad input: one line on stderr that says what to do, exit 2, and nothing
// stored is touched. None of these needs torch: input is checked before a worker starts.
#include "cli_fixture.h"
#include "corpus/delivery.h"

#include <sstream>

namespace fuzzer {
namespace {

using namespace cli_testing;

// A corpus at `folder` holding one crash of the seed case, stored as a campaign would.
corpus::FindingStore StoreSeedCrash(const std::filesystem::path &folder) {
  const auto c = corpus::LoadCaseFile(kSeed);
  corpus::Finding finding{.kind = corpus::FindingKind::kCrash};
  finding.essence.Add("api", "create_block_mask").Add("signal", "11");
  corpus::FindingStore store(folder);
  store.Record(finding, corpus::MakeHit(c, {}, "2026-11-25T00:00:00Z"),
               [&](const std::filesystem::path &dir) {
                 std::ofstream(dir / "case.json") << corpus::CaseToJson(c).dump(2);
               });
  return store;
}

TEST_F(CliTest, HelpExplainsEverySubcommand) {
  const auto run = RunInductorFuzz({"--help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("Exit codes"), std::string::npos);
  const std::vector<std::string> subcommands = {
      "fuzz",  "corpus", "replay", "reduce", "run-case", "convert", "capture",
      "repro", "gen",    "check",  "matrix", "compare",  "bisect",  "doctor"};
  for (const auto &name : subcommands) {
    SCOPED_TRACE(name);
    EXPECT_NE(run.out.find(name), std::string::npos);
    const auto help = RunInductorFuzz({name, "--help"});
    EXPECT_EQ(help.exit_code, 0) << help.err;
    EXPECT_NE(help.out.find("Example: inductor-fuzz " + name), std::string::npos) << help.out;
  }
  // Every subcommand the binary lists is one this test knows: a new one needs its check here.
  std::size_t listed = 0;
  std::istringstream lines(run.out.substr(run.out.find("Subcommands:")));
  for (std::string line; std::getline(lines, line);)
    listed += line.size() > 2 && line.starts_with("  ") && line[2] != ' ';
  EXPECT_EQ(listed, subcommands.size()) << run.out;
}

// repro: the script of a case file, a run-case folder or a corpus finding's folder.
TEST_F(CliTest, ReproWritesTheScriptOfACaseFromAFileOrAFolder) {
  const auto printed = RunInductorFuzz({"repro", kSeed.string()});
  EXPECT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_NE(printed.out.find("# inductor-fuzz case causal-151290"), std::string::npos);
  EXPECT_NE(printed.out.find("torch.__version__"), std::string::npos);

  std::stringstream seed;
  seed << std::ifstream(kSeed).rdbuf();
  Write("finding/records/s9-i1/case.json", seed.str());
  const auto written = RunInductorFuzz(
      {"repro", (folder_ / "finding").string(), "--out", (folder_ / "repro.py").string()});
  EXPECT_EQ(written.exit_code, 0) << written.err;
  std::stringstream script;
  script << std::ifstream(folder_ / "repro.py").rdbuf();
  EXPECT_EQ(script.str(), printed.out);

  ExpectOneLineError({"repro", (folder_ / "missing.json").string()}, "does not exist");
  std::filesystem::create_directories(folder_ / "empty");
  ExpectOneLineError({"repro", (folder_ / "empty").string()}, "holds no case");
  ExpectOneLineError({"repro", kSeed.string(), "--out", folder_.string()}, "is a folder");
}

// repro SCRIPT --signature: the one judge of a repro's failure (scripts/verify-issue-drafts
// calls it), with the message's numbers read as the signature writes them.
TEST_F(CliTest, ReproJudgesAScriptAgainstASignature) {
  const std::string signature = "exception|type=builtins.RuntimeError|message=boom <N> times";
  Write("raises.py", "raise RuntimeError('boom 12 times')\n");
  const auto reproduces =
      RunInductorFuzz({"repro", (folder_ / "raises.py").string(), "--signature", signature});
  EXPECT_EQ(reproduces.exit_code, 1) << reproduces.out << reproduces.err;
  EXPECT_NE(reproduces.out.find("repro: reproduces: "), std::string::npos) << reproduces.out;
  Write("other.py", "raise ValueError('boom 12 times')\n");
  const auto differs =
      RunInductorFuzz({"repro", (folder_ / "other.py").string(), "--signature", signature});
  EXPECT_EQ(differs.exit_code, 0) << differs.err;
  EXPECT_NE(differs.out.find("repro: fails-differently: "), std::string::npos) << differs.out;
  Write("passes.py", "print('PASS')\n");
  const auto passes =
      RunInductorFuzz({"repro", (folder_ / "passes.py").string(), "--signature", signature});
  EXPECT_EQ(passes.exit_code, 0) << passes.err;
  EXPECT_NE(passes.out.find("repro: passes: "), std::string::npos) << passes.out;
  ExpectOneLineError({"repro", kSeed.string(), "--signature", signature}, "is not a .py file");
  ExpectOneLineError({"repro", (folder_ / "raises.py").string(), "--signature", "boom"},
                     "is not a signature");
  // The kind is read once, here, and a signature of no kind is refused, not judged.
  ExpectOneLineError(
      {"repro", (folder_ / "raises.py").string(), "--signature", "no-such-kind|type=ValueError"},
      "names no finding kind");
}

TEST_F(CliTest, CheckSaysACommandsFileGoesWithCommands) {
  const auto file = Write("commands.json", R"({"format_version": 2, "commands": []})");
  ExpectOneLineError({"check", file.string()}, "is JSON, not C++: give a run's commands with");
}

TEST_F(CliTest, MalformedCaseFile) {
  const auto file = Write("bad.json", R"({"format_version": 1, "name": "x", )");
  ExpectOneLineError({"run-case", file.string(), "--out", (folder_ / "out").string()},
                     "is not valid JSON");
  EXPECT_FALSE(std::filesystem::exists(folder_ / "out"));
}

// A known-issues file whose match names a fact no kind has stops run-case and fuzz before any
// worker starts: one line naming the entry, exit 2, nothing written.
TEST_F(CliTest, AKnownIssueWithABadMatchIsRefusedNamingTheEntry) {
  const auto known = Write("known.json", R"({"format_version": 1, "issues": [{"id": "mine",
    "match": "wrong-result|api=flex_attention|colour=red", "status": "unreported", "link": "",
    "title": "t"}]})");
  ExpectOneLineError(
      {"run-case", kSeed.string(), "--out", (folder_ / "out").string(), "--known-issues",
       known.string()},
      "'issues[0].match' of 'mine' names the fact 'colour', which wrong-result has not");
  EXPECT_FALSE(std::filesystem::exists(folder_ / "out"));
  ExpectOneLineError({"fuzz", "--cases", "1", "--corpus", (folder_ / "corpus").string(),
                      "--known-issues", known.string()},
                     "names the fact 'colour'");
  EXPECT_FALSE(std::filesystem::exists(folder_ / "corpus"));
}

// A corpus whose finding cannot be read stops `fuzz` before any case runs, in one line, and
// leaves no campaign journal behind.
TEST_F(CliTest, ADamagedCorpusIsRefusedAndGetsNoJournal) {
  Write("corpus/findings/crash-0123456789abcdef/finding.json", std::string("\x7f"
                                                                           "ELF\x02",
                                                                           5));
  ExpectOneLineError(
      {"fuzz", "--cases", "1", "--seed", "5", "--corpus", (folder_ / "corpus").string()},
      "finding.json");
  EXPECT_FALSE(
      std::filesystem::exists(folder_ / "corpus" / "campaigns" / "seed-5-shard-0of1.jsonl"));
}

// A corpus on a read-only file system (EROFS: a read-only bind mount in a mount namespace of the
// test's own): `fuzz` says so in one line, exit 2, before any case, and the corpus still loads.
TEST_F(CliTest, AReadOnlyCorpusIsOneLineAndStaysWhole) {
  const auto corpus_dir = folder_ / "corpus";
  StoreSeedCrash(corpus_dir);
  const auto err_file = folder_ / "read-only.err";
  // Twice: a corpus of this build (its queue folder is made first), then an older one without
  // corpus.json (its migration writes first).
  for (const bool old : {false, true}) {
    if (old)
      std::filesystem::remove(corpus_dir / "corpus.json");
    std::filesystem::remove(err_file);
    const auto run = support::RunCommand(
        {"unshare", "-Urm", "sh", "-c",
         "mount --bind \"$1\" \"$1\" && mount -o remount,ro,bind \"$1\" || exit 77; shift; "
         "exec \"$@\"",
         "sh", corpus_dir.string(), INDUCTOR_FUZZ_BINARY, "fuzz", "--cases", "1", "--seed", "4",
         "--corpus", corpus_dir.string()},
        {.stderr_file = err_file}, std::chrono::seconds(300));
    if (run.status.exit_code == 77)
      GTEST_SKIP() << "no mount namespace here";
    std::stringstream read;
    read << std::ifstream(err_file).rdbuf();
    const std::string err = read.str();
    EXPECT_EQ(run.status.exit_code, 2) << run.output << err;
    EXPECT_NE(err.find("Read-only file system"), std::string::npos) << err;
    EXPECT_EQ(err.find("internal error"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(corpus::FindingStore(corpus_dir).List().size(), 1u);
  }
}

// `--json` prints JSON alone on stdout, also when opening the corpus migrates it: the
// migration's line goes to stderr, so `corpus list --json | jq` works after an upgrade.
TEST_F(CliTest, CorpusListJsonPrintsOnlyJsonWhenItMigrates) {
  const auto corpus = folder_ / "old";
  std::filesystem::copy(std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                            "tests/fixtures/corpus_80cc65d",
                        corpus, std::filesystem::copy_options::recursive);
  const auto run = RunInductorFuzz({"corpus", "list", "--json", "--corpus", corpus.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("corpus: migrated"), std::string::npos) << run.err;
  const auto listed = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_FALSE(listed.is_discarded()) << run.out;
  const auto again = RunInductorFuzz({"corpus", "list", "--json", "--corpus", corpus.string()});
  EXPECT_EQ(again.err.find("migrated"), std::string::npos) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out), listed);
  // `corpus show`, JSON always, on another copy that its opening migrates.
  const auto other = folder_ / "old2";
  std::filesystem::copy(std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                            "tests/fixtures/corpus_80cc65d",
                        other, std::filesystem::copy_options::recursive);
  ASSERT_TRUE(listed.is_array() && !listed.empty()) << listed.dump(2);
  const std::string bug = listed[0].value("id", "");
  const auto shown = RunInductorFuzz({"corpus", "show", bug, "--corpus", other.string()});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.err.find("corpus: migrated"), std::string::npos) << shown.err;
  EXPECT_FALSE(nlohmann::json::parse(shown.out, nullptr, false).is_discarded()) << shown.out;
}

TEST_F(CliTest, UnknownFieldType) {
  std::stringstream seed;
  seed << std::ifstream(kSeed).rdbuf();
  std::string text = seed.str();
  text.replace(text.find("\"B\": 1"), 6, "\"B\": [1]");
  const auto file = Write("typed.json", text);
  ExpectOneLineError({"run-case", file.string(), "--out", (folder_ / "out").string()},
                     "field 'create_block_mask.B' must be an integer, got array");
}

TEST_F(CliTest, MissingAndBinaryFiles) {
  ExpectOneLineError({"run-case", (folder_ / "nope.json").string(), "--out", folder_.string()},
                     "does not exist");
  const auto binary = Write("kernel.json", std::string("\x7f"
                                                       "ELF\0\0\x02",
                                                       7));
  ExpectOneLineError({"run-case", binary.string(), "--out", folder_.string()}, "binary file");
}

// A mask module without a function named, a case file given --mask, a case too large to load:
// each a one-line error before any worker runs, and nothing written.
TEST_F(CliTest, ConvertAndRunCaseRefuseWhatTheyCannotUse) {
  const auto masks =
      std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) / "tests/fixtures/convert/masks.py";
  ExpectOneLineError({"convert", masks.string(), "--out", (folder_ / "x.json").string()},
                     "name the function to run with --mask NAME");
  ExpectOneLineError({"convert", masks.string(), "--mask", "causal", "--api", "tensor_program",
                      "--out", (folder_ / "x.json").string()},
                     "--api tensor_program: a tensor program is not converted from a mask module");
  ExpectOneLineError(
      {"run-case", kSeed.string(), "--mask", "causal", "--out", (folder_ / "out").string()},
      "--mask and --score name functions of a Python module");
  const auto big = Write("big.json", std::string(17 << 20, ' '));
  ExpectOneLineError({"run-case", big.string(), "--out", (folder_ / "out").string()},
                     "over the 16 MiB a case file may hold; keep large tensors in sidecars: "
                     "`inductor-fuzz convert");
  // Several cases: every file is read before any runs, a module runs alone, --sanitize too.
  ExpectOneLineError({"run-case", kSeed.string(), (folder_ / "nope.json").string(), "--out",
                      (folder_ / "out").string()},
                     "does not exist");
  ExpectOneLineError(
      {"run-case", kSeed.string(), masks.string(), "--out", (folder_ / "out").string()},
      "a module of masks runs alone; give it as the only case");
  ExpectOneLineError({"run-case", kSeed.string(), kSeed.string(), "--sanitize", "address", "--out",
                      (folder_ / "out").string()},
                     "--sanitize runs one case at a time");
  EXPECT_FALSE(std::filesystem::exists(folder_ / "x.json"));
  EXPECT_FALSE(std::filesystem::exists(folder_ / "out"));
}

TEST_F(CliTest, RefusesAnOutputFolderItDidNotWrite) {
  const auto keep = Write("precious.txt", "stored findings");
  ExpectOneLineError({"run-case", kSeed.string(), "--out", folder_.string()},
                     "which run-case did not write");
  std::stringstream contents;
  contents << std::ifstream(keep).rdbuf();
  EXPECT_EQ(contents.str(), "stored findings");
}

// The delivery's options and `corpus issue` refuse what they cannot use, in one line, and a
// damaged delivery.json or known-issues status is named, not taken.
TEST_F(CliTest, DeliveryAndIssueDraftsRefuseBadInput) {
  ExpectOneLineError({"fuzz", "--cases", "1", "--reduce", "sometimes"},
                     "--reduce sometimes is not one of new (the default), all, none");
  const auto known = Write("known.json", R"({"format_version": 1, "issues": [{"id": "a",
    "match": "crash|x", "status": "fixed-in someday", "link": "", "title": "t"}]})");
  ExpectOneLineError({"fuzz", "--cases", "1", "--known-issues", known.string()},
                     "fixed-in <release>");
  corpus::FindingStore store = StoreSeedCrash(folder_ / "corpus");
  ExpectOneLineError({"corpus", "issue", "bug-0000", "--corpus", (folder_ / "corpus").string()},
                     "is neither a bug or finding of");
  ExpectOneLineError({"corpus", "issue", "no-such-issue", "--corpus", (folder_ / "none").string()},
                     "is no known issue of");
  // A damaged delivery.json reads as none: the corpus still opens, and lists the bug.
  const auto folder = store.List().front().folder;
  Write((folder / "delivery.json").lexically_relative(folder_).string(), "\x7f"
                                                                         "ELF\x02");
  const auto listed =
      RunInductorFuzz({"corpus", "list", "--corpus", (folder_ / "corpus").string()});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("1 bug(s) from 1 signature(s)"), std::string::npos) << listed.out;
  // --upstream is read before anything runs: a missing file or one that is no export.
  const auto id = store.List().front().id;
  ExpectOneLineError({"corpus", "issue", id, "--corpus", (folder_ / "corpus").string(),
                      "--upstream", (folder_ / "missing.json").string()},
                     "no such file; export the tracker's issues with `gh issue list");
  ExpectOneLineError({"corpus", "issue", id, "--corpus", (folder_ / "corpus").string(),
                      "--upstream", Write("issues.json", "[{\"number\": 1}]").string()},
                     "has no integer \"number\" and string \"title\"");
}

// A finding whose stored case is gone (an older tool on a full disk, a hand-edited corpus):
// replay says which it could not replay and exits 2, not "0 still failing".
TEST_F(CliTest, ReplaySaysWhatItCouldNotReplay) {
  corpus::FindingStore store = StoreSeedCrash(folder_ / "corpus");
  const auto stored = store.List().front();
  std::filesystem::remove_all(stored.folder / "records");
  const auto replay = RunInductorFuzz({"replay", "--corpus", (folder_ / "corpus").string(),
                                       "--known-issues", (folder_ / "none.json").string()});
  EXPECT_EQ(replay.exit_code, 2) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("could not replay 1 finding(s), which hold no stored case or one "
                            "this build will not load: " +
                            stored.id),
            std::string::npos)
      << replay.out;
}

// A stored case this build will not load (a mutant an older campaign stored) is reported like a
// missing one, and the replay goes on instead of stopping at it.
TEST_F(CliTest, ReplayGoesOnPastACaseItWillNotLoad) {
  corpus::FindingStore store = StoreSeedCrash(folder_ / "corpus");
  const auto stored = store.List().front();
  ASSERT_FALSE(stored.smallest.empty());
  Write((stored.smallest / "case.json").lexically_relative(folder_).string(),
        R"({"format_version": 2, "api": "index_program", "constants": {"bias": -6}})");
  const auto replay = RunInductorFuzz({"replay", "--corpus", (folder_ / "corpus").string(),
                                       "--known-issues", (folder_ / "none.json").string()});
  EXPECT_EQ(replay.exit_code, 2) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("unreadable stored case: "), std::string::npos) << replay.out;
  EXPECT_NE(replay.out.find("1 finding(s) of 1 bug(s) replayed"), std::string::npos) << replay.out;
  EXPECT_NE(replay.out.find("could not replay 1 finding(s)"), std::string::npos) << replay.out;
}

// A delivered bug whose repro did not fail standalone has no draft: `corpus issue` says why in
// one line and exits 1, and the report shows the reason where the draft and its Copy button go.
TEST_F(CliTest, ABugWhoseReproDoesNotFailStandaloneHasNoDraft) {
  corpus::FindingStore store = StoreSeedCrash(folder_ / "corpus");
  const auto stored = store.List().front();
  corpus::WriteDelivery(stored.folder,
                        {.bug = "bug-x",
                         .finding_id = stored.id,
                         .signature = stored.signature,
                         .status = corpus::DeliveryStatus::kReduced,
                         .reproduces_standalone = false,
                         .standalone_how = "exit 0: PASS: compiled and eager agree"});
  const auto issue =
      RunInductorFuzz({"corpus", "issue", stored.id, "--corpus", (folder_ / "corpus").string()});
  EXPECT_EQ(issue.exit_code, 1) << issue.err;
  EXPECT_EQ(issue.out, "corpus issue: " + stored.id +
                           ": no draft: not reproduced standalone: its repro.py does not fail on "
                           "its own (exit 0: PASS: compiled and eager agree); the next delivery "
                           "tries again\n");
  EXPECT_FALSE(std::filesystem::exists(stored.folder / "issue.md"));
  const auto report =
      RunInductorFuzz({"corpus", "report", "--corpus", (folder_ / "corpus").string(), "--report",
                       (folder_ / "report").string()});
  ASSERT_EQ(report.exit_code, 1) << report.err;
  std::ifstream html_file(folder_ / "report" / "report.html");
  const std::string html((std::istreambuf_iterator<char>(html_file)), {});
  EXPECT_NE(html.find("<b>no issue draft</b>"), std::string::npos) << html;
  EXPECT_NE(html.find("not reproduced standalone"), std::string::npos);
  EXPECT_EQ(html.find("onclick=\"copyDraft("), std::string::npos);
}

TEST_F(CliTest, UnknownOptionsAndMissingVenv) {
  ExpectOneLineError({"run-case", "--frobnicate"}, "see inductor-fuzz --help");
  ExpectOneLineError({"--venv", (folder_ / "no-venv").string(), "run-case", kSeed.string(), "--out",
                      (folder_ / "out").string()},
                     "the worker did not start");
}

// Numbers and names the tool cannot use are refused in one line, before any work (issue 65).
TEST_F(CliTest, UnusableNumbersAndUnknownCommandsAreOneLineErrors) {
  ExpectOneLineError({"nosuch"}, "unknown command 'nosuch'; the commands are: ");
  ExpectOneLineError({}, "no command given; the commands are: ");
  ExpectOneLineError({"fuzz", "--jobs", "0", "--corpus", (folder_ / "c").string()}, "--jobs");
  ExpectOneLineError({"fuzz", "--seed", "-1", "--corpus", (folder_ / "c").string()}, "--seed");
  ExpectOneLineError({"gen", "--seed", "-1"}, "--seed");
  const auto policy = Write("policy.json", R"({"numbers": {"p_score_mod": 7}})");
  ExpectOneLineError({"gen", "--policy", policy.string()},
                     "policy numbers.p_score_mod is a probability; give a number from 0 to 1");
  EXPECT_FALSE(std::filesystem::exists(folder_ / "c")) << "refused before the corpus is made";
}

// A number past double's range in a case is a bad case file, named, not an internal error.
TEST_F(CliTest, ANumberOverflowInACaseIsABadCaseFile) {
  const auto overflow = Write(
      "overflow.json", R"({"name": "x", "api": "create_mask", "create_block_mask": {"B": 1e999}})");
  ExpectOneLineError({"run-case", overflow.string(), "--out", (folder_ / "out").string()},
                     overflow.string() + " is not valid JSON");
  EXPECT_FALSE(std::filesystem::exists(folder_ / "out"));
}

// An output that cannot be written is refused before the job, not after it (issue 65).
TEST_F(CliTest, OutputsThatCannotBeWrittenAreRefusedFirst) {
  const auto file = Write("a-file", "mine\n");
  ExpectOneLineError(
      {"fuzz", "--cases", "1", "--report", file.string(), "--corpus", (folder_ / "c").string()},
      "--report " + file.string() + " is a file, not a folder");
  EXPECT_FALSE(std::filesystem::exists(folder_ / "c")) << "refused before the corpus is made";
  ExpectOneLineError({"compare", "--baseline", "g++-12", "--candidate", "clang++-19", "--corpus",
                      (folder_ / "none").string(), "--report", file.string()},
                     "is a file, not a folder");
  ExpectOneLineError({"matrix", folder_.string(), "--json", folder_.string()},
                     "--json " + folder_.string() + " is a folder");
  std::ifstream mine(file);
  std::string text((std::istreambuf_iterator<char>(mine)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "mine\n") << "the user's file is left as it was";
}

TEST_F(CliTest, CheckRejectsWhatIsNotCpp) {
  const auto binary = Write("kernel.cpp", std::string("\x7f"
                                                      "ELF\0\0\x02",
                                                      7));
  ExpectOneLineError({"check", binary.string()}, "binary file");
  const auto empty = Write("empty.cpp", "");
  ExpectOneLineError({"check", empty.string()}, "is empty");
  ExpectOneLineError({"check", (folder_ / "missing.cpp").string()}, "does not exist");
  ExpectOneLineError({"check", folder_.string()}, "is a folder without a commands.json");
  const auto ok = Write("ok.cpp", "int main() { return 0; }\n");
  ExpectOneLineError({"check", ok.string(), "--format", "xml"}, "--format xml is unknown");
}

TEST_F(CliTest, CheckReportsFindingsAsTextJsonAndSarif) {
  const auto fixture = std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                       "tests/fixtures/analysis/broken/pytorch140606_bool_scalar.cpp";
  const auto text = RunInductorFuzz({"check", fixture.string(), "--", "-std=c++20"});
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_NE(text.out.find(":8:10: error: conflicting-declaration [variable-redeclared "
                          "err_redefinition] 'buf6_scalar' (bool) in inductor_entry_impl "
                          "(function scope)"),
            std::string::npos)
      << text.out;
  const auto sarif = RunInductorFuzz({"check", fixture.string(), "--format", "sarif"});
  EXPECT_EQ(sarif.exit_code, 1);
  const auto document = nlohmann::json::parse(sarif.out);
  EXPECT_EQ(document["version"], "2.1.0");
  const auto &result = document["runs"][0]["results"][0];
  EXPECT_EQ(result["ruleId"], "variable-redeclared");
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["region"]["startLine"], 8);
  EXPECT_EQ(result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 6);
  const auto clean = Write("clean.cpp", "extern \"C\" void kernel(float* out) { out[0] = 1; }\n");
  EXPECT_EQ(RunInductorFuzz({"check", clean.string(), "--format", "json"}).exit_code, 0);
}

TEST_F(CliTest, CheckWithCompilersReportsDivergence) {
  // gcc only warns about narrowing a non-constant in braces; Clang rejects it.
  const auto narrowing =
      Write("narrowing.cpp", "extern \"C\" int kernel(double d) { int v[] = {d}; return v[0]; }\n");
  const auto run = RunInductorFuzz({"check", narrowing.string(), "--compilers", "g++-12,clang++-14",
                                    "--format", "json", "--", "-std=c++20"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const auto document = nlohmann::json::parse(run.out);
  ASSERT_EQ(document["compiler_divergence"].size(), 1u) << run.out;
  EXPECT_EQ(document["compiler_divergence"][0]["built_by"], nlohmann::json::array({"g++-12"}));
  EXPECT_EQ(document["compiler_divergence"][0]["failed_on"], nlohmann::json::array({"clang++-14"}));
  // Our Clang rejects it too: an error no check classifies is still a finding, keyed by its ID.
  ASSERT_EQ(document["findings"].size(), 1u) << run.out;
  EXPECT_EQ(document["findings"][0]["check"], "unclassified-error");
  EXPECT_EQ(document["findings"][0]["clang_diagnostic"], "ext_init_list_type_narrowing");
}

TEST_F(CliTest, CheckMakesEveryClangErrorAFindingInTextJsonAndSarif) {
  const auto fixture = std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                       "tests/fixtures/analysis/broken/unclassified_error.cpp";
  const auto text = RunInductorFuzz({"check", fixture.string(), "--", "-std=c++20"});
  EXPECT_EQ(text.exit_code, 1) << text.out << text.err;
  EXPECT_NE(text.out.find("1 file(s), 1 finding(s), 0 warning(s)"), std::string::npos) << text.out;
  const auto json_run = RunInductorFuzz({"check", fixture.string(), "--format", "json"});
  const auto document = nlohmann::json::parse(json_run.out);
  ASSERT_EQ(document["findings"].size(), 1u) << json_run.out;
  EXPECT_EQ(document["findings"][0]["check"], "unclassified-error");
  EXPECT_EQ(document["findings"][0]["kind"], "analysis-error");
  EXPECT_EQ(document["findings"][0]["clang_diagnostic"], "err_undeclared_var_use");
  EXPECT_EQ(document["findings"][0]["kernel"], "kernel");
  EXPECT_NE(document["findings"][0]["signature"].get<std::string>().find(
                "diagnostic=err_undeclared_var_use"),
            std::string::npos);
  const auto sarif = RunInductorFuzz({"check", fixture.string(), "--format", "sarif"});
  EXPECT_EQ(sarif.exit_code, 1);
  const auto results = nlohmann::json::parse(sarif.out)["runs"][0]["results"];
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["ruleId"], "unclassified-error");
}

TEST_F(CliTest, CheckCountsWarningsApartAndTheExitCodeAgrees) {
  const auto fixture = std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                       "tests/fixtures/analysis/broken/shadowed_local.cpp";
  const auto text = RunInductorFuzz({"check", fixture.string(), "--", "-std=c++20"});
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("1 file(s), 0 finding(s), 1 warning(s)"), std::string::npos) << text.out;
  const auto json_run = RunInductorFuzz({"check", fixture.string(), "--format", "json"});
  const auto document = nlohmann::json::parse(json_run.out);
  EXPECT_EQ(document["errors"], 0);
  EXPECT_EQ(document["warnings"], 1);
  ASSERT_EQ(document["findings"].size(), 1u);
  EXPECT_EQ(document["findings"][0]["signature"],
            "shadowing|check=shadowed-local|name=tmp_acc<N>|type=float|previous_type=float|"
            "kernel=kernel");
}

TEST_F(CliTest, CheckWithCompilersClassifiesWhatOnlyGccRejects) {
  // Clang accepts a block-scope extern redeclaring a while condition's variable; gcc does not.
  const auto fixture = std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                       "tests/fixtures/analysis/clean/condition_variable_extern.cpp";
  const auto clang_only = RunInductorFuzz({"check", fixture.string(), "--", "-std=c++20"});
  EXPECT_EQ(clang_only.exit_code, 0) << clang_only.out;
  const auto run = RunInductorFuzz({"check", fixture.string(), "--compilers", "g++-12,clang++-19",
                                    "--format", "json", "--", "-std=c++20"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const auto document = nlohmann::json::parse(run.out);
  ASSERT_EQ(document["findings"].size(), 1u) << run.out;
  const auto &finding = document["findings"][0];
  EXPECT_EQ(finding["check"], "conflicting-linkage");
  EXPECT_EQ(finding["reported_by"], "g++-12");
  EXPECT_EQ(finding["name"], "tmp0");
  EXPECT_EQ(finding["kernel"], "kernel");
  EXPECT_EQ(finding["location"]["line"], 9);
  EXPECT_EQ(finding["previous"]["line"], 7);
}

// A .cu: Clang's CUDA parse (no GPU), and nvcc in the compiler matrix: a family of its own whose
// diagnostics give the same findings gcc's do.
TEST_F(CliTest, CheckParsesCudaWithClangAndBuildsItWithNvcc) {
  if (!support::FindOnPath("nvcc"))
    GTEST_SKIP() << "no CUDA toolkit installed (nvcc is not on PATH)";
  const auto fixtures = std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) / "tests/fixtures/analysis";
  const auto json_of = [](const test_support::BinaryRun &run) {
    return nlohmann::json::parse(run.out);
  };
  // Both reject a local declared twice in a kernel: Clang's finding, as on a .cpp.
  const auto redeclared =
      RunInductorFuzz({"check", (fixtures / "broken/kernel_local_redeclared.cu").string(),
                       "--compilers", "nvcc", "--format", "json"});
  EXPECT_EQ(redeclared.exit_code, 1) << redeclared.out << redeclared.err;
  auto document = json_of(redeclared);
  ASSERT_EQ(document["findings"].size(), 1u) << redeclared.out;
  EXPECT_EQ(document["findings"][0]["check"], "variable-redeclared");
  EXPECT_EQ(document["findings"][0]["name"], "i");
  EXPECT_EQ(document["findings"][0]["kernel"], "scale_kernel");
  EXPECT_EQ(document["compiler_divergence"].size(), 0u) << redeclared.out;

  // nvcc builds the clean kernel and its launcher.
  const auto clean = RunInductorFuzz(
      {"check", (fixtures / "clean/kernel_with_launcher.cu").string(), "--compilers", "nvcc"});
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_NE(clean.out.find("1 file(s), 0 finding(s), 0 warning(s)"), std::string::npos);

  // What only nvcc rejects: a __device__ and a host function of one signature (Clang takes them
  // as overloads), and a local declared twice in device-only code (Clang parses the host side).
  const auto both =
      RunInductorFuzz({"check", (fixtures / "clean/device_and_host_definitions.cu").string(),
                       (fixtures / "clean/device_only_branch_redeclared.cu").string(),
                       "--compilers", "nvcc", "--format", "json"});
  EXPECT_EQ(both.exit_code, 1) << both.out << both.err;
  document = json_of(both);
  ASSERT_EQ(document["findings"].size(), 2u) << both.out;
  const auto &host = document["findings"][0];
  EXPECT_EQ(host["check"], "redefinition");
  EXPECT_EQ(host["name"], "scale");
  EXPECT_EQ(host["reported_by"], "nvcc");
  EXPECT_EQ(host["scope"], "namespace");
  EXPECT_EQ(host["location"]["line"], 6);
  EXPECT_EQ(host["previous"]["line"], 5);
  const auto &device = document["findings"][1];
  EXPECT_EQ(device["check"], "variable-redeclared");
  EXPECT_EQ(device["name"], "x0");
  EXPECT_EQ(device["kernel"], "kernel");
  EXPECT_EQ(device["reported_by"], "nvcc");
  EXPECT_EQ(device["location"]["line"], 10);
}

TEST_F(CliTest, CheckSaysWhenACudaFileHasNoCudaInstallation) {
  const auto kernel = Write("kernel.cu", "__global__ void kernel(float* out) { out[0] = 1; }\n");
  const auto run = RunInductorFuzz({"check", kernel.string()}, std::chrono::seconds(60),
                                   {{"CUDA_HOME", (folder_ / "no-cuda").string()}});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("kernel.cu is CUDA, but no CUDA installation was found ($CUDA_HOME is "),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("install the CUDA toolkit or set CUDA_HOME to it"), std::string::npos);
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_EQ(run.out, "") << "nothing is analysed";
}

} // namespace
} // namespace fuzzer
