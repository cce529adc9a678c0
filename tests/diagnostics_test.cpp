// Real compiler output on the broken fixtures, parsed into diagnostics and signatures.
#include "parsers/diagnostics.h"
#include "parsers/gcc_checks.h"
#include "support/child_process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <future>

namespace parsers {
namespace {

using namespace std::chrono_literals;

const std::filesystem::path kBroken =
    std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) / "tests/fixtures/analysis/broken";

const std::vector<std::string> kFixtures = {"pytorch140606_bool_scalar.cpp",
                                            "local_different_types.cpp", "return_type_only.cpp",
                                            "global_redefinition.cpp", "extern_c_overload.cpp"};

support::CommandResult Compile(const std::string &compiler, const std::string &fixture,
                               std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {compiler};
  if (FamilyOfCompiler(compiler) == CompilerFamily::kNvcc)
    argv.insert(argv.end(), {"-std=c++20", "-x", "cu", "-c", "-o", "/dev/null"});
  else
    argv.insert(argv.end(), {"-std=c++20", "-fsyntax-only"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back((kBroken / fixture).string());
  return support::RunCommand(argv, {}, 120s);
}

std::vector<std::string> InstalledCompilers() {
  std::vector<std::string> found;
  for (const char *compiler :
       {"g++-11", "g++-12", "clang++-14", "clang++-15", "clang++-16", "clang++-19", "nvcc"})
    if (support::FindOnPath(compiler))
      found.push_back(compiler);
  return found;
}

TEST(Diagnostics, RealCompilerOutputGivesStableSignatures) {
  const auto compilers = InstalledCompilers();
  ASSERT_GE(compilers.size(), 2u);
  for (const auto &compiler : compilers) {
    for (const auto &fixture : kFixtures) {
      SCOPED_TRACE(compiler + " " + fixture);
      const auto family = FamilyOfCompiler(compiler);
      const auto first = Compile(compiler, fixture);
      const auto second = Compile(compiler, fixture);
      ASSERT_FALSE(first.status.Succeeded()) << first.output;
      const auto parsed = ParseCompilerText(first.output, family);
      ASSERT_FALSE(parsed.empty()) << first.output;
      const auto signature = corpus::Signature(CompileErrorFinding(family, parsed));
      EXPECT_EQ(signature, corpus::Signature(CompileErrorFinding(
                               family, ParseCompilerText(second.output, family))));
      EXPECT_EQ(signature.find('/'), std::string::npos) << signature;
      EXPECT_EQ(signature.find_first_of("0123456789"), std::string::npos) << signature;
      EXPECT_NE(signature.find("compile-error|family=" + FamilyName(family)), std::string::npos);
      if (family != CompilerFamily::kNvcc) {
        EXPECT_EQ(parsed.front().location.file, (kBroken / fixture).string());
        EXPECT_GT(parsed.front().location.line, 0u);
      }
    }
  }
}

TEST(Diagnostics, GccJsonAndTextAgree) {
  for (const char *compiler : {"g++-11", "g++-12"}) {
    ASSERT_TRUE(support::FindOnPath(compiler))
        << compiler << " is missing; scripts/setup installs it";
    for (const auto &fixture : kFixtures) {
      SCOPED_TRACE(std::string(compiler) + " " + fixture);
      const auto json =
          ParseGccJson(Compile(compiler, fixture, {"-fdiagnostics-format=json"}).output);
      const auto text = ParseCompilerText(Compile(compiler, fixture).output, CompilerFamily::kGcc);
      ASSERT_FALSE(json.empty());
      ASSERT_FALSE(text.empty());
      EXPECT_EQ(json.front().severity, "error");
      EXPECT_EQ(json.front().location.line, text.front().location.line);
      EXPECT_EQ(corpus::Signature(CompileErrorFinding(CompilerFamily::kGcc, json)),
                corpus::Signature(CompileErrorFinding(CompilerFamily::kGcc, text)));
    }
  }
}

TEST(Diagnostics, TemplatesKeepNameShapesAndDropWhatVaries) {
  EXPECT_EQ(corpus::MessageTemplate("redefinition of \u2018float tmp_acc0_arr [8]\u2019"),
            "redefinition of 'float tmp_acc<N>_arr [<N>]'");
  EXPECT_EQ(corpus::MessageTemplate("redefinition of 'tmp_acc3_arr'"),
            corpus::MessageTemplate("redefinition of 'tmp_acc0_arr'"));
  EXPECT_EQ(corpus::MessageTemplate("(zf37, FakeTensor(..., size=(129,), dtype=torch.int64)) can "
                                    "only be of int, got s0 + u12"),
            "(zf<N>, FakeTensor(...)) can only be of int, got s<N> + u<N>");
  EXPECT_EQ(corpus::MessageTemplate("/tmp/torchinductor_root/ab/cab12345.cpp: No such file"),
            "<path>: No such file");
  EXPECT_EQ(
      corpus::MessageTemplate("kernel cq5cdmilhi46ujuypwphc2hz2jgbp6un6cpsxp62qofuaxteshwr failed"),
      "kernel <hash> failed");
  const auto parsed = ParseCompilerText("k.cu(12): error: identifier \"tmp0\" is undefined\n"
                                        "1 error detected in the compilation of \"k.cu\".\n",
                                        CompilerFamily::kNvcc);
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0].location.line, 12u);
  EXPECT_EQ(parsed[0].severity, "error");
}

// nvcc's own words for declaration conflicts (its front end's, no IDs), on the broken fixtures
// compiled as CUDA by the real nvcc, classified with the check names Clang's IDs feed.
TEST(NvccChecks, RealNvccConflictsGetTheChecksClangsWouldFeed) {
  if (!support::FindOnPath("nvcc"))
    GTEST_SKIP() << "no CUDA toolkit installed (nvcc is not on PATH)";
  struct Case {
    std::string fixture, check, name;
    unsigned previous_line = 0; // where nvcc says `at line N`
  };
  const std::vector<Case> cases = {
      {"broken/auto_tmp_redeclared.cpp", "redefinition", "tmp1"},
      {"broken/function_redefinition.cpp", "redefinition", "kernel", 2},
      {"broken/typedef_different.cpp", "conflicting-types", "index_t", 2},
      {"broken/extern_different_type.cpp", "conflicting-types", "J", 3},
      {"broken/return_type_only.cpp", "return-type-only", ""},
      {"broken/language_linkage.cpp", "conflicting-linkage", "kernel", 2},
      {"broken/constexpr_mismatch.cpp", "conflicting-specifier", "block_size", 3},
      {"broken/member_function_twice.cpp", "duplicate-member", "reset", 5},
      {"broken/conversion_twice.cpp", "duplicate-member", "operator float", 5},
      {"broken/kernel_parameter_twice.cpp", "parameter-redeclared", ""},
      {"broken/template_parameter_shadowed.cpp", "template-parameter-shadowed", "T"},
      {"broken/kernel_local_redeclared.cu", "redefinition", "i"},
      {"broken/host_device_redefines_device.cu", "redefinition", "scale", 6},
  };
  // One nvcc per fixture, all at once: each takes a fraction of a second.
  std::vector<std::future<support::CommandResult>> runs;
  for (const auto &c : cases)
    runs.push_back(std::async(std::launch::async, [&c] {
      return support::RunCommand({"nvcc", "-std=c++20", "-x", "cu", "-c", "-o", "/dev/null",
                                  (kBroken.parent_path() / c.fixture).string()},
                                 {}, 120s);
    }));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto &c = cases[i];
    SCOPED_TRACE(c.fixture);
    const auto run = runs[i].get();
    const auto conflicts =
        ClassifyNvccDiagnostics(ParseCompilerText(run.output, CompilerFamily::kNvcc), "nvcc", {});
    ASSERT_FALSE(conflicts.empty()) << run.output;
    EXPECT_EQ(conflicts[0].check, c.check) << conflicts[0].message;
    EXPECT_EQ(conflicts[0].name, c.name) << conflicts[0].message;
    EXPECT_EQ(conflicts[0].reported_by, "nvcc");
    EXPECT_EQ(conflicts[0].location.file, (kBroken.parent_path() / c.fixture).string());
    EXPECT_GT(conflicts[0].location.line, 0u);
    EXPECT_EQ(conflicts[0].previous.line, c.previous_line) << conflicts[0].message;
  }
}

