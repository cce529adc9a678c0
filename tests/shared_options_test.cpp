// The shared options (support/shared_options.def): each command that takes one shows the row's
// help and default, not words of its own, and refuses what the row's check refuses.
#include "binary_runner.h"
#include "support/shared_options.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace support::options;
using test_support::RunInductorFuzz;

TEST(SharedOptions, EveryCommandThatTakesOneShowsItsRowsHelpAndDefault) {
  const std::vector<std::pair<std::string, std::vector<SharedOptionRow>>> commands = {
      {"fuzz",
       {CaseTimeout::kRow, Sanitize::kRow, SanitizeCompiler::kRow, ProbeRuns::kRow, ProbeTime::kRow,
        CampaignCompilers::kRow}},
      {"run-case", {Sanitize::kRow, SanitizeCompiler::kRow, ProbeRuns::kRow, ProbeTime::kRow}},
      {"reduce", {ReductionCaseTimeout::kRow, Sanitize::kRow, SanitizeCompiler::kRow}},
      {"matrix", {Sanitize::kRow, SanitizeCompiler::kRow, MatrixCompilers::kRow}},
      {"replay", {CaseTimeout::kRow}},
      {"bisect", {CaseTimeout::kRow}},
      {"compare", {CaseTimeout::kRow}},
      {"doctor", {MatrixCompilers::kRow}}};
  for (const auto &[name, rows] : commands) {
    const auto help = RunInductorFuzz({name, "--help"});
    ASSERT_EQ(help.exit_code, 0) << help.err;
    for (const auto &row : rows)
      EXPECT_NE(help.out.find(std::string(row.help)), std::string::npos)
          << name << " " << row.flag << ":\n"
          << help.out;
  }
  // The defaults the options had before the table, unchanged.
  const auto fuzz = RunInductorFuzz({"fuzz", "--help"}).out;
  EXPECT_NE(fuzz.find("--case-timeout INT:POSITIVE=600"), std::string::npos) << fuzz;
  EXPECT_NE(fuzz.find("--sanitize-compiler TEXT=g++-12"), std::string::npos) << fuzz;
  EXPECT_NE(fuzz.find("--probe-runs UINT=8"), std::string::npos) << fuzz;
  EXPECT_NE(fuzz.find("--probe-time INT:POSITIVE=120"), std::string::npos) << fuzz;
  EXPECT_NE(fuzz.find("(default: those of g++-11, clang++-19 installed)"), std::string::npos);
  const auto reduce = RunInductorFuzz({"reduce", "--help"}).out;
  EXPECT_NE(reduce.find("--case-timeout INT:POSITIVE=300"), std::string::npos) << reduce;
  const auto doctor = RunInductorFuzz({"doctor", "--help"}).out;
  EXPECT_NE(doctor.find("g++-11,g++-12,clang++-14,clang++-15,clang++-16,clang++-19"),
            std::string::npos)
      << doctor;
}

TEST(SharedOptions, APositiveRowRefusesZeroInOneLine) {
  for (const std::string command : {"fuzz", "replay", "bisect", "compare", "reduce"}) {
    const auto run = RunInductorFuzz({command, "--case-timeout", "0"});
    EXPECT_EQ(run.exit_code, 2) << command << ": " << run.err;
    EXPECT_NE(run.err.find("--case-timeout"), std::string::npos) << command << ": " << run.err;
  }
}

TEST(SharedOptions, EachRowHasItsOwnNameAndAFlagAndAHelp) {
  std::set<std::string_view> names;
  for (const auto &row : kSharedOptionRows) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_TRUE(row.flag.starts_with("--")) << row.name;
    EXPECT_FALSE(row.help.empty()) << row.name;
  }
  EXPECT_EQ(CaseTimeout::Default(), 600);
  EXPECT_EQ(ReductionCaseTimeout::Default(), 300);
  EXPECT_EQ(SanitizeCompiler::Default(), "g++-12");
  EXPECT_EQ(ProbeRuns::Default(), 8u);
  EXPECT_EQ(Sanitize::Default(), "");
}

} // namespace
