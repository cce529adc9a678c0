// The replay's tolerance table (fuzzer/matrix/tolerances.h): the checked-in table parses and
// covers every dtype and family, a malformed line is one error naming it, and a TU's op family
// is read from its code. No torch: milliseconds.
#include "fuzzer/matrix/tolerances.h"
#include "support/errors.h"
#include "support/text_file.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace fuzzer::matrix {
namespace {

const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

std::string Refusal(const std::string &text) {
  try {
    ToleranceTable::Parse(text, "t.txt");
  } catch (const support::InputError &error) {
    return error.what();
  }
  return "";
}

TEST(Tolerances, TheCheckedInTableCoversEveryDtypeAndFamily) {
  const auto table = ToleranceTable::CheckedIn().ToJson();
  for (const char *dtype : {"float64", "float32", "float16", "bfloat16"})
    for (const char *family : {"pointwise", "reduction", "attention"}) {
      ASSERT_TRUE(table.contains(dtype) && table[dtype].contains(family)) << dtype << family;
      EXPECT_GT(table[dtype][family][0].get<double>() + table[dtype][family][1].get<double>(), 0);
    }
  // Pointwise is torch.testing's own default; the others are no tighter than it.
  EXPECT_EQ(table["float32"]["pointwise"], nlohmann::json::array({1.3e-6, 1e-5}));
  for (const char *dtype : {"float32", "float16", "bfloat16"})
    for (const char *family : {"reduction", "attention"})
      EXPECT_GE(table[dtype][family][0].get<double>(), table[dtype]["pointwise"][0].get<double>())
          << dtype << " " << family;
}

TEST(Tolerances, AMalformedLineIsOneErrorNamingIt) {
  EXPECT_EQ(Refusal("# a comment\n\nfloat32 pointwise 1e-6 1e-5 -- why\n"), "");
  EXPECT_NE(Refusal("float32 pointwise 1e-6 1e-5\n").find("t.txt line 1: write"), std::string::npos)
      << "an entry without a reason";
  EXPECT_NE(Refusal("\nfloat8 pointwise 1e-6 1e-5 -- why\n").find("line 2: dtype 'float8'"),
            std::string::npos);
  EXPECT_NE(Refusal("float32 matmul 1e-6 1e-5 -- why\n").find("family 'matmul'"),
            std::string::npos);
  EXPECT_NE(Refusal("float32 pointwise 1e-6x 1e-5 -- why\n").find("RTOL and ATOL"),
            std::string::npos);
  EXPECT_NE(Refusal("float32 pointwise 2 1e-5 -- why\n").find("RTOL and ATOL"), std::string::npos);
  EXPECT_NE(Refusal("float32 pointwise 1e-6 1e-5 extra -- why\n").find("write"), std::string::npos);
  EXPECT_NE(Refusal("float32 pointwise 1e-6 1e-5 -- a\nfloat32 pointwise 1e-6 1e-5 -- b\n")
                .find("line 2: float32 pointwise is given twice"),
            std::string::npos);
}

TEST(Tolerances, TheOpFamilyIsReadFromTheTu) {
  auto family = [](const std::string &name) {
    return std::string(OpFamilyOf(support::ReadTextFile(
        kSourceDir / "tests/fixtures/analysis/clean" / name, "fixture", std::size_t{1} << 24)));
  };
  EXPECT_EQ(family("inductor_s1-11_0.cpp"), "attention"); // flex_attention's CPU template
  EXPECT_EQ(family("inductor_s1-10_0.cpp"), "reduction");
  EXPECT_EQ(OpFamilyOf("extern \"C\" void kernel(const float* in_ptr0, float* out_ptr0) {\n"
                       "  out_ptr0[0] = in_ptr0[0] * 2;\n}\n"),
            "pointwise");
}

} // namespace
} // namespace fuzzer::matrix