// Inside a kernel, a name nvcc says is declared twice is a local variable (pytorch#151290's
// shape); a label or a class defined twice there is not.
TEST(NvccChecks, ALocalDeclaredTwiceInAKernelIsVariableRedeclared) {
  const auto conflicts = ClassifyNvccDiagnostics(
      ParseCompilerText("k.cu(4): error: \"i\" has already been declared in the current scope\n"
                        "k.cu(6): error: label \"done\" has already been defined (previous "
                        "definition at line 5)\n"
                        "k.cu(9): error: function \"kernel\" has already been defined (previous "
                        "definition at line 2)\n",
                        CompilerFamily::kNvcc),
      "nvcc", {{"kernel", 2, 7}, {"kernel", 9, 12}});
  ASSERT_EQ(conflicts.size(), 3u);
  EXPECT_EQ(conflicts[0].check, "variable-redeclared");
  EXPECT_EQ(conflicts[0].kernel, "kernel");
  EXPECT_EQ(conflicts[0].scope, "function");
  EXPECT_EQ(conflicts[1].check, "redefinition");
  EXPECT_EQ(conflicts[1].previous, (SourcePosition{"k.cu", 5, 0}));
  // The function defined again is what the finding is about, not the kernel it is in.
  EXPECT_EQ(conflicts[2].check, "redefinition");
  EXPECT_EQ(conflicts[2].kernel, "");
  EXPECT_EQ(conflicts[2].scope, "namespace");
}

} // namespace
} // namespace parsers
