// Warnings compared by what they are (option and function shape, never message text), the
// checked-in known-warnings file, the verdict `compare` gives, and the kernel probes' rewrite of
// a real cpp_wrapper TU. Real compilers on real Inductor output: matrix_test.
#include "fuzzer/matrix/kernel_probes.h"
#include "fuzzer/matrix/records.h"
#include "fuzzer/matrix/warnings.h"
#include "support/errors.h"
#include "support/text_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace fuzzer::matrix {
namespace {

namespace fs = std::filesystem;

const fs::path kWrapperTu =
    fs::path(INDUCTOR_FUZZ_SOURCE_DIR) / "tests/fixtures/analysis/clean/inductor_s1-7_0.cpp";

std::string Read(const fs::path &path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

std::vector<std::string> Lines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

int LineOf(const std::vector<std::string> &lines, const std::string &needle) {
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(needle) != std::string::npos)
      return static_cast<int>(i + 1);
  return 0;
}

TEST(Warnings, GeneratedNamesLoseTheirNumbersAndNothingElse) {
  EXPECT_EQ(NameShape("cpp_fused_sum_3"), "cpp_fused_sum_N");
  EXPECT_EQ(NameShape("tmp12 = buf3 + x0"), "tmpN = bufN + xN");
  EXPECT_EQ(NameShape("parse_arg<int64_t>"), "parse_arg<int64_t>");
  EXPECT_EQ(NameShape("kernel<1l, 16l>"), "kernel<1l, 16l>");
}

TEST(Warnings, AWarningIsPlacedInTheFunctionOfARealWrapperTu) {
  const auto lines = Lines(Read(kWrapperTu));
  const int specialisation = LineOf(lines, "template <> inline int64_t parse_arg<int64_t>");
  ASSERT_GT(specialisation, 0);
  EXPECT_EQ(EnclosingFunctionShape(lines, specialisation), "parse_arg<int64_t>");
  EXPECT_EQ(EnclosingFunctionShape(lines, specialisation + 2), "parse_arg<int64_t>");
  const int wrapper_call = LineOf(lines, "    cpp_fused__to_copy_3(");
  EXPECT_EQ(EnclosingFunctionShape(lines, wrapper_call), "inductor_entry_impl");
  // The definition of the last kernel, further down, holds its own body.
  int definition = 0;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].starts_with("extern \"C\"  void  cpp_fused__to_copy_3("))
      definition = static_cast<int>(i + 1);
  ASSERT_GT(definition, wrapper_call);
  EXPECT_EQ(EnclosingFunctionShape(lines, definition + 5), "cpp_fused__to_copy_N");
  EXPECT_EQ(EnclosingFunctionShape(lines, 1), "");
}

TEST(Warnings, IdentitiesRoundTripThroughTheirKey) {
  const WarningIdentity identity{"-Wunused-function", "parse_arg<float>"};
  EXPECT_EQ(identity.Key(), "-Wunused-function in parse_arg<float>");
  EXPECT_EQ(WarningIdentity::FromKey(identity.Key()), identity);
  EXPECT_EQ(WarningIdentity::FromKey("-Wpedantic"), (WarningIdentity{"-Wpedantic", ""}));
}

TEST(Warnings, TheCheckedInKnownWarningsMatchTheBindingsAndNotAKernel) {
  const KnownWarnings known = KnownWarnings::CheckedIn();
  ASSERT_FALSE(known.Entries().empty());
  for (const auto &entry : known.Entries())
    EXPECT_GE(entry.reason.size(), 20u) << entry.option << ": say why";
  EXPECT_NE(known.Match("clang++-16", "-Wunused-function in parse_arg<int64_t>"), nullptr);
  EXPECT_NE(known.Match("/usr/bin/clang++-19", "-Wunused-function in parse_arg<float>"), nullptr);
  // Narrow: not another option, not another function, not another compiler family.
  EXPECT_EQ(known.Match("clang++-16", "-Wunused-variable in parse_arg<int64_t>"), nullptr);
  EXPECT_EQ(known.Match("clang++-16", "-Wunused-function in cpp_fused_sum_N"), nullptr);
  EXPECT_EQ(known.Match("g++-12", "-Wunused-function in parse_arg<int64_t>"), nullptr);
  // The binary carries the file as it is in the tree.
  EXPECT_EQ(Read(fs::path(INDUCTOR_FUZZ_SOURCE_DIR) / "fuzzer/matrix/known_warnings.txt"),
            CheckedInKnownWarnings());
}

TEST(Warnings, AnEntryWithoutAReasonOrWithAnUnknownCompilerIsRefusedWithItsLine) {
  try {
    KnownWarnings::Parse("# fine\n\nclang -Wfoo bar*\n", "test.txt");
    FAIL() << "accepted an entry without a reason";
  } catch (const support::InputError &error) {
    EXPECT_NE(std::string(error.what()).find("test.txt line 3"), std::string::npos) << error.what();
  }
  EXPECT_THROW(KnownWarnings::Parse("icc -Wfoo * -- because\n", "t"), support::InputError);
  EXPECT_THROW(KnownWarnings::Parse("gcc -Wfoo -- no function\n", "t"), support::InputError);
  EXPECT_EQ(KnownWarnings::Parse("* -Wfoo * -- any compiler, anywhere\n", "t").Entries().size(),
            1u);
}

