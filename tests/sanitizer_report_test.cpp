// parsers/sanitizer_report: AddressSanitizer and UBSan reports as printed by real runs (the
// fixtures in tests/fixtures/sanitizer/), and the memory-error finding built from one.
#include "parsers/sanitizer_report.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace parsers {
namespace {

const std::filesystem::path kFixtures =
    std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) / "tests/fixtures/sanitizer";

std::string FileNameOf(const std::string &path) { return path.substr(path.rfind('/') + 1); }

const SanitizerFrame &FirstTuFrame(const SanitizerReport &report) {
  for (const auto &frame : report.frames)
    if (frame.file.ends_with(".main.cpp"))
      return frame;
  throw std::runtime_error("no frame in a generated TU");
}

std::string Read(const std::filesystem::path &path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

// torch 2.15.0's flex_attention TU, cpp.threads=1 on a 2-thread machine, built with
// -fsanitize=address: the second OpenMP thread writes past the one-thread scratch buffer.
TEST(SanitizerReport, AsanHeapOverflowInAFlexAttentionTu) {
  const auto reports =
      ParseSanitizerReports(Read(kFixtures / "flex_threads1_heap_overflow.asan.txt"));
  ASSERT_EQ(reports.size(), 1u);
  const auto &report = reports[0];
  EXPECT_EQ(report.tool, "AddressSanitizer");
  EXPECT_EQ(report.error, "heap-buffer-overflow");
  EXPECT_EQ(report.access, "WRITE");
  EXPECT_EQ(report.access_size, 64u) << "one 16-float AVX-512 store";
  ASSERT_GE(report.frames.size(), 6u);
  EXPECT_EQ(report.frames[0].function, "_mm512_storeu_ps(void*, float __vector(16))");
  const std::string tu = "cyqvw7j4d5ipcdgqb4z4bt3d2dhqxfhjsoagnjih6p3o5tsbv3pd.main.cpp";
  const SanitizerFrame *in_tu = FirstFrameIn(report, tu);
  ASSERT_NE(in_tu, nullptr);
  EXPECT_EQ(in_tu->line, 620);
  EXPECT_EQ(in_tu->function, "void kernel_fill_stub<float>(float*, float, long)");
  EXPECT_EQ(FirstFrameIn(report, "other.cpp"), nullptr);
  EXPECT_NE(report.message.find("wild pointer"), std::string::npos) << report.message;
  EXPECT_FALSE(report.bytes_past_region) << "a wild pointer: no region named";
}

// clang++-19's runtime on the planted write past a 10000-byte bool output: its frames carry a
// column (file:line:col) and its module frames a BuildId.
TEST(SanitizerReport, ClangsFramesWithAColumnNameTheFileAndTheLine) {
  const auto reports = ParseSanitizerReports(Read(kFixtures / "clang_heap_overflow.asan.txt"));
  ASSERT_EQ(reports.size(), 1u);
  const auto &report = reports[0];
  EXPECT_EQ(report.error, "heap-buffer-overflow");
  EXPECT_EQ(report.access_size, 1u);
  ASSERT_TRUE(report.address.has_value());
  EXPECT_EQ(report.bytes_past_region, 0);
  EXPECT_EQ(report.region_size, 10000u);
  ASSERT_GE(report.frames.size(), 3u);
  EXPECT_EQ(report.frames[0].function, "kernel");
  EXPECT_EQ(report.frames[0].file,
            "/tmp/inductor-cache/"
            "00-c5qmaqsjllfj33psgw4qepjqyuv5fxom4s5wupxbtymozgpvqkel.main.cpp");
  EXPECT_EQ(report.frames[0].line, 46);
  EXPECT_EQ(report.frames[1].line, 89);
  EXPECT_EQ(report.frames[2].file, "") << "a module frame with its BuildId";
}

// The same write, another run: past the redzones into unmapped memory, so ASan says SEGV. The
// finding's signature is the one of the heap-buffer-overflow run.
TEST(SanitizerReport, AnOverflowThatSegfaultsSignsAsTheOneThatHitARedzone) {
  const auto segv = ParseSanitizerReports(Read(kFixtures / "flex_threads1_segv.asan.txt"));
  const auto redzone =
      ParseSanitizerReports(Read(kFixtures / "flex_threads1_heap_overflow.asan.txt"));
  ASSERT_EQ(segv.size(), 1u);
  ASSERT_EQ(redzone.size(), 1u);
  EXPECT_EQ(segv[0].error, "SEGV");
  EXPECT_EQ(segv[0].access, "WRITE");
  EXPECT_EQ(segv[0].frames.size(), 9u) << "the thread's creation is not the error's stack";
  // Each run's TU has its own hash in its name; the frames' file names say which.
  const auto segv_tu = FileNameOf(FirstTuFrame(segv[0]).file);
  const auto redzone_tu = FileNameOf(FirstTuFrame(redzone[0]).file);
  const std::string text(700, '\n');
  std::string source = text;
  source.insert(619, "  data_vec.store(data + d);"); // line 620 of both TUs
  const auto a = MemoryErrorFinding(segv[0], segv_tu, source);
  const auto b = MemoryErrorFinding(redzone[0], redzone_tu, source);
  EXPECT_EQ(corpus::Signature(a), corpus::Signature(b));
  EXPECT_EQ(corpus::Signature(a), "memory-error|error=out-of-bounds-access|access=WRITE|kernel="
                                  "kernel_fill_stub<float>|statement=data_vec.store(data + d);");
  EXPECT_EQ(a.detail["sanitizer_error"], "SEGV");
  EXPECT_EQ(a.source_lines.size(), 2u) << "kernel_fill_stub and its caller in the kernel";
}

TEST(SanitizerReport, UbsanThenAsanInOneLogWithTheRegion) {
  const auto reports =
      ParseSanitizerReports(Read(kFixtures / "signed_overflow_then_heap_overflow.log"));
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].tool, "UndefinedBehaviorSanitizer");
  EXPECT_EQ(reports[0].error, "signed-integer-overflow");
  ASSERT_FALSE(reports[0].frames.empty());
  EXPECT_EQ(reports[0].frames[0].function, "kernel");
  EXPECT_EQ(reports[0].frames[0].line, 5);
  EXPECT_EQ(reports[0].frames.size(), 5u) << "the header's place and the stack, merged";

  const auto &overflow = reports[1];
  EXPECT_EQ(overflow.error, "heap-buffer-overflow");
  EXPECT_EQ(overflow.access, "WRITE");
  EXPECT_EQ(overflow.access_size, 4u);
  ASSERT_TRUE(overflow.bytes_past_region);
  EXPECT_EQ(*overflow.bytes_past_region, 0) << "the first byte past the end";
  EXPECT_EQ(overflow.region_size, 16u);
  ASSERT_FALSE(overflow.allocated_at.empty());
  EXPECT_EQ(overflow.allocated_at[1].line, 10);
  EXPECT_NE(overflow.text.find("SUMMARY: AddressSanitizer"), std::string::npos);
}

