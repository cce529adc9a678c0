// Two real torch releases side by side: the pinned one in .venv and the oldest other release
// scripts/setup installed (scripts/test installs 2.6.0). A planted codegen bug that fires on
// one release only (tests/fixtures/plant_on_release) is a regression: compare classifies it,
// bisect finds the release that brought it, and reduce keeps it passing on the baseline.
#include "binary_runner.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/torch_environments.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace fuzzer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::RunInductorFuzz;

const fs::path kSource = INDUCTOR_FUZZ_SOURCE_DIR;
const fs::path kPlantedCase = kSource / "tests/fixtures/releases/strided_window.json";
const fs::path kSeed = kSource / "corpus/seeds/causal-151290.json";

class ReleasesTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto environments = support::FindTorchEnvironments(kSource);
    ASSERT_GE(environments.size(), 2u)
        << "no torch release next to .venv: run scripts/setup --with-torch 2.6.0 (scripts/test "
           "does)";
    pinned_ = environments.front().torch_version;
    older_ = environments[1].torch_version; // the oldest other release
  }

  // The planted bug, loaded in the environments whose torch starts with `release`.
  static std::map<std::string, std::string> PlantOn(const std::string &release) {
    return {{"PYTHONPATH", (kSource / "tests/fixtures/plant_on_release").string()},
            {"INDUCTOR_FUZZ_PLANT_ON_TORCH", release}};
  }

  static json ReadJson(const fs::path &path) { return json::parse(std::ifstream(path)); }

  std::string pinned_, older_;
};

// `scripts/test --full` only (tests/CMakeLists.txt).
class ReleasesFullTier : public ReleasesTest {};

TEST_F(ReleasesTest, APlantedRegressionIsClassifiedAndAnUnchangedCaseIsSame) {
  const support::ScratchDir scratch("releases-compare");
  const auto run = RunInductorFuzz({"compare", "--baseline-torch", older_, "--candidate-torch",
                                    pinned_, "--corpus", kPlantedCase.string(), "--corpus",
                                    kSeed.string(), "--report", scratch.path().string()},
                                   std::chrono::seconds(900), PlantOn(pinned_));
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("1 same, 1 regressed"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("REGRESSED strided-window"), std::string::npos) << run.out;
  const json report = ReadJson(scratch / "compare-torch.json");
  ASSERT_EQ(report["cases"].size(), 2u);
  const json &planted = report["cases"][0];
  EXPECT_EQ(planted["verdict"], "regressed");
  EXPECT_EQ(planted["baseline"]["status"], "pass");
  EXPECT_TRUE(planted["candidate"]["signature"].get<std::string>().starts_with(
      "compile-error|family=gcc|message=redeclaration of 'int planted_rem'"))
      << planted.dump(2);
  EXPECT_NE(planted["codegen"]["added_declarations"].dump().find("int planted_rem"),
            std::string::npos)
      << planted["codegen"].dump(2);
  EXPECT_EQ(report["cases"][1]["verdict"], "same");
  const std::string junit = support::ReadTextFile(scratch / "compare-torch.junit.xml", "", 1 << 20);
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos) << junit;
  EXPECT_TRUE(fs::exists(scratch / "compare-torch.md"));
}

// One failure, one signature, on every release: nothing of a release's version, paths or line
// numbers is in it.
TEST_F(ReleasesFullTier, TheSameFailureOnBothReleasesHasOneSignature) {
  const support::ScratchDir scratch("releases-both");
  const auto run =
      RunInductorFuzz({"compare", "--baseline-torch", older_, "--candidate-torch", pinned_,
                       "--corpus", kPlantedCase.string(), "--report", scratch.path().string()},
                      std::chrono::seconds(900), PlantOn("2"));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json planted = ReadJson(scratch / "compare-torch.json")["cases"][0];
  EXPECT_EQ(planted["verdict"], "both-failing") << planted.dump(2);
  EXPECT_EQ(planted["baseline"]["signature"], planted["candidate"]["signature"]);
  EXPECT_FALSE(planted["baseline"]["signature"].get<std::string>().empty());
}

TEST_F(ReleasesFullTier, BisectNamesTheReleaseThatBroughtTheFailure) {
  const support::ScratchDir scratch("releases-bisect");
  const auto run =
      RunInductorFuzz({"bisect", kPlantedCase.string(), "--torch", older_ + "," + pinned_, "--json",
                       (scratch / "bisect.json").string()},
                      std::chrono::seconds(900), PlantOn(pinned_));
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  const json result = ReadJson(scratch / "bisect.json");
  EXPECT_EQ(result["first_failing"], pinned_) << result.dump(2);
  EXPECT_EQ(result["last_passing"], older_) << result.dump(2);
  EXPECT_NE(run.out.find("first release failing with it: " + pinned_), std::string::npos)
      << run.out;
}