TEST(Warnings, GlobsMatchAnyRunAndOnlyThat) {
  EXPECT_TRUE(support::GlobMatches("parse_arg<*>", "parse_arg<std::vector<AtenTensorHandle>>"));
  EXPECT_TRUE(support::GlobMatches("*", ""));
  EXPECT_TRUE(support::GlobMatches("cpp_fused_*_N", "cpp_fused_sum_N"));
  EXPECT_FALSE(support::GlobMatches("cpp_fused_*_N", "cpp_fused_sum_Nx"));
  EXPECT_FALSE(support::GlobMatches("parse_arg<*>", "parse_args"));
}

TuMatrix TwoBuilds(std::vector<std::string> baseline, std::vector<std::string> candidate) {
  TuMatrix row{.tu = {.label = "case/kernel.cpp"}, .builds = {}, .reference_runtime = ""};
  row.builds.push_back({.compiler = "g++-12", .built = true, .warnings = std::move(baseline)});
  row.builds.push_back({.compiler = "clang++-16", .built = true, .warnings = std::move(candidate)});
  return row;
}

TEST(Warnings, OnlyACandidateWarningTheBaselineLacksAndNoEntryExplainsIsNew) {
  const KnownWarnings known = KnownWarnings::CheckedIn();
  const std::string bindings = "-Wunused-function in parse_arg<float>";
  const std::string shared = "-Wsign-compare in cpp_fused_sum_N";
  const std::string fresh = "-Wshadow in cpp_fused_sum_N";

  auto row = CompareBuilds(TwoBuilds({shared}, {shared, bindings}), known);
  EXPECT_EQ(row.verdict, corpus::CompareVerdict::kSame);
  EXPECT_EQ(row.candidate.known_warnings, std::vector<std::string>{bindings});
  EXPECT_TRUE(row.candidate.new_warnings.empty());

  row = CompareBuilds(TwoBuilds({shared}, {shared, bindings, fresh}), known);
  EXPECT_EQ(row.verdict, corpus::CompareVerdict::kNewWarnings);
  EXPECT_EQ(row.candidate.new_warnings, std::vector<std::string>{fresh});

  // With no known-warnings file, the bindings' warning is new again.
  row = CompareBuilds(TwoBuilds({shared}, {shared, bindings}), KnownWarnings::Parse("", "none"));
  EXPECT_EQ(row.verdict, corpus::CompareVerdict::kNewWarnings);
}

TEST(KernelProbes, EveryKernelCallOfARealWrapperRecordsTheBuffersItWrites) {
  const std::string source = Read(kWrapperTu);
  const auto probed = ProbeKernelCalls(source);
  ASSERT_TRUE(probed.has_value());
  ASSERT_EQ(probed->sites.size(), 4u);
  const ProbeSite &first = probed->sites[0];
  EXPECT_TRUE(first.kernel.starts_with("cpp_fused__to_copy_arange_bitwise_and"));
  EXPECT_EQ(first.outputs,
            (std::vector<std::pair<int, std::string>>{{0, "buf0"}, {1, "buf1"}, {2, "buf5"}}));
  // A const pointer is read, not written: argument 1 of the second call is not probed.
  const ProbeSite &second = probed->sites[1];
  EXPECT_EQ(second.outputs.front(), (std::pair<int, std::string>{0, "buf9"}));
  for (const auto &[position, buffer] : second.outputs)
    EXPECT_NE(position, 1);
  EXPECT_EQ(probed->sites[3].outputs, (std::vector<std::pair<int, std::string>>{{1, "buf23"}}));

  // The probe is defined once, before the wrapper function, and called after each call.
  const auto lines = Lines(probed->text);
  const int definition = LineOf(lines, "static void inductor_fuzz_probe(");
  const int wrapper = LineOf(lines, "void inductor_entry_impl(");
  EXPECT_GT(definition, 0);
  EXPECT_LT(definition, wrapper);
  const int call = LineOf(lines, "    cpp_fused__to_copy_3(");
  EXPECT_EQ(lines.at(call), "    inductor_fuzz_probe(3, \"cpp_fused__to_copy_3\", 1, \"buf23\", "
                            "buf23.get());");
  // Nothing else changed: removing the probe lines gives the original back.
  std::string restored;
  bool in_function = false;
  for (const auto &line : lines) {
    if (line.starts_with("// inductor-fuzz kernel probe"))
      in_function = true;
    if (!in_function && line.find("inductor_fuzz_probe(") == std::string::npos)
      restored += line + "\n";
    if (in_function && line == "}")
      in_function = false;
  }
  EXPECT_EQ(restored, source);
}

TEST(KernelProbes, ATuWithoutAWrapperIsNotProbed) {
  EXPECT_FALSE(ProbeKernelCalls("extern \"C\" void kernel(float* out_ptr0) {\n"
                                "    out_ptr0[0] = 1;\n}\n")
                   .has_value());
  EXPECT_FALSE(ProbeKernelCalls("int main() { return 0; }\n").has_value());
}

} // namespace
} // namespace fuzzer::matrix
