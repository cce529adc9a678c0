// Torch releases without torch: resolving an environment by version, classifying a case on two
// releases, and kernel fingerprints on a real Inductor TU (the end-to-end test on real torch
// releases is releases_test).
#include "fuzzer/matrix/kernel_fingerprints.h"
#include "support/errors.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/torch_environments.h"
#include "workflows/release_compare.h"

#include <gtest/gtest.h>

#include <regex>

namespace fuzzer {
namespace {

namespace fs = std::filesystem;
using workflows::ReleaseRun;
using workflows::ReleaseVerdict;

const fs::path kSource = INDUCTOR_FUZZ_SOURCE_DIR;

// A venv as scripts/setup leaves it, as far as version discovery reads it.
void FakeVenv(const fs::path &venv, const std::string &torch_version) {
  fs::create_directories(venv / "bin");
  fs::create_directories(venv / "lib/python3.11/site-packages" /
                         ("torch-" + torch_version + ".dist-info"));
}

TEST(TorchEnvironments, AreFoundByVersionOldestFirstAfterTheProjectsOwn) {
  const support::ScratchDir root("torch-environments");
  FakeVenv(root / ".venv", "2.15.0");
  FakeVenv(root / ".venv-torch-2.10.0", "2.10.0");
  FakeVenv(root / ".venv-torch-2.9.1", "2.9.1");
  fs::create_directories(root / ".venv-torch-broken/bin"); // no torch: not an environment
  const auto found = support::FindTorchEnvironments(root.path());
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].torch_version, "2.15.0");
  EXPECT_EQ(found[1].torch_version, "2.9.1");
  EXPECT_EQ(found[2].torch_version, "2.10.0");

  EXPECT_EQ(support::ResolveTorchEnvironment("2.10.0", root.path()).venv,
            root / ".venv-torch-2.10.0");
  EXPECT_EQ(support::ResolveTorchEnvironment("2.9", root.path()).torch_version, "2.9.1");
  EXPECT_EQ(support::ResolveTorchEnvironment("2.15", root.path()).venv, root / ".venv");
  EXPECT_EQ(support::ResolveTorchEnvironment((root / ".venv-torch-2.9.1").string(), root.path())
                .torch_version,
            "2.9.1");
  try {
    support::ResolveTorchEnvironment("2.13.0", root.path());
    FAIL() << "2.13.0 is not installed";
  } catch (const support::InputError &error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("no environment has torch 2.13.0"), std::string::npos) << message;
    EXPECT_NE(message.find("2.9.1 in .venv-torch-2.9.1"), std::string::npos) << message;
    EXPECT_NE(message.find("scripts/setup --with-torch 2.13.0"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line";
  }
  EXPECT_THROW(
      support::ResolveTorchEnvironment((root / ".venv-torch-broken").string(), root.path()),
      support::InputError);
  EXPECT_TRUE(support::TorchVersionLess("2.9.1", "2.10.0"));
  EXPECT_FALSE(support::TorchVersionLess("2.10.0", "2.9.1"));
}

ReleaseRun Outcome(std::string status, std::string signature = "") {
  return {.status = std::move(status), .signature = std::move(signature)};
}

TEST(ReleaseVerdicts, SayWhatFailsNowThatDidNotBefore) {
  const std::string a = "exception|type=builtins.AssertionError|message=x|frame=f.py:g";
  const std::string b = "compile-error|family=gcc|message=y|option=";
  EXPECT_EQ(workflows::ClassifyReleases(Outcome("pass"), Outcome("pass")), ReleaseVerdict::kSame);
  EXPECT_EQ(workflows::ClassifyReleases(Outcome("expected"), Outcome("pass")),
            ReleaseVerdict::kSame);
  EXPECT_EQ(workflows::ClassifyReleases(Outcome("pass"), Outcome("finding", a)),
            ReleaseVerdict::kRegressed);
  EXPECT_EQ(workflows::ClassifyReleases(Outcome("finding", a), Outcome("pass")),
            ReleaseVerdict::kFixed);
  EXPECT_EQ(workflows::ClassifyReleases(Outcome("finding", a), Outcome("finding", a)),
            ReleaseVerdict::kBothFailing);
  EXPECT_EQ(workflows::ClassifyReleases(Outcome("finding", a), Outcome("finding", b)),
            ReleaseVerdict::kFailingDifferently);
  EXPECT_EQ(workflows::ClassifyReleases(Outcome("invalid-case"), Outcome("finding", b)),
            ReleaseVerdict::kNotComparable);
}

// A real captured kernel: renumbering Inductor's names keeps its fingerprint; a declaration
// more changes it and is named.
TEST(KernelFingerprints, IgnoreNumberedNamesAndNameTheDeclarationsThatChanged) {
  const std::string tu = support::ReadTextFile(
      kSource / "tests/fixtures/analysis/clean/inductor_causal-151290_0.cpp", "fixture", 1 << 20);
  const auto kernels = matrix::FingerprintKernels(tu);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].name, "kernel");
  EXPECT_EQ(kernels[0].fingerprint.size(), 16u);
  const auto &declarations = kernels[0].declarations;
  EXPECT_NE(std::ranges::find(declarations, "auto tmpN"), declarations.end());
  EXPECT_NE(std::ranges::find(declarations, "int64_t xN"), declarations.end());
  EXPECT_NE(std::ranges::find(declarations, "int tid"), declarations.end());
  EXPECT_EQ(std::ranges::find(declarations, "return tmpN"), declarations.end());

  const std::string renumbered = std::regex_replace(tu, std::regex("tmp([0-9])"), "tmp1$1");
  ASSERT_NE(renumbered, tu);
  EXPECT_EQ(matrix::FingerprintKernels(renumbered), kernels);
  EXPECT_TRUE(matrix::CompareCodegen(kernels, matrix::FingerprintKernels(renumbered)).Same());

  std::string planted = tu;
  planted.insert(planted.find("    std::atomic<int>"), "    int planted_rem = 0;\n");
  const auto delta = matrix::CompareCodegen(kernels, matrix::FingerprintKernels(planted));
  EXPECT_FALSE(delta.Same());
  EXPECT_EQ(delta.changed_kernels, std::vector<std::string>{"kernel"});
  EXPECT_EQ(delta.added_declarations, std::vector<std::string>{"kernel: int planted_rem"});
  EXPECT_TRUE(delta.removed_declarations.empty());

  // A declaration alone (cpp_wrapper TUs declare their kernels before defining them) is none.
  EXPECT_TRUE(matrix::FingerprintKernels("extern \"C\" void kernel(float* out_ptr0);\n").empty());
  EXPECT_EQ(matrix::CompareCodegen(kernels, {}).baseline_kernels, 1u);
}

} // namespace
} // namespace fuzzer
