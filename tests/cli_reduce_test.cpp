// `reduce` and `reduce-cpp` at the command line: bad input refused in one line before any worker
// starts, and the reductions that need no torch (a C++ file with a script, a compiler
// divergence, a matrix record, a runtime divergence) done with the real compilers.
#include "cli_fixture.h"
#include "support/text_file.h"

#include <sstream>

namespace fuzzer {
namespace {

using namespace cli_testing;

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
  // A folder of the user's own files is not taken for a reduction's: its case.json stays.
  const auto own = Write("mine/case.json", "{\"mine\": true}\n");
  ExpectOneLineError({"reduce", kSeed.string(), "--out", (folder_ / "mine").string()},
                     "holds case.json, which no reduction wrote; give an empty or new folder");
  EXPECT_EQ(support::ReadTextFile(own, "case", 1 << 10), "{\"mine\": true}\n");
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

} // namespace
} // namespace fuzzer
