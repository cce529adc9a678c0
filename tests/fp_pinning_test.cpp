// The floating-point pins of `compare` (fuzzer/matrix/fp_pinning.h): the source transform, the
// table, and that every pin's flags are accepted by the real compilers of the matrix and land
// after Inductor's own flags, so that they win. No torch; a second or two of compiling.
#include "fuzzer/matrix/compiler_flags.h"
#include "fuzzer/matrix/compilers.h"
#include "fuzzer/matrix/fp_pinning.h"
#include "support/child_process.h"
#include "support/text_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace fuzzer::matrix {
namespace {

TEST(FpPinning, DropOmpSimdEmptiesOnlyTheSimdDirectivesAndKeepsLineNumbers) {
  const std::string source = "#pragma omp parallel for\n"
                             "for (int i = 0; i < n; ++i) {\n"
                             "  #pragma omp simd simdlen(8) reduction(+:sum)\n"
                             "  for (int j = 0; j < m; ++j) sum += a[j];\n"
                             "#  pragma   omp simd\n"
                             "}\n"
                             "// #pragma omp simd in a comment stays\n"
                             "#pragma omp simdlen_is_not_simd\n";
  const std::string dropped = DropOmpSimd(source);
  EXPECT_EQ(dropped, "#pragma omp parallel for\n"
                     "for (int i = 0; i < n; ++i) {\n"
                     "\n"
                     "  for (int j = 0; j < m; ++j) sum += a[j];\n"
                     "\n"
                     "}\n"
                     "// #pragma omp simd in a comment stays\n"
                     "#pragma omp simdlen_is_not_simd\n");
  EXPECT_EQ(DropOmpSimd("int x;"), "int x;") << "no newline added at the end";
}

TEST(FpPinning, TheTableTriesSinglePinsThenAllTogetherThenNoOptimisation) {
  const auto &pins = FpPins();
  ASSERT_GE(pins.size(), 4u);
  const FpPin &all = pins[pins.size() - 2];
  EXPECT_EQ(all.name, "all pins together");
  EXPECT_TRUE(all.drop_omp_simd);
  EXPECT_EQ(pins.back().name, "-O0");
  EXPECT_EQ(pins.back().gcc_flags, std::vector<std::string>{"-O0"});
  for (std::size_t i = 0; i + 2 < pins.size(); ++i) {
    const FpPin &pin = pins[i];
    EXPECT_FALSE(pin.why.empty()) << pin.name;
    EXPECT_TRUE(pin.drop_omp_simd || (!pin.gcc_flags.empty() && !pin.clang_flags.empty()))
        << pin.name << ": a pin changes both builds the same way";
    for (const auto &flag : pin.gcc_flags)
      EXPECT_NE(std::find(all.gcc_flags.begin(), all.gcc_flags.end(), flag), all.gcc_flags.end());
    for (const auto &flag : pin.clang_flags)
      EXPECT_NE(std::find(all.clang_flags.begin(), all.clang_flags.end(), flag),
                all.clang_flags.end());
  }
}

// A pin the compiler rejected would fail every rebuild: each compiler of the comparison builds a
// TU with Inductor's fast-math flags and every pin's flags after them.
TEST(FpPinning, EveryCompilerAcceptsEveryPinAfterInductorsFlags) {
  const auto folder = std::filesystem::temp_directory_path() /
                      ("inductor-fuzz-fp-pinning-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const auto source = folder / "k.cpp";
  support::WriteFileAtomically(source, "extern \"C\" float k(const float *a, int n) {\n"
                                       "  float s = 0;\n"
                                       "#pragma omp simd reduction(+ : s)\n"
                                       "  for (int i = 0; i < n; ++i) s += a[i] * a[i] + 1.0f;\n"
                                       "  return s;\n}\n");
  const std::vector<std::string> captured = {
      "g++",   source.string(), "-O3", "-ffast-math", "-ffp-contract=fast", "-fopenmp", "-shared",
      "-fPIC", "-Werror",       "-o",  "k.so"};
  const OpenMpInstall openmp = FindOpenMp();
  const FpPin &all = FpPins()[FpPins().size() - 2];
  for (const std::string name : {"g++-12", "clang++-19"}) {
    Compiler compiler = DescribeCompiler(name);
    compiler.extra_flags =
        compiler.family == CompilerFamily::kClang ? all.clang_flags : all.gcc_flags;
    const auto output = folder / (name + ".so");
    const auto argv = CommandForCompiler(captured, compiler, source, output, openmp);
    // Last wins: the pin comes after Inductor's -ffp-contract=fast.
    const auto fast = std::find(argv.begin(), argv.end(), "-ffp-contract=fast");
    const auto off = std::find(argv.begin(), argv.end(), "-ffp-contract=off");
    ASSERT_NE(off, argv.end()) << name;
    EXPECT_GT(off - argv.begin(), fast - argv.begin()) << name;
    const auto result = support::RunCommand(argv, {}, std::chrono::seconds(120));
    EXPECT_TRUE(result.status.Succeeded()) << name << ": " << result.output;
    EXPECT_TRUE(std::filesystem::exists(output)) << name;
  }
  std::filesystem::remove_all(folder);
}

TEST(FpPinning, TheReportLineNamesThePinOrSaysNoneHelped) {
  using nlohmann::json;
  EXPECT_EQ(DescribePinning(json()), "");
  EXPECT_EQ(DescribePinning({{"unpinned", {{"identical", false}, {"max_abs_difference", 5.2e-5}}},
                             {"pins", json::array({{{"pin", "-ffp-contract=off"}}})},
                             {"explained_by", "-ffp-contract=off"}}),
            "-ffp-contract=off makes them agree bit for bit (they differ by up to 5.2e-05 "
            "unpinned)");
  EXPECT_EQ(DescribePinning({{"unpinned", {{"identical", false}, {"max_abs_difference", 0.5}}},
                             {"pins", json::array({{{"pin", "a"}, {"skipped", "x"}},
                                                   {{"pin", "b"}, {"identical", false}}})},
                             {"explained_by", nullptr}}),
            "no floating-point pin makes them agree (1 tried; they differ by up to 0.5 unpinned)");
}

} // namespace
} // namespace fuzzer::matrix
