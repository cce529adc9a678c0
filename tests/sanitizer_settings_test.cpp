// The sanitizer runtimes' settings: one checked-in file, every entry with its reason, and the
// environment a sanitized worker gets from it, for g++ and for clang++.
#include "fuzzer/support/errors.h"
#include "fuzzer/worker/sanitizer_settings.h"
#include "fuzzer/worker/sanitizer_worker.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fuzzer::worker {
namespace {

namespace fs = std::filesystem;

TEST(SanitizerSettings, TheCheckedInFileGivesEveryEntryAReason) {
  const auto settings = ParseSanitizerSettings(CheckedInSanitizerSettings());
  ASSERT_FALSE(settings.empty());
  for (const auto &setting : settings) {
    EXPECT_FALSE(setting.setting.empty());
    EXPECT_GE(setting.reason.size(), 20u) << setting.setting << ": say why";
  }
  EXPECT_EQ(JoinSettings(settings, "asan").find("detect_leaks=0"), 0u);
  EXPECT_NE(JoinSettings(settings, "ubsan").find("halt_on_error=1"), std::string::npos);
  // The binary carries the file as it is in the tree.
  std::stringstream file;
  file << std::ifstream(fs::path(INDUCTOR_FUZZ_SOURCE_DIR) / "fuzzer/worker/sanitizer_settings.txt")
              .rdbuf();
  EXPECT_EQ(file.str(), CheckedInSanitizerSettings());
}

TEST(SanitizerSettings, AnEntryWithoutAReasonOrAToolIsRefusedWithItsLine) {
  try {
    ParseSanitizerSettings("# fine\nasan detect_leaks=0 -- hosts leak\n\nasan symbolize=1\n");
    FAIL() << "accepted an entry without a reason";
  } catch (const support::InputError &error) {
    EXPECT_NE(std::string(error.what()).find("line 4"), std::string::npos) << error.what();
  }
  EXPECT_THROW(ParseSanitizerSettings("msan poison=0 -- no such tool here\n"), support::InputError);
  const auto suppressions = ParseSanitizerSettings(
      "asan-suppress interceptor_via_lib:libfoo.so -- a reason long enough\n"
      "asan-suppress interceptor_via_fun:bar -- another reason long enough\n");
  EXPECT_EQ(JoinSettings(suppressions, "asan-suppress"),
            "interceptor_via_lib:libfoo.so\ninterceptor_via_fun:bar");
}

TEST(SanitizerSettings, TheWorkersEnvironmentCarriesTheFileForGccAndClang) {
  const fs::path work = fs::temp_directory_path() /
                        ("inductor-fuzz-sanitizer-settings-" + std::to_string(::getpid()));
  fs::remove_all(work);
  const auto settings = ParseSanitizerSettings(CheckedInSanitizerSettings());
  const auto gcc =
      SanitizerEnvironment(ParseSanitizerOptions("address,undefined", "g++-12"), work / "gcc");
  EXPECT_EQ(gcc.at("ASAN_OPTIONS"),
            JoinSettings(settings, "asan") + ":log_path=" + (work / "gcc/reports/report").string());
  EXPECT_NE(gcc.at("LD_PRELOAD").find("libasan.so"), std::string::npos);
  EXPECT_EQ(fs::path(gcc.at("CXX")).filename(), "g++");

  const auto clang =
      SanitizerEnvironment(ParseSanitizerOptions("address", "clang++-19"), work / "clang");
  EXPECT_NE(clang.at("LD_PRELOAD").find("libclang_rt.asan-x86_64.so"), std::string::npos)
      << clang.at("LD_PRELOAD");
  EXPECT_TRUE(fs::exists(clang.at("LD_PRELOAD")));
  EXPECT_EQ(fs::path(clang.at("CXX")).filename(), "clang++");
  std::stringstream wrapper;
  wrapper << std::ifstream(clang.at("CXX")).rdbuf();
  EXPECT_NE(wrapper.str().find("-fsanitize=address -fno-omit-frame-pointer -g -shared-libsan"),
            std::string::npos)
      << wrapper.str();
  fs::remove_all(work);
}

} // namespace
} // namespace fuzzer::worker