TEST(SanitizerReport, MemoryErrorFindingNamesTheFunctionAndTheStatement) {
  const auto reports =
      ParseSanitizerReports(Read(kFixtures / "signed_overflow_then_heap_overflow.log"));
  ASSERT_EQ(reports.size(), 2u);
  const auto source = kFixtures / "ub.cpp";
  const auto finding = MemoryErrorFinding(reports[1], source, Read(source));
  EXPECT_EQ(
      corpus::Signature(finding),
      "memory-error|error=out-of-bounds-access|access=WRITE|kernel=main|statement=heap[<N>] = "
      "<N>;");
  ASSERT_EQ(finding.source_lines.size(), 1u);
  EXPECT_EQ(finding.source_lines[0].line, 11);
  EXPECT_EQ(finding.detail["bytes_past_region"], 0);
  EXPECT_EQ(finding.detail["access_size"], 4);

  const auto overflow = MemoryErrorFinding(reports[0], source, Read(source));
  EXPECT_EQ(corpus::Signature(overflow),
            "memory-error|error=signed-integer-overflow|access=|kernel=kernel|statement=out[i] = "
            "in[i] * <N>;");
  // Another TU: the error is named, the place is not.
  const auto elsewhere = MemoryErrorFinding(reports[1], "other.cpp", "");
  EXPECT_EQ(corpus::Signature(elsewhere),
            "memory-error|error=out-of-bounds-access|access=WRITE|kernel=|statement=");
}

TEST(SanitizerReport, TextWithoutReportsGivesNone) {
  EXPECT_TRUE(ParseSanitizerReports("").empty());
  EXPECT_TRUE(ParseSanitizerReports("W1123 torch warning\n    #0 0x1 in f a.cpp:1\n").empty());
}

} // namespace
} // namespace parsers
