// Which kernel argument a sanitizer's bad address lies in: the report's address and region
// against the call journal the replay writes before each call.
#include "fuzzer/matrix/bad_access.h"
#include "parsers/sanitizer_report.h"

#include <gtest/gtest.h>

namespace fuzzer::matrix {
namespace {

using nlohmann::json;

constexpr const char *kSource = R"(#include "prefix.h"
extern "C"  void  kernel(const float* in_ptr0,
                       const int64_t* in_ptr1,
                       bool* out_ptr0)
{
    out_ptr0[10000L] = out_ptr0[9999L];
}
)";

// Three arguments: a float input viewed from its 4th element, an int64 input, a bool output.
json Call() {
  return {{"call", 1},
          {"arguments",
           {{{"position", 0},
             {"dtype", "float32"},
             {"itemsize", 4},
             {"elements", 60},
             {"data_ptr", 0x1000 + 16},
             {"storage_ptr", 0x1000},
             {"storage_bytes", 256}},
            {{"position", 1},
             {"dtype", "int64"},
             {"itemsize", 8},
             {"elements", 4},
             {"data_ptr", 0x2000},
             {"storage_ptr", 0x2000},
             {"storage_bytes", 32}},
            {{"position", 2},
             {"dtype", "bool"},
             {"itemsize", 1},
             {"elements", 10000},
             {"data_ptr", 0x10000},
             {"storage_ptr", 0x10000},
             {"storage_bytes", 10000}}}}};
}

// As ASan prints a one-byte write just past a 10000-byte buffer.
constexpr const char *kReport =
    "==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x12710 at pc 0x1 bp 0x2 sp "
    "0x3\nWRITE of size 1 at 0x12710 thread T0\n    #0 0x7f in kernel /c/x.main.cpp:6\n"
    "0x12710 is located 0 bytes after 10000-byte region [0x10000,0x12710)\n"
    "SUMMARY: AddressSanitizer: heap-buffer-overflow /c/x.main.cpp:6 in kernel\n";

TEST(BadAccess, AWriteJustPastTheOutputNamesTheOutputAndTheElement) {
  const auto reports = parsers::ParseSanitizerReports(kReport);
  ASSERT_EQ(reports.size(), 1u);
  ASSERT_TRUE(reports[0].address.has_value());
  EXPECT_EQ(*reports[0].address, 0x12710u);
  const auto finding = parsers::MemoryErrorFinding(reports[0], "/c/x.main.cpp", kSource);
  const auto bad = BadAddressOf(finding.detail);
  ASSERT_TRUE(bad.has_value()) << finding.detail.dump(2);
  EXPECT_EQ(bad->region_start, 0x10000u);
  EXPECT_EQ(bad->region_bytes, 10000u);
  const auto located = LocateBadAccess(*bad, Call(), "kernel", kSource);
  ASSERT_TRUE(located.has_value());
  EXPECT_EQ((*located)["position"], 2);
  EXPECT_EQ((*located)["name"], "out_ptr0");
  EXPECT_EQ((*located)["element"], 10000);
  EXPECT_EQ((*located)["elements_past_end"], 0);
  EXPECT_EQ((*located)["call"], 1);
  EXPECT_EQ(DescribeBadAccess(*located),
            "element 10000 of out_ptr0 (argument 2, 10000 x bool), 0 past its end");
}

TEST(BadAccess, ElementsAreCountedInTheArgumentsDtypeFromItsView) {
  // Three int64 elements past the end of in_ptr1, no region in the report.
  const auto located = LocateBadAccess({.address = 0x2000 + 32 + 24}, Call(), "kernel", kSource);
  EXPECT_FALSE(located.has_value()) << "outside every storage and no region named: no guess";
  const auto region =
      LocateBadAccess({.address = 0x2000 + 32 + 24, .region_start = 0x2000, .region_bytes = 32},
                      Call(), "kernel", kSource);
  ASSERT_TRUE(region.has_value());
  EXPECT_EQ((*region)["name"], "in_ptr1");
  EXPECT_EQ((*region)["element"], 7);
  EXPECT_EQ((*region)["elements_past_end"], 3);
  // Inside the float storage, before the view's first element: a negative element.
  const auto before_view = LocateBadAccess({.address = 0x1000 + 8}, Call(), "kernel", kSource);
  ASSERT_TRUE(before_view.has_value());
  EXPECT_EQ((*before_view)["name"], "in_ptr0");
  EXPECT_EQ((*before_view)["element"], -2);
  EXPECT_FALSE(before_view->contains("elements_past_end"));
}

TEST(BadAccess, AnAddressInNoArgumentIsTheKernelsOwnBuffer) {
  EXPECT_FALSE(
      LocateBadAccess({.address = 0x900000, .region_start = 0x800000, .region_bytes = 0x100000 - 4},
                      Call(), "kernel", kSource)
          .has_value());
  EXPECT_FALSE(LocateBadAccess({.address = 0x12710}, json::object(), "kernel", kSource));
  // The entry's parameters unknown (a cpp_wrapper entry takes handles): the position alone.
  const auto unnamed = LocateBadAccess({.address = 0x10001}, Call(), "inductor_entry_cpp", kSource);
  ASSERT_TRUE(unnamed.has_value());
  EXPECT_EQ((*unnamed)["name"], "");
  EXPECT_EQ(DescribeBadAccess(*unnamed), "element 1 of argument 2 (10000 x bool)");
}

} // namespace
} // namespace fuzzer::matrix