// A regression is reduced with "passes on the baseline, fails on the candidate" as the test,
// and its script says so and is run on both.
TEST_F(ReleasesFullTier, ARegressionReducesToAScriptThatNamesBothReleases) {
  const support::ScratchDir scratch("releases-reduce");
  // One case pass and one source pass keep the test to minutes (the source reducer is tested
  // on its own); the whole order is the default.
  std::ofstream(scratch / "passes.json") << R"({"case_passes": ["replace-by-leaf"]})";
  std::ofstream(scratch / "source-passes.json") << R"({"source_passes": ["strip-comments"]})";
  const auto run = RunInductorFuzz({"reduce", kPlantedCase.string(), "--baseline-torch", older_,
                                    "--out", (scratch / "out").string(), "--jobs", "2", "--passes",
                                    (scratch / "passes.json").string(), "--source-passes",
                                    (scratch / "source-passes.json").string()},
                                   std::chrono::seconds(1700), PlantOn(pinned_));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json report = ReadJson(scratch / "out" / "reduction.json");
  EXPECT_EQ(report["baseline_torch"], older_);
  EXPECT_EQ(report["candidate_torch"], pinned_);
  EXPECT_TRUE(report["repro_reproduces"].get<bool>()) << report.dump(2);
  EXPECT_TRUE(report["repro_passes_on_baseline"].get<bool>()) << report.dump(2);
  EXPECT_LT(report["nodes_after"], report["nodes_before"]) << report.dump(2);
  EXPECT_GT(report["baseline_runs"].get<int>(), 1) << report.dump(2);
  const std::string script = support::ReadTextFile(scratch / "out" / "repro.py", "", 1 << 20);
  EXPECT_NE(script.find("# Regression: passes on torch " + older_), std::string::npos) << script;
  EXPECT_NE(script.find("fails as above on torch " + pinned_), std::string::npos) << script;

  // Without the plant the case is no regression: a one-line refusal, exit 2.
  const auto refused = RunInductorFuzz({"reduce", kSeed.string(), "--baseline-torch", older_,
                                        "--out", (scratch / "refused").string(), "--jobs", "1"},
                                       std::chrono::seconds(600));
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
}

// A campaign's findings, run again on a baseline release: the planted one is new since it.
TEST_F(ReleasesTest, FuzzLabelsEachFindingAgainstTheBaselineRelease) {
  const support::ScratchDir scratch("releases-fuzz");
  // Seed 1's first case without tensor programs is a create_mask whose mask takes a remainder:
  // the plant fires on it.
  const auto policy = scratch / "no-tensor-programs.json";
  std::ofstream(policy) << R"({"numbers": {"p_tensor_program": 0}})";
  const auto run =
      RunInductorFuzz({"fuzz", "--seed", "1", "--cases", "1", "--jobs", "1", "--reduce", "none",
                       "--matrix-every", "0", "--no-check", "--policy", policy.string(),
                       "--baseline-torch", older_, "--corpus", (scratch / "corpus").string()},
                      std::chrono::seconds(900), PlantOn(pinned_));
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("[regression since " + older_ + "]"), std::string::npos) << run.out;
  const auto listed = RunInductorFuzz(
      {"corpus", "show", "compile-error", "--corpus", (scratch / "corpus").string()});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const json shown = json::parse(listed.out);
  ASSERT_EQ(shown["baselines"].size(), 1u) << shown.dump(2);
  EXPECT_EQ(shown["baselines"][0]["label"], "regression since " + older_);
  EXPECT_EQ(shown["baselines"][0]["baseline_status"], "pass");
}

TEST_F(ReleasesFullTier, DoctorChecksEveryEnvironmentAndAnUnsupportedTorchSaysWhatIsMissing) {
  const auto doctor = RunInductorFuzz({"doctor", "--compilers", "g++-12"});
  EXPECT_EQ(doctor.exit_code, 0) << doctor.out << doctor.err;
  EXPECT_NE(doctor.out.find(".venv-torch-" + older_ + " "), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("torch " + older_), std::string::npos) << doctor.out;

  // A venv whose torch predates flex_attention on CPU: the worker names what is missing.
  const support::ScratchDir scratch("releases-unsupported");
  const fs::path venv = scratch / "venv";
  ASSERT_EQ(std::system(("/usr/bin/python3.11 -m venv " + venv.string()).c_str()), 0);
  const fs::path site = venv / "lib/python3.11/site-packages";
  fs::create_directories(site / "torch");
  fs::create_directories(site / "torch-2.5.1.dist-info");
  std::ofstream(site / "torch" / "__init__.py") << "__version__ = \"2.5.1\"\n";
  const auto run = RunInductorFuzz(
      {"--venv", venv.string(), "run-case", kSeed.string(), "--out", (scratch / "out").string()});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("torch 2.5.1 in " + venv.string() + " cannot run the worker"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("outside the supported releases (2.6 to 2.15)"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("create_block_mask (torch.nn.attention.flex_attention."
                         "create_block_mask) is missing"),
            std::string::npos)
      << run.err;

  const auto unknown = RunInductorFuzz(
      {"--torch", "2.99", "run-case", kSeed.string(), "--out", (scratch / "out2").string()});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no environment has torch 2.99"), std::string::npos) << unknown.err;
}

} // namespace
} // namespace fuzzer
