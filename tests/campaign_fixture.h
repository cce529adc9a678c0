#pragma once

// The campaign tests' shared fixture: a scratch folder, a create_block_mask-only policy, and the
// command line of a short campaign of seed 3 (campaign_test.cpp, campaign_delivery_test.cpp,
// campaign_nights_test.cpp).
#include "binary_runner.h"
#include "corpus/finding_store.h"
#include "corpus/matrix_record.h"
#include "support/child_process.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/torch_environments.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace fuzzer::campaign_testing {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::RunInductorFuzz;

inline json ReadJson(const fs::path &path) { return json::parse(std::ifstream(path)); }

class CampaignTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<support::ScratchDir>("campaign-test");
    // create_block_mask cases only: they compile in seconds (no op or tensor programs, which would
    // replace a third of them; tests/surface_test.cpp runs those).
    std::ofstream(*scratch_ / "policy.json")
        << R"({"weights": {"api": {"create_block_mask": 1, "create_mask": 0, "flex_attention": 0}},)"
        << R"( "numbers": {"p_op_program": 0, "p_tensor_program": 0}})";
  }
  static void TearDownTestSuite() { scratch_.reset(); }

  // A campaign of seed 3 into the corpus `corpus`; without the compiler matrix unless `extra`
  // asks for it.
  static std::vector<std::string> Fuzz(const std::string &corpus, std::vector<std::string> extra) {
    std::vector<std::string> argv = {"fuzz",
                                     "--seed",
                                     "3",
                                     "--policy",
                                     (*scratch_ / "policy.json").string(),
                                     "--corpus",
                                     (*scratch_ / corpus).string()};
    if (std::find(extra.begin(), extra.end(), "--matrix-every") == extra.end())
      argv.insert(argv.end(), {"--matrix-every", "0"});
    // Reduction (a campaign's default) only where a test is about it: it takes minutes.
    if (std::find(extra.begin(), extra.end(), "--reduce") == extra.end())
      argv.insert(argv.end(), {"--reduce", "none"});
    // Feedback makes a case depend on the queue a corpus holds; these tests compare runs case
    // by case (FeedbackQueuesNewFeaturesAndMutatesQueuedCases is about feedback).
    argv.push_back("--no-feedback");
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }

  static std::set<std::string> Signatures(const std::string &corpus) {
    std::set<std::string> signatures;
    for (const auto &finding : corpus::FindingStore(*scratch_ / corpus).List())
      signatures.insert(finding.signature);
    return signatures;
  }

  static inline std::unique_ptr<support::ScratchDir> scratch_;
};

// The long robustness loops: `scripts/test --full` runs them (tests/CMakeLists.txt).
class CampaignFullTier : public CampaignTest {};

} // namespace fuzzer::campaign_testing
