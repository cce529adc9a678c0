// The source reducer: its passes on small texts, the log parser on a real CppCompileError, and
// every annotated fixture in tests/fixtures/reduce reduced for real (our Clang analysis, or the
// compiler its TEST line names), found by the driver, not listed here.
#include "parsers/flag_translation.h"
#include "reducers/source/compile_log.h"
#include "reducers/source/compile_probe.h"
#include "reducers/source/interestingness.h"
#include "reducers/source/source_passes.h"
#include "reducers/source/source_reducer.h"
#include "reducers/source/token_edits.h"
#include "support/errors.h"
#include "support/scratch_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

namespace reducers {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = INDUCTOR_FUZZ_SOURCE_DIR;
const fs::path kFixtures = kSource / "tests" / "fixtures" / "reduce";
const fs::path kTorchInclude = kSource / ".venv/lib/python3.11/site-packages/torch/include";

std::string Read(const fs::path &path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

std::vector<std::string> Candidates(std::string_view pass_name, const std::string &text,
                                    const SourcePassContext &context) {
  const SourcePass *pass = FindSourcePass(pass_name);
  EXPECT_NE(pass, nullptr) << pass_name;
  std::vector<std::string> texts;
  for (const auto &edit : pass->candidates(text, context))
    texts.push_back(ApplyEdit(text, edit));
  return texts;
}

bool Contains(const std::vector<std::string> &texts, const std::string &wanted) {
  return std::find(texts.begin(), texts.end(), wanted) != texts.end();
}

SourcePassContext PlainContext() { return MakeSourcePassContext({}, {}); }

TEST(SourcePasses, RemoveDeclarationsTakesEachWholeWithItsSemicolon) {
  const std::string text = "int a = 1;\nstruct S { int x; };\nvoid f() { a = 2; }\n";
  const auto candidates = Candidates("remove-declarations", text, PlainContext());
  EXPECT_TRUE(Contains(candidates, "\nstruct S { int x; };\nvoid f() { a = 2; }\n"));
  EXPECT_TRUE(Contains(candidates, "int a = 1;\n\nvoid f() { a = 2; }\n"));
  EXPECT_TRUE(Contains(candidates, "int a = 1;\nstruct S { int x; };\n\n"));
}

TEST(SourcePasses, StatementsBodiesAndBlocks) {
  const std::string text =
      "void f(int n) {\n  int s = 0;\n  for (int i = 0; i < n; ++i) {\n    s += i;\n  }\n}\n";
  const auto context = PlainContext();
  const auto statements = Candidates("remove-statements", text, context);
  EXPECT_TRUE(Contains(statements, "void f(int n) {\n  \n  for (int i = 0; i < n; ++i) {\n    s += "
                                   "i;\n  }\n}\n"));
  EXPECT_TRUE(Contains(statements, "void f(int n) {\n  int s = 0;\n  for (int i = 0; i < n; ++i) "
                                   "{\n    \n  }\n}\n"));
  EXPECT_TRUE(Contains(Candidates("empty-bodies", text, context), "void f(int n) {}\n"));
  EXPECT_TRUE(Contains(Candidates("unwrap-blocks", text, context),
                       "void f(int n) {\n  int s = 0;\n  {\n    s += i;\n  }\n}\n"));
  EXPECT_TRUE(Contains(Candidates("remove-parameters", text, context),
                       "void f() {\n  int s = 0;\n  for (int i = 0; i < n; ++i) {\n    s += "
                       "i;\n  }\n}\n"));
}

TEST(SourcePasses, RunsOfNeighboursHalveDownToTwoBiggestFirst) {
  std::string body;
  for (int i = 0; i < 8; ++i)
    body += "  int v" + std::to_string(i) + " = " + std::to_string(i) + ";\n";
  const std::string text = "void f() {\n" + body + "}\n";
  const auto context = PlainContext();
  const auto runs = Candidates("remove-statement-runs", text, context);
  // The two halves of the eight, then the four pairs; single statements are another pass's.
  ASSERT_EQ(runs.size(), 6u);
  EXPECT_EQ(runs[0],
            "void f() {\n  \n  int v4 = 4;\n  int v5 = 5;\n  int v6 = 6;\n  int v7 = 7;\n}\n");
  EXPECT_TRUE(Contains(runs, "void f() {\n  int v0 = 0;\n  int v1 = 1;\n  int v2 = 2;\n  int v3 = "
                             "3;\n  int v4 = 4;\n  int v5 = 5;\n  \n}\n"));
  for (std::size_t i = 1; i < runs.size(); ++i)
    EXPECT_GE(runs[i].size(), runs[i - 1].size()) << "biggest cut first";
  // Top-level declarations the same way; two neighbours are left to the single removals.
  const auto declarations =
      Candidates("remove-declaration-runs", "int a;\nint b;\nint c;\nint d;\n", context);
  EXPECT_EQ(declarations, (std::vector<std::string>{"\nint c;\nint d;\n", "int a;\nint b;\n\n"}));
  EXPECT_TRUE(Candidates("remove-declaration-runs", "int a;\nint b;\n", context).empty());
}

TEST(SourcePasses, ExpressionsBecomeAnOperandACastItsOperandALiteralZero) {
  const std::string text = "long g(long a, long b) { return static_cast<long>(a * b) + 42; }\n";
  const auto candidates = Candidates("simplify-expressions", text, PlainContext());
  EXPECT_TRUE(
      Contains(candidates, "long g(long a, long b) { return static_cast<long>(a * b); }\n"));
  EXPECT_TRUE(Contains(candidates, "long g(long a, long b) { return a * b + 42; }\n"));
  EXPECT_TRUE(
      Contains(candidates, "long g(long a, long b) { return static_cast<long>(a) + 42; }\n"));
  EXPECT_TRUE(
      Contains(candidates, "long g(long a, long b) { return static_cast<long>(a * b) + 0; }\n"));
  EXPECT_TRUE(Contains(Candidates("simplify-expressions",
                                  "int f() { int total = 4; return total + 1; }\n", PlainContext()),
                       "int f() { int total = 4; return 0 + 1; }\n"));
}

// A compile error needs declarations only: the function is cut to the erroneous statement and
// what it names, transitively (a lambda's parameter becomes a local), and the top-level
// declarations nothing kept names go, with everything after the function.
TEST(SourcePasses, SliceToErrorKeepsWhatTheErroneousStatementNeeds) {
  const std::string text = "int helper(int x) { return x + 1; }\n"
                           "struct Widget { int w; };\n"
                           "void kernel(float *out) {\n"
                           "  using accum_t = float;\n"
                           "  int n = helper(4);\n"
                           "  int m = n * 2;\n"
                           "  Widget unrelated{7};\n"
                           "  accum_t *p = out + m;\n"
                           "  for (int i = 0; i < n; ++i) {\n"
                           "    auto body = [&](int k) {\n"
                           "      bool *b = p + k;\n"
                           "    };\n"
                           "  }\n"
                           "}\n"
                           "int after() { return 0; }\n";
  const auto candidates = Candidates("slice-to-error", text, PlainContext());
  ASSERT_GE(candidates.size(), 4u);
  EXPECT_EQ(candidates[0], "int helper(int x) { return x + 1; }\n\n"
                           "void kernel(float *out) {\n"
                           "using accum_t = float;\n"
                           "int n = helper(4);\n"
                           "int m = n * 2;\n"
                           "accum_t *p = out + m;\n"
                           "int k;\n"
                           "bool *b = p + k;\n"
                           "}\n");
  // The body alone, the other declarations kept.
  EXPECT_EQ(candidates[1], text.substr(0, text.find("void kernel")) +
                               candidates[0].substr(candidates[0].find("void kernel")) +
                               "int after() { return 0; }\n");
  // An operand to 0 takes what only it needed: `m`, then `n` and with it `helper`.
  EXPECT_TRUE(Contains(candidates, "\n\nvoid kernel(float *out) {\n"
                                   "using accum_t = float;\n"
                                   "accum_t *p = out + 0;\n"
                                   "int k;\n"
                                   "bool *b = p + k;\n"
                                   "}\n"));
  // A template nothing kept names goes whole, its `template <...>` line too.
  const auto templated = Candidates("slice-to-error",
                                    "template <typename T> T twice(T x) { return 2 * x; }\n"
                                    "void kernel(float *out) { bool *b = out; }\n",
                                    PlainContext());
  ASSERT_FALSE(templated.empty());
  EXPECT_EQ(templated[0], "\nvoid kernel(float *out) {\nbool *b = out;\n}\n");
  // Nothing to say about a text Clang finds no error in.
  EXPECT_TRUE(Candidates("slice-to-error", "int f() { return 1; }\n", PlainContext()).empty());
}

TEST(SourcePasses, ADeclarationStartingInAMacroIsCutWhereTheMacroIsWritten) {
  // Python's PyMODINIT_FUNC, as every Python-wrapper TU of Inductor's ends.
  const std::string text = "#define MODINIT extern \"C\" int\nint a;\nMODINIT init(void) { return "
                           "0; }\n";
  const auto candidates = Candidates("remove-declarations", text, PlainContext());
  EXPECT_TRUE(Contains(candidates, "#define MODINIT extern \"C\" int\nint a;\n\n")) << [&] {
    std::string all;
    for (const auto &candidate : candidates)
      all += candidate + "\n----\n";
    return all;
  }();
}

TEST(SourcePasses, SyntaxPassesParseATuWhoseHeadersAreMissing) {
  // Without a command the #include lines are blanked: the declarations are still found.
  const std::string text = "#include <no/such/header.h>\nint a;\nint b;\n";
  const auto candidates = Candidates("remove-declarations", text, PlainContext());
  EXPECT_TRUE(Contains(candidates, "#include <no/such/header.h>\n\nint b;\n"));
}

// A prefix left by an earlier run whose headers changed since (a fresh CI clone with a new
// venv next to a kept ~/.cache): the syntax passes must still see the TU's declarations.
TEST(SourcePasses, SyntaxPassesSeeTheTuWhenAnEarlierRunsPrefixIsStale) {
  const support::ScratchDir scratch("stale-prefix-passes");
  fs::create_directories(scratch / "include");
  const fs::path header = scratch / "include" / "library.h";
  std::ofstream(header) << "#pragma once\ninline int twice(int x) { return 2 * x; }\n";
  const std::string text =
      "#include <library.h>\nint a = twice(1);\nint b = twice(2);\nint c = twice(3);\n";
  const std::vector<std::string> args = {"-x", "c++", "-std=c++20",
                                         "-I" + (scratch / "include").string()};
  EXPECT_EQ(
      Candidates("remove-declarations", text, MakeSourcePassContext(args, scratch / "prefixes"))
          .size(),
      3u);
  fs::last_write_time(header, fs::last_write_time(header) + std::chrono::seconds(5));
  // A new context is a new run: it finds the old prefix on disk.
  const auto candidates =
      Candidates("remove-declarations", text, MakeSourcePassContext(args, scratch / "prefixes"));
  EXPECT_EQ(candidates.size(), 3u);
  EXPECT_TRUE(
      Contains(candidates, "#include <library.h>\n\nint b = twice(2);\nint c = twice(3);\n"));
}

TEST(SourcePasses, LinesAndTokensHalveDownToOne) {
  const std::string text = "a\nb\nc\nd\n";
  const auto lines = Candidates("remove-lines", text, PlainContext());
  EXPECT_TRUE(Contains(lines, "c\nd\n"));    // half
  EXPECT_TRUE(Contains(lines, "a\nb\nc\n")); // one line
  EXPECT_EQ(LexTokens("int x = y + 1; // no comment\n").size(), 7u);
  const auto tokens = Candidates("remove-tokens", "int x = y + 1;", PlainContext());
  EXPECT_TRUE(Contains(tokens, "int x =  + 1;"));
  EXPECT_TRUE(Contains(tokens, " = y + 1;")); // two tokens
  // A run that would leave a brace alone is not proposed; a pair may go.
  const auto braced = Candidates("remove-tokens", "void f() { g(); }", PlainContext());
  EXPECT_FALSE(Contains(braced, "void f()  g(); }"));
  EXPECT_FALSE(Contains(braced, "void f() { g(); "));
  EXPECT_TRUE(Contains(braced, "void f() { g; }"));
  EXPECT_TRUE(Contains(braced, "void f()  g(); "));
  EXPECT_FALSE(Contains(Candidates("remove-lines", "void f() {\n  g();\n}\n", PlainContext()),
                        "void f() {\n  g();\n"));
  for (const auto &candidate : braced)
    EXPECT_EQ(std::count(candidate.begin(), candidate.end(), '{'),
              std::count(candidate.begin(), candidate.end(), '}'))
        << candidate;
}

TEST(SourcePasses, RenameAndPragmas) {
  const auto renamed =
      Candidates("rename-identifiers", "int total = 0; int f() { return total; }", PlainContext());
  EXPECT_TRUE(Contains(renamed, "int a = 0; int f() { return a; }"));
  const auto pragmas = Candidates("drop-pragmas", "#pragma omp simd\nint a;\n", PlainContext());
  EXPECT_TRUE(Contains(pragmas, "int a;\n"));
}

TEST(SourcePasses, NeighbouringDeclarationsJoinOverTheirSharedLeadingTokens) {
  const auto joined =
      Candidates("join-declarations", "#include <a.h>\nvoid f() { const long x; const long x; }\n",
                 PlainContext());
  EXPECT_EQ(joined.front(), "#include <a.h>\nvoid f() { const long x, x; }\n"); // longest first
  EXPECT_TRUE(Contains(joined, "#include <a.h>\nvoid f() { const long x, long x; }\n"));
  EXPECT_EQ(joined.size(), 2u);
  // Statements in other blocks, or without a shared start, are not joined.
  EXPECT_TRUE(
      Candidates("join-declarations", "int x; { int y; } long z; int w;", PlainContext()).empty());
}

TEST(SourcePasses, InitializersBecomeZeroUpToTheirEndOutsideBrackets) {
  const auto zeroed = Candidates("zero-initializers",
                                 "auto a = at::vec::Vectorized<float>::loadu; auto b = f(a, 1), "
                                 "c = 0; int d[2] = {1, 2};",
                                 PlainContext());
  EXPECT_EQ(zeroed,
            (std::vector<std::string>{
                "auto a = 0; auto b = f(a, 1), c = 0; int d[2] = {1, 2};",
                "auto a = at::vec::Vectorized<float>::loadu; auto b = 0, c = 0; int d[2] = {1, 2};",
                "auto a = at::vec::Vectorized<float>::loadu; auto b = f(a, 1), c = 0; int d[2] = "
                "0;"}));
  // A name to 0 keeps the size but drops the name (the pass may keep the size); a literal to 0
  // of the same size would only turn around, and is not proposed.
  EXPECT_EQ(Candidates("zero-initializers", "int a = 1; int b = a;", PlainContext()),
            std::vector<std::string>{"int a = 1; int b = 0;"});
  EXPECT_TRUE(FindSourcePass("zero-initializers")->may_keep_size);
  EXPECT_FALSE(FindSourcePass("remove-tokens")->may_keep_size);
}

TEST(SourcePasses, OrderFileNamesKnownPassesOnly) {
  support::ScratchDir scratch("order");
  std::ofstream(scratch / "good.json") << R"({"source_passes": ["remove-lines", "remove-tokens"]})";
  std::ofstream(scratch / "bad.json") << R"({"source_passes": ["remove-everything"]})";
  EXPECT_EQ(LoadSourcePassOrder(scratch / "good.json").size(), 2u);
  EXPECT_THROW(LoadSourcePassOrder(scratch / "bad.json"), support::InputError);
  const auto checked_in = LoadSourcePassOrder(kSource / "reducers/source/passes.json");
  EXPECT_GE(checked_in.size(), 8u);
}

TEST(CompileLog, FindsTheCommandAndOutputOfARealCppCompileError) {
  // Captured from torch 2.15.0 (tests/fixtures/reduce/bool_score_mod.py), with CI timestamps.
  const std::string log = Read(kFixtures / "cpp_compile_error.log");
  const auto error = FindCompileError(log);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->command.front(), "g++");
  EXPECT_EQ(std::count_if(error->command.begin(), error->command.end(),
                          [](const std::string &word) { return parsers::IsCppSource(word); }),
            1);
  EXPECT_NE(error->output.find("error:"), std::string::npos);
  EXPECT_EQ(error->output.find("Traceback"), std::string::npos);
  EXPECT_FALSE(FindCompileError("Traceback (most recent call last):\nValueError: no\n"));
  EXPECT_EQ(SplitCommandLine("g++ 'a b.cpp' -DX=\"1 2\" c\\ d"),
            (std::vector<std::string>{"g++", "a b.cpp", "-DX=1 2", "c d"}));
}

// Every log format in tests/fixtures/ci_logs (real runs of one failure, see its README) gives
// what the plain `python script.py` log gives: the same command and the same compiler output, up
// to the temporary Inductor cache each run had.
TEST(CompileLog, ReadsEveryCiLogFormatLikeThePlainLog) {
  const fs::path logs = kSource / "tests" / "fixtures" / "ci_logs";
  const auto same_cache = [](std::string text) {
    return std::regex_replace(text, std::regex(R"(/tmp/fl/cache-[a-z_]+/)"), "/tmp/CACHE/");
  };
  const auto plain = FindCompileError(Read(logs / "python.log"));
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->errors_in_log, 1u);
  EXPECT_EQ(plain->command.front(), "g++");
  EXPECT_NE(
      std::find(plain->command.begin(), plain->command.end(), "TORCH_INDUCTOR_PRECOMPILE_HEADERS"),
      plain->command.end());
  EXPECT_TRUE(plain->output.starts_with("/tmp/fl/cache-plain/")) << plain->output.substr(0, 80);
  EXPECT_NE(plain->output.find(": error: cannot convert \xe2\x80\x98"
                               "accum_t*"),
            std::string::npos);
  EXPECT_EQ(plain->output.find("TORCHDYNAMO_VERBOSE"), std::string::npos);
  std::string plain_command;
  for (const auto &word : plain->command)
    plain_command += same_cache(word) + " ";
  std::size_t formats = 0;
  for (const auto &entry : fs::directory_iterator(logs)) {
    if (entry.path().extension() != ".log" || entry.path().filename() == "python.log")
      continue;
    SCOPED_TRACE(entry.path().filename().string());
    ++formats;
    const auto error = FindCompileError(Read(entry.path()));
    ASSERT_TRUE(error);
    std::string command;
    for (const auto &word : error->command)
      command += same_cache(word) + " ";
    EXPECT_EQ(command, plain_command);
    EXPECT_EQ(same_cache(error->output), same_cache(plain->output));
    EXPECT_EQ(error->errors_in_log, 1u);
    EXPECT_GT(error->line, 1u);
  }
  EXPECT_GE(formats, 7u);
}

