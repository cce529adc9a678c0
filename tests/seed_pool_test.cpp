// The feedback's seed pool (fuzzer/campaign/seed_pool.h): which cases join it, what it keeps in
// CORPUS/queue/, and which parents it favours.
#include "fuzzer/campaign/seed_pool.h"
#include "support/scratch_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

namespace fuzzer {
namespace {

namespace fs = std::filesystem;

// The seed corpus's case, renamed: one case per name.
corpus::Case Named(const std::string &name) {
  corpus::Case c = corpus::LoadCaseFile(fs::path(INDUCTOR_FUZZ_SOURCE_DIR) / "corpus" / "seeds" /
                                        "causal-151290.json");
  c.name = name;
  return c;
}

// Picks `times` parents and counts them by case name.
std::map<std::string, int> PickCounts(campaign::SeedPool &pool, int times) {
  generate::Random random(7);
  std::map<std::string, int> counts;
  for (int i = 0; i < times; ++i)
    ++counts[pool.Pick(random)->c.name];
  return counts;
}

TEST(SeedPool, JoinsOnlyCasesThatBringAFeature) {
  const support::ScratchDir scratch("seed-pool-test");
  campaign::SeedPool pool(scratch.path() / "queue");
  generate::Random random(1);
  EXPECT_FALSE(pool.Pick(random).has_value());
  EXPECT_EQ(pool.Offer(Named("first"), {"vec:exp", "loop:step-16"}),
            (std::vector<std::string>{"loop:step-16", "vec:exp"}));
  EXPECT_TRUE(pool.Offer(Named("same"), {"vec:exp"}).empty());
  EXPECT_EQ(pool.Offer(Named("more"), {"vec:exp", "vec:log"}), std::vector<std::string>{"vec:log"});
  EXPECT_EQ(pool.Size(), 2u);
  EXPECT_EQ(pool.FeaturesSeen(), 3u);
}

TEST(SeedPool, FavoursParentsWithFeaturesFewCasesReach) {
  const support::ScratchDir scratch("seed-pool-test");
  const fs::path queue = scratch.path() / "queue";
  {
    campaign::SeedPool pool(queue);
    pool.Offer(Named("common"), {"vec:exp", "loop:step-16", "buffer:float"});
    pool.Offer(Named("rare"), {"vec:exp", "template:flex-decoding"});
    // Many later cases reach the common features, none the rare one.
    for (int i = 0; i < 30; ++i)
      pool.Offer(Named("later"), {"vec:exp", "loop:step-16", "buffer:float"});
    const auto counts = PickCounts(pool, 200);
    EXPECT_GT(counts.at("rare"), 3 * counts.at("common"))
        << "rare " << counts.at("rare") << ", common " << counts.at("common");
  }
  // A campaign that resumes from the queue favours the same parent: the entries keep every
  // feature they reached, not only those they brought.
  campaign::SeedPool reloaded(queue);
  EXPECT_EQ(reloaded.Size(), 2u);
  const auto counts = PickCounts(reloaded, 200);
  EXPECT_GT(counts.at("rare"), 3 * counts.at("common"));
}

TEST(SeedPool, SkipsADamagedQueueEntryAndKeepsIt) {
  const support::ScratchDir scratch("seed-pool-test");
  const fs::path queue = scratch.path() / "queue";
  {
    campaign::SeedPool pool(queue);
    pool.Offer(Named("kept"), {"vec:exp"});
  }
  std::ofstream(queue / "q-damaged.json") << "{not json";
  testing::internal::CaptureStderr();
  campaign::SeedPool reloaded(queue);
  const std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find("q-damaged.json is unreadable"), std::string::npos) << warning;
  EXPECT_EQ(reloaded.Size(), 1u);
  EXPECT_TRUE(fs::exists(queue / "q-damaged.json"));
}

TEST(SeedPool, LoadsAQueueWrittenBeforeEntriesKeptAllTheirFeatures) {
  const support::ScratchDir scratch("seed-pool-test");
  const fs::path queue = scratch.path() / "queue";
  {
    campaign::SeedPool pool(queue);
    pool.Offer(Named("old"), {"vec:exp", "template:flex-decoding"});
  }
  // Stop 38's format: no all_features beside the entries, no counts file.
  for (const auto &file : fs::directory_iterator(queue)) {
    if (file.path().filename() == "features-reached.json") {
      fs::remove(file.path());
      continue;
    }
    auto entry = nlohmann::json::parse(std::ifstream(file.path()));
    entry.erase("all_features");
    std::ofstream(file.path()) << entry.dump();
  }
  campaign::SeedPool reloaded(queue);
  EXPECT_EQ(reloaded.Size(), 1u);
  EXPECT_EQ(reloaded.FeaturesSeen(), 2u);
  generate::Random random(3);
  EXPECT_EQ(reloaded.Pick(random)->c.name, "old");
}

} // namespace
} // namespace fuzzer
