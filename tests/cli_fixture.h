#pragma once

// The command-line tests' shared fixture: a scratch folder per test, a file writer, and the
// check that a refusal is one line on stderr with exit 2 (cli_test.cpp, cli_reduce_test.cpp).
#include "binary_runner.h"
#include "corpus/finding_store.h"
#include "corpus/matrix_record.h"
#include "fuzzer/matrix/compiler_matrix.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace fuzzer::cli_testing {

using test_support::RunInductorFuzz;

inline const std::filesystem::path kSeed =
    std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) / "corpus/seeds/causal-151290.json";

class CliTest : public ::testing::Test {
protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() /
              ("inductor-fuzz-cli-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  std::filesystem::path Write(const std::string &name, const std::string &contents) {
    std::filesystem::create_directories((folder_ / name).parent_path());
    std::ofstream(folder_ / name, std::ios::binary) << contents;
    return folder_ / name;
  }

  void ExpectOneLineError(const std::vector<std::string> &arguments, const std::string &expected) {
    const auto run = RunInductorFuzz(arguments);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_NE(run.err.find(expected), std::string::npos) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }

  std::filesystem::path folder_;
};

} // namespace fuzzer::cli_testing