TEST(CompileLog, TheLastOfSeveralErrorsWinsAndTheyAreCounted) {
  const fs::path logs = kSource / "tests" / "fixtures" / "ci_logs";
  // A CI job that ran two failing steps: unittest's, then pytest's.
  const std::string first = Read(logs / "unittest.log"), second = Read(logs / "pytest_q.log");
  const auto error = FindCompileError(first + second);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->errors_in_log, 2u);
  EXPECT_NE(error->command.at(1).find("cache-pytest_q"), std::string::npos);
  EXPECT_GT(error->line, static_cast<std::size_t>(std::count(first.begin(), first.end(), '\n')));
  // The same error printed twice (a chained exception) is one error.
  EXPECT_EQ(FindCompileError(first + first)->errors_in_log, 1u);
  EXPECT_FALSE(FindCompileError("E   AssertionError: C++ compile error\nE   assert 1 == 2\n"));
}

// The compile test's precompiled prefix: on for a TU that starts with #include lines (with the
// command's own -include folded in, as Inductor's PCH build has one), precompiled again once the
// reduced text drops an #include, and off, said why, when the command's -include is gone.
TEST(CompileProbe, ThePrefixFollowsTheIncludeBlockAndSaysWhenItIsOff) {
  support::ScratchDir scratch("probe");
  std::ofstream(scratch / "wrapper.h") << "#include <string>\n";
  const std::string tu = "#include <vector>\n#include <map>\nint f() { return undeclared(); }\n";
  std::ofstream(scratch / "k.cpp") << tu;
  const std::vector<std::string> argv = {"g++-12",
                                         "-std=c++20",
                                         "-include",
                                         (scratch / "wrapper.h").string(),
                                         (scratch / "k.cpp").string(),
                                         "-c",
                                         "-o",
                                         (scratch / "k.o").string()};
  CompileProbe probe(argv, 4, scratch / "test", std::chrono::seconds(120));
  const auto first = probe.Run(tu, 0);
  EXPECT_NE(first.first_error.find("undeclared"), std::string::npos);
  EXPECT_NE(probe.PrefixNote().find("with a precompiled prefix of the TU's 2 leading #include "
                                    "line(s) and the command's own -include"),
            std::string::npos)
      << probe.PrefixNote();
  // The reducer took a text without <map>: its candidates come back with that block.
  for (const std::string body :
       {"int f() { return undeclared(); }\n", "int f() { return undeclared() + 1; }\n",
        "int g() { return undeclared(); }\n"})
    EXPECT_EQ(probe.Run("#include <vector>\n" + body, 1).first_error, first.first_error);
  EXPECT_TRUE(fs::exists(scratch / "test" / "prefix-1" / "prefix.h.gch"));
  EXPECT_EQ(Read(scratch / "test" / "prefix-1" / "prefix.h"),
            "#include <string>\n\n#include <vector>\n");

  auto gone = argv;
  gone[3] = (scratch / "gone.h").string();
  CompileProbe without(gone, 4, scratch / "test-gone", std::chrono::seconds(120));
  without.Run(tu, 0);
  EXPECT_NE(without.PrefixNote().find("WITHOUT a precompiled prefix"), std::string::npos);
  EXPECT_NE(without.PrefixNote().find("gone.h is gone"), std::string::npos) << without.PrefixNote();
}

