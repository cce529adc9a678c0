// The command line on bad input: one line on stderr that says what to do, exit 2, and nothing
// stored is touched. None of these needs torch: input is checked before a worker starts.
#include "binary_runner.h"
#include "corpus/finding_store.h"
#include "corpus/matrix_record.h"
#include "fuzzer/matrix/compiler_matrix.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace fuzzer {
namespace {

using test_support::RunInductorFuzz;

const std::filesystem::path kSeed =
    std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) / "corpus/seeds/causal-151290.json";

class CliTest : public ::testing::Test {
protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() /
              ("inductor-fuzz-cli-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  std::filesystem::path Write(const std::string &name, const std::string &contents) {
    std::filesystem::create_directories((folder_ / name).parent_path());
    std::ofstream(folder_ / name, std::ios::binary) << contents;
    return folder_ / name;
  }

  void ExpectOneLineError(const std::vector<std::string> &arguments, const std::string &expected) {
    const auto run = RunInductorFuzz(arguments);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_NE(run.err.find(expected), std::string::npos) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }

  std::filesystem::path folder_;
};

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
  ExpectOneLineError(
      {"run-case", kSeed.string(), "--mask", "causal", "--out", (folder_ / "out").string()},
      "--mask and --score name functions of a Python module");
  const auto big = Write("big.json", std::string(17 << 20, ' '));
  ExpectOneLineError({"run-case", big.string(), "--out", (folder_ / "out").string()},
                     "over the 16 MiB a case file may hold; keep large tensors in sidecars: "
                     "`inductor-fuzz convert");
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

// reduce checks its input and its pass order before any worker starts, and writes nothing.
TEST_F(CliTest, ReduceRefusesBadInputBeforeRunningAnything) {
  ExpectOneLineError({"reduce", (folder_ / "nope.json").string()}, "does not exist");
  std::filesystem::create_directories(folder_ / "not-a-finding");
  ExpectOneLineError({"reduce", (folder_ / "not-a-finding").string()}, "without finding.json");
  const auto passes = Write("passes.json", R"({"case_passes": ["drop-mask-arm", "shuffle"]})");
  ExpectOneLineError(
      {"reduce", kSeed.string(), "--passes", passes.string(), "--out", (folder_ / "out").string()},
      "\"shuffle\" is not a case pass; known: shorten-calls, inline-constants, demote-api");
  const auto listless = Write("listless.json", R"({"passes": []})");
  ExpectOneLineError({"reduce", kSeed.string(), "--passes", listless.string(), "--out",
                      (folder_ / "out").string()},
                     "has no \"case_passes\" list");
  EXPECT_FALSE(std::filesystem::exists(folder_ / "out"));
}

