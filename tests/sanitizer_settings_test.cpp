// The sanitizer runtimes' settings: one checked-in file, every entry with its reason, and the
// environment a sanitized worker gets from it, for g++ and for clang++.
#include "fuzzer/worker/sanitizer_settings.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "support/child_process.h"
#include "support/errors.h"

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

// repro.py's prelude (a memory error's standalone script) runs the script again as a sanitized
// worker runs: the same wrapper flags, runtime and settings, and a log path given to it kept.
TEST(SanitizerSettings, TheReproPreludeRunsTheScriptAgainAsASanitizedWorkerRuns) {
  const fs::path work =
      fs::temp_directory_path() / ("inductor-fuzz-sanitizer-prelude-" + std::to_string(::getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  const auto settings = ParseSanitizerSettings(CheckedInSanitizerSettings());
  for (const auto &[checks, compiler] :
       {std::pair{"address,undefined", "g++-12"}, std::pair{"address", "clang++-19"}}) {
    SCOPED_TRACE(compiler);
    const auto options = ParseSanitizerOptions(checks, compiler);
    const auto worker = SanitizerEnvironment(options, work / compiler);
    const fs::path script = work / (std::string(compiler) + ".py");
    std::ofstream(script) << SanitizedReproPrelude(options)
                          << "import os, subprocess\n"
                             "print(os.environ[\"LD_PRELOAD\"])\n"
                             "print(os.environ[\"ASAN_OPTIONS\"])\n"
                             "print(open(os.environ[\"CXX\"]).read().splitlines()[-1])\n"
                             "print(os.path.basename(os.environ[\"CXX\"]))\n"
                             "subprocess.run([os.environ[\"CXX\"], \"--version\"], check=True, "
                             "stdout=subprocess.DEVNULL)\n";
    const auto run = support::RunCommand({"python3", script.string()},
                                         {.environment = {{"ASAN_OPTIONS", "log_path=/given"}}},
                                         std::chrono::seconds(60));
    ASSERT_TRUE(run.status.Succeeded()) << run.output;
    std::istringstream lines(run.output);
    std::string preload, asan, wrapper, name;
    std::getline(lines, preload);
    std::getline(lines, asan);
    std::getline(lines, wrapper);
    std::getline(lines, name);
    // The worker links libstdc++; python does not, and the runtime needs it loaded next.
    EXPECT_EQ(preload, worker.at("LD_PRELOAD") + " libstdc++.so.6");
    EXPECT_EQ(asan, JoinSettings(settings, "asan") + ":log_path=/given");
    std::stringstream worker_wrapper;
    worker_wrapper << std::ifstream(worker.at("CXX")).rdbuf();
    std::string worker_line = worker_wrapper.str();
    worker_line.pop_back();
    worker_line = worker_line.substr(worker_line.rfind('\n') + 1);
    // The same flags after the same compiler (the worker's names it by its full path).
    EXPECT_EQ(wrapper.substr(wrapper.find("\"$@\"")),
              worker_line.substr(worker_line.find("\"$@\"")));
    EXPECT_EQ(name, fs::path(worker.at("CXX")).filename().string());
  }
  fs::remove_all(work);
}

} // namespace
} // namespace fuzzer::worker