struct ReduceFixture {
  fs::path file;
  std::string test;               // "analysis", or "compiler <command>"
  std::vector<std::string> flags; // from // FLAGS:, ${TORCH} resolved
  std::size_t max_tokens = 0;
  std::vector<std::string> keeps;
};

std::vector<ReduceFixture> DiscoverReduceFixtures() {
  std::vector<ReduceFixture> fixtures;
  for (const auto &entry : fs::directory_iterator(kFixtures)) {
    if (entry.path().extension() != ".cpp")
      continue;
    ReduceFixture fixture{.file = entry.path()};
    std::istringstream lines(Read(entry.path()));
    std::smatch match;
    static const std::regex annotation(R"(^//\s*([A-Z-]+):\s*(.*)$)");
    for (std::string line; std::getline(lines, line);) {
      if (!std::regex_match(line, match, annotation))
        continue;
      const std::string key = match[1], value = match[2];
      if (key == "TEST")
        fixture.test = value;
      else if (key == "EXPECT-MAX-TOKENS")
        fixture.max_tokens = std::stoul(value);
      else if (key == "EXPECT-KEEPS")
        fixture.keeps.push_back(value);
      else if (key == "FLAGS") {
        std::vector<std::string> argv = {"c++"};
        std::istringstream words(
            std::regex_replace(value, std::regex(R"(\$\{TORCH\})"), kTorchInclude.string()));
        for (std::string word; words >> word;)
          argv.push_back(word);
        fixture.flags = parsers::TranslateForClang(argv).clang_args;
      }
    }
    fixtures.push_back(fixture);
  }
  std::sort(fixtures.begin(), fixtures.end(),
            [](const auto &a, const auto &b) { return a.file < b.file; });
  return fixtures;
}