TEST_F(CliTest, ReduceSourceRefusesBadInput) {
  const auto out = (folder_ / "out").string();
  ExpectOneLineError({"reduce", "--cpp", (folder_ / "gone.cpp").string(), "--out", out},
                     "does not exist");
  const auto binary = Write("kernel.cpp", std::string("\x7f"
                                                      "ELF\0\0\x01",
                                                      7));
  ExpectOneLineError({"reduce", "--cpp", binary.string(), "--out", out}, "C++ source");
  ExpectOneLineError({"reduce", "--out", out, "--", "g++", "-c", "x.cpp"},
                     "reduce takes one input");
  ExpectOneLineError({"reduce", kSeed.string(), "--", "g++", "-c", "x.cpp"},
                     "goes with reduce --cpp");
  // --compilers with a case is a matrix finding's option: a case file is none.
  ExpectOneLineError({"reduce", kSeed.string(), "--compilers", "g++-12,clang++-19", "--out", out},
                     "goes with a matrix finding");
  ExpectOneLineError({"reduce", kSeed.string(), "--run", "--out", out}, "--run goes with");
  const auto plain_log = Write("ci.log", "collected 3 items\n3 passed in 0.1s\n");
  ExpectOneLineError({"reduce", "--from-log", plain_log.string(), "--out", out},
                     "holds no CppCompileError");
  // A real CppCompileError whose TU lived in a CI machine's Inductor cache.
  ExpectOneLineError({"reduce", "--from-log",
                      (std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                       "tests/fixtures/reduce/cpp_compile_error.log")
                          .string(),
                      "--out", out},
                     "which is gone");
  // pytest's report (the "E" lines) names the TU just as well.
  ExpectOneLineError({"reduce", "--from-log",
                      (std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                       "tests/fixtures/ci_logs/pytest_collection_color.log")
                          .string(),
                      "--out", out},
                     "cache-pytest_collection/6q/");
  ExpectOneLineError({"reduce", "--from-log", binary.string(), "--out", out}, "the raw log");
  const auto clean = Write("clean.cpp", "int main() { return 0; }\n");
  ExpectOneLineError({"reduce", "--cpp", clean.string(), "--out", out, "--", "g++-12", "-c",
                      clean.string(), "-o", (folder_ / "clean.o").string()},
                     "does not fail");
  const auto passes = Write("passes.json", R"({"source_passes": ["remove-everything"]})");
  ExpectOneLineError(
      {"reduce", "--cpp", clean.string(), "--source-passes", passes.string(), "--out", out},
      "unknown source pass");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(CliTest, ReduceCppWithAnInterestingnessScript) {
  const auto source = Write("kernel.cpp", "#include <vector>\nint helper(int a) { return a * 2; }\n"
                                          "void kernel(float *out) {\n  for (int i = 0; i < 4; "
                                          "++i)\n    out[i] = needle_value + helper(i);\n}\n");
  const auto script = Write("interesting.sh", "#!/bin/sh\ngrep -q needle_value kernel.cpp\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const auto out = folder_ / "out";
  const auto run = RunInductorFuzz({"reduce", "--cpp", source.string(), "--interesting",
                                    script.string(), "--jobs", "2", "--out", out.string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  std::stringstream reduced;
  reduced << std::ifstream(out / "reduced.cpp").rdbuf();
  EXPECT_EQ(reduced.str().substr(0, reduced.str().find_last_not_of("\n") + 1), "needle_value");
  const auto report = nlohmann::json::parse(std::ifstream(out / "reduction.json"));
  EXPECT_EQ(report["tokens_after"], 1);
  EXPECT_GT(report["tokens_before"].get<int>(), 30);
  EXPECT_TRUE(report["repro_reproduces"].get<bool>());
  EXPECT_TRUE(std::filesystem::exists(out / "repro.sh"));
  EXPECT_TRUE(std::filesystem::exists(out / "original.cpp"));
}

// g++ folds std::exp in a constant expression (an extension), clang rejects it: a compiler
// divergence, reduced with both real compilers and the matrix's signature, no script.
TEST_F(CliTest, ReduceCppKeepsACompilerDivergence) {
  const auto source = Write("kernel.cpp", "#include <cmath>\nint helper(int a) { return a * 2; }\n"
                                          "struct Pair { int first, second; };\n"
                                          "void kernel(float *out) {\n  for (int i = 0; i < 4; "
                                          "++i)\n    out[i] = helper(i);\n  constexpr auto scale = "
                                          "std::exp(static_cast<float>(0.0));\n  out[0] *= scale;\n"
                                          "}\n");
  const auto out = folder_ / "out";
  const std::vector<std::string> command = {
      "--", "g++-12", "-std=c++17", "-c", source.string(), "-o", (folder_ / "kernel.o").string()};
  std::vector<std::string> arguments = {
      "reduce", "--cpp", source.string(), "--compilers", "g++-12,clang++-19",
      "--jobs", "2",     "--out",         out.string()};
  arguments.insert(arguments.end(), command.begin(), command.end());
  const auto run = RunInductorFuzz(arguments);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto report = nlohmann::json::parse(std::ifstream(out / "reduction.json"));
  EXPECT_EQ(report["origin"], "compiler-divergence");
  const std::string signature = report["signature"];
  EXPECT_TRUE(signature.starts_with("compiler-divergence|built=g++-12|failed=clang++-19|"))
      << signature;
  EXPECT_NE(signature.find("constant expression"), std::string::npos) << signature;
  std::stringstream reduced;
  reduced << std::ifstream(out / "reduced.cpp").rdbuf();
  EXPECT_NE(reduced.str().find("exp("), std::string::npos) << reduced.str();
  EXPECT_EQ(reduced.str().find("helper"), std::string::npos) << reduced.str();
  EXPECT_EQ(reduced.str().find("Pair"), std::string::npos) << reduced.str();
  EXPECT_LE(report["tokens_after"].get<int>(), 20) << reduced.str();
  EXPECT_TRUE(report["repro_reproduces"].get<bool>()) << report.dump(2);

  // Compilers that agree, one compiler, no command: one line each, nothing written.
  const auto agree = Write("agree.cpp", "int main() { return 0; }\n");
  const auto out2 = (folder_ / "out2").string();
  ExpectOneLineError({"reduce", "--cpp", agree.string(), "--compilers", "g++-12,clang++-19",
                      "--out", out2, "--", "g++-12", "-c", agree.string()},
                     "does not fail");
  ExpectOneLineError({"reduce", "--cpp", agree.string(), "--compilers", "g++-12", "--out", out2,
                      "--", "g++-12", "-c", agree.string()},
                     "two or more");
  ExpectOneLineError(
      {"reduce", "--cpp", agree.string(), "--compilers", "g++-12,clang++-19", "--out", out2},
      "compile command after `--`");
  ExpectOneLineError({"reduce", "--cpp", agree.string(), "--compilers", "g++-12,no-such-cc",
                      "--out", out2, "--", "g++-12", "-c", agree.string()},
                     "compiler no-such-cc was not found");
  EXPECT_FALSE(std::filesystem::exists(out2));
}

// What `matrix --json` stores of a divergence: the TU and each compiler's exact command, with the
// matrix's own prefix (gone with its work folder) that the reducer must leave out.
TEST_F(CliTest, ReduceMatrixRecordKeepsItsCompilerDivergence) {
  const auto source = Write("kernel.cpp", "#include <cmath>\nint helper(int a) { return a * 2; }\n"
                                          "void kernel(float *out) {\n  out[1] = helper(1);\n"
                                          "  constexpr auto scale = "
                                          "std::exp(static_cast<float>(0.0));\n  out[0] = scale;\n"
                                          "}\n");
  const std::string error = "constexpr variable 'scale' must be initialized by a constant "
                            "expression";
  corpus::MatrixRow row{.tu = "kernel.cpp", .source = source.string()};
  row.builds = {
      {.compiler = "g++-12",
       .argv = {"g++-12", "-std=c++17", "-include", (folder_ / "gone/prefix-0.h").string(),
                "-Winvalid-pch", "-c", source.string(), "-o", (folder_ / "gone/g.o").string()},
       .built = true},
      {.compiler = "clang++-19",
       .argv = {"clang++-19", "-std=c++17", "-include-pch",
                (folder_ / "gone/prefix-0.h.pch").string(), "-c", source.string(), "-o",
                (folder_ / "gone/c.o").string()},
       .first_error = error}};
  matrix::TuMatrix built;
  built.builds = {{.compiler = "g++-12", .built = true},
                  {.compiler = "clang++-19", .built = false, .first_error = error}};
  row.divergence = matrix::DivergenceFinding(built);
  ASSERT_TRUE(row.divergence);
  corpus::MatrixRecord record;
  record.rows.push_back(row);
  corpus::WriteMatrixRecord(folder_ / "matrix.json", record);

  const auto out = folder_ / "out";
  const auto run = RunInductorFuzz({"reduce", "--matrix-record", (folder_ / "matrix.json").string(),
                                    "--jobs", "2", "--out", out.string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto report = nlohmann::json::parse(std::ifstream(out / "reduction.json"));
  EXPECT_EQ(report["signature"], corpus::Signature(*row.divergence));
  EXPECT_EQ(run.out.find("note: the log's error"), std::string::npos) << run.out;
  std::stringstream reduced;
  reduced << std::ifstream(out / "reduced.cpp").rdbuf();
  EXPECT_NE(reduced.str().find("exp("), std::string::npos) << reduced.str();
  EXPECT_EQ(reduced.str().find("helper"), std::string::npos) << reduced.str();
  EXPECT_TRUE(report["repro_reproduces"].get<bool>()) << report.dump(2);

  const auto out2 = (folder_ / "out2").string();
  ExpectOneLineError({"reduce", "--matrix-record", (folder_ / "matrix.json").string(), "--tu",
                      "other.cpp", "--out", out2},
                     "has no TU other.cpp with a divergence; those with one: kernel.cpp");
  ExpectOneLineError({"reduce", "--tu", "kernel.cpp", source.string(), "--out", out2},
                     "--tu goes with --matrix-record");
  record.rows[0].divergence.reset();
  corpus::WriteMatrixRecord(folder_ / "agree.json", record);
  ExpectOneLineError(
      {"reduce", "--matrix-record", (folder_ / "agree.json").string(), "--out", out2},
      "holds no divergence");
  std::filesystem::remove(source);
  ExpectOneLineError(
      {"reduce", "--matrix-record", (folder_ / "matrix.json").string(), "--out", out2}, "is gone");
  EXPECT_FALSE(std::filesystem::exists(out2));
}

// The order in which a call's arguments are evaluated is unspecified: g++-12 goes right to left,
// clang++-19 left to right, and the programs print different numbers. Reduced by building and
// running both for real.
TEST_F(CliTest, ReduceCppRunKeepsARuntimeDivergence) {
  const auto source = Write(
      "program.cpp", "#include <cstdio>\nstruct Unused { int a, b; };\n"
                     "static int twice(int x) { return 2 * x; }\n"
                     "static int minus(int a, int b) { return a - b; }\n"
                     "int main() {\n  int total = twice(3);\n  int i = 10;\n"
                     "  int difference = minus(i++, i++);\n  std::printf(\"%d\\n\", difference);\n"
                     "  return total == 6 ? 0 : 1;\n}\n");
  const auto out = folder_ / "out";
  const auto run =
      RunInductorFuzz({"reduce", "--cpp", source.string(), "--compilers", "g++-12,clang++-19",
                       "--run", "--jobs", "2", "--out", out.string(), "--", "g++-12", "-std=c++17",
                       "-O2", source.string(), "-o", (folder_ / "program").string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto report = nlohmann::json::parse(std::ifstream(out / "reduction.json"));
  EXPECT_EQ(report["origin"], "runtime-divergence");
  EXPECT_EQ(report["signature"],
            "runtime-divergence|same=g++-12|differs=clang++-19|how=differs|dtype=");
  std::stringstream reduced;
  reduced << std::ifstream(out / "reduced.cpp").rdbuf();
  EXPECT_NE(reduced.str().find("++"), std::string::npos) << reduced.str();
  EXPECT_EQ(reduced.str().find("Unused"), std::string::npos) << reduced.str();
  EXPECT_EQ(reduced.str().find("twice"), std::string::npos) << reduced.str();
  // Falling off a function's end or reading an unset variable would print anything: a
  // candidate with more such warnings than the original is not kept.
  EXPECT_EQ(reduced.str().find("int i;"), std::string::npos) << reduced.str();
  EXPECT_NE(reduced.str().find("return"), std::string::npos) << reduced.str();
  EXPECT_LE(report["tokens_after"].get<int>(), 50) << reduced.str();
  EXPECT_TRUE(report["repro_reproduces"].get<bool>()) << report.dump(2);
  ExpectOneLineError({"reduce", "--cpp", source.string(), "--compilers", "g++-12,clang++-19",
                      "--run", "--out", (folder_ / "out2").string(), "--", "g++-12", "-c",
                      source.string()},
                     "links one (no -c)");
  ExpectOneLineError({"reduce", "--cpp", source.string(), "--run", "--out",
                      (folder_ / "out2").string(), "--", "g++-12", source.string()},
                     "--run goes with --compilers");
}

// A matrix finding is reduced on the compilers its matrix.json names: one stored without it
// needs --compilers, said in one line before any worker starts.
TEST_F(CliTest, AMatrixFindingWithoutItsMatrixNeedsCompilers) {
  const auto c = corpus::LoadCaseFile(kSeed);
  corpus::Finding finding{.kind = corpus::FindingKind::kRuntimeDivergence};
  finding.essence.Add("same", "g++-12").Add("differs", "clang++-19").Add("how", "differs");
  corpus::FindingStore store(folder_ / "corpus");
  store.Record(finding, corpus::MakeHit(c, {{"torch_version", "2.15.0"}}, "2026-11-25T00:00:00Z"),
               [&](const std::filesystem::path &dir) {
                 std::ofstream(dir / "case.json") << corpus::CaseToJson(c).dump(2);
               });
  const auto stored = store.List();
  ASSERT_EQ(stored.size(), 1u);
  ExpectOneLineError({"reduce", stored[0].folder.string()},
                     "stores no matrix.json naming its compilers: give --compilers");
  EXPECT_FALSE(std::filesystem::exists(stored[0].folder / "reduced"));
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
  const auto c = corpus::LoadCaseFile(kSeed);
  corpus::Finding finding{.kind = corpus::FindingKind::kCrash};
  finding.essence.Add("api", "create_block_mask").Add("signal", "11");
  corpus::FindingStore store(folder_ / "corpus");
  store.Record(finding, corpus::MakeHit(c, {}, "2026-11-25T00:00:00Z"),
               [&](const std::filesystem::path &dir) {
                 std::ofstream(dir / "case.json") << corpus::CaseToJson(c).dump(2);
               });
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
}

// A script that wants one error, the conflict: candidates Clang finds more broken than their
// text go untested.
TEST_F(CliTest, ReduceWithACompilingScriptDropsBrokenCandidatesUntested) {
  const auto source = Write(
      "kernel.cpp", "int helper(int a) { return a * 2; }\n"
                    "void kernel(float *out, int n) {\n  for (int i = 0; i < n; ++i) {\n"
                    "    int x = helper(i);\n    float x = out[i];\n    out[i] = x;\n  }\n}\n");
  const auto script =
      Write("interesting.sh", "#!/bin/sh\nout=$(LC_ALL=C g++-12 -fsyntax-only kernel.cpp 2>&1)\n"
                              "[ \"$(echo \"$out\" | grep -c error:)\" = 1 ] &&\n"
                              "echo \"$out\" | grep -q \"conflicting declaration 'float x'\"\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const auto out = folder_ / "out";
  const auto run = RunInductorFuzz({"reduce", "--cpp", source.string(), "--interesting",
                                    script.string(), "--jobs", "2", "--out", out.string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto report = nlohmann::json::parse(std::ifstream(out / "reduction.json"));
  EXPECT_TRUE(report["clang_gate"]["on"].get<bool>());
  EXPECT_FALSE(report["clang_gate"]["refuted"].get<bool>()) << report.dump(2);
  EXPECT_GT(report["clang_gate"]["dropped"].get<int>(), 0) << report.dump(2);
  EXPECT_LE(report["tokens_after"].get<int>(), 14) << "void f(){int x;float x;}";
  EXPECT_TRUE(report["repro_reproduces"].get<bool>());
}

TEST_F(CliTest, UnknownOptionsAndMissingVenv) {
  ExpectOneLineError({"run-case", "--frobnicate"}, "see inductor-fuzz --help");
  ExpectOneLineError({"--venv", (folder_ / "no-venv").string(), "run-case", kSeed.string(), "--out",
                      (folder_ / "out").string()},
                     "the worker did not start");
}

TEST_F(CliTest, CheckRejectsWhatIsNotCpp) {
  const auto binary = Write("kernel.cpp", std::string("\x7f"
                                                      "ELF\0\0\x02",
                                                      7));
  ExpectOneLineError({"check", binary.string()}, "binary file");
  const auto empty = Write("empty.cpp", "");
  ExpectOneLineError({"check", empty.string()}, "is empty");
  ExpectOneLineError({"check", (folder_ / "missing.cpp").string()}, "does not exist");
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

} // namespace
} // namespace fuzzer