TEST(SourceReduceFixtures, EachReducesAndKeepsItsSignature) {
  const auto fixtures = DiscoverReduceFixtures();
  ASSERT_GE(fixtures.size(), 2u);
  for (const auto &fixture : fixtures) {
    SCOPED_TRACE(fixture.file.filename().string());
    support::ScratchDir scratch("reduce-fixture");
    std::unique_ptr<InterestingnessTest> test;
    std::vector<std::string> clang_args = fixture.flags;
    if (fixture.test == "analysis") {
      test = MakeStaticFindingTest(fixture.flags, "", scratch / "test", scratch / "prefixes");
    } else {
      ASSERT_TRUE(fixture.test.starts_with("compiler ")) << fixture.test;
      std::vector<std::string> argv;
      std::istringstream words(fixture.test.substr(9));
      for (std::string word; words >> word;)
        argv.push_back(word == fixture.file.filename().string() ? fixture.file.string() : word);
      clang_args = parsers::TranslateForClang(argv).clang_args;
      test = MakeCompilerDiagnosticTest(argv, SourceArgument(argv), scratch / "test",
                                        std::chrono::seconds(120));
    }
    const std::string original = Read(fixture.file);
    const auto context = MakeSourcePassContext(clang_args, scratch / "prefixes");
    const SourceReduceOptions options{
        .jobs = 2, .passes = LoadSourcePassOrder(kSource / "reducers/source/passes.json")};
    const std::atomic<bool> stop{false};
    const auto reduction = ReduceSource(original, *test, options, context, stop, {});
    EXPECT_FALSE(reduction.signature.empty());
    EXPECT_EQ(test->Observe(reduction.reduced, 0), reduction.signature) << reduction.reduced;
    EXPECT_LE(CountTokens(reduction.reduced), fixture.max_tokens) << reduction.reduced;
    EXPECT_LT(reduction.reduced.size(), original.size() / 4);
    for (const auto &kept : fixture.keeps)
      EXPECT_NE(reduction.reduced.find(kept), std::string::npos) << reduction.reduced;
    EXPECT_GT(reduction.steps, 0u);
    EXPECT_GE(reduction.tried, reduction.steps);
  }
}

TEST(SourceReduce, UntouchedSourceThatDoesNotFailIsAnInputError) {
  support::ScratchDir scratch("reduce-clean");
  auto test = MakeStaticFindingTest({"-x", "c++", "-std=c++17"}, "", scratch / "test",
                                    scratch / "prefixes");
  const std::atomic<bool> stop{false};
  EXPECT_THROW(ReduceSource("int main() { return 0; }\n", *test,
                            {.jobs = 1, .passes = {FindSourcePass("remove-lines")}}, PlainContext(),
                            stop, {}),
               support::InputError);
}

} // namespace
} // namespace reducers
