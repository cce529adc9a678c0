// The feedback's seed pool (fuzzer/campaign/seed_pool.h): which cases join it, what it keeps in
// CORPUS/queue/, and which parents it favours; and the share of cases mutation makes.
#include "fuzzer/campaign/mutation_share.h"
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

// A mutant that ended in a finding and brought nothing counts against its parent; one that
// brought a feature counts for it. A parent whose mutants reproduce one bug loses its turns.
TEST(SeedPool, FavoursParentsWhoseMutantsBringFeaturesOverThoseThatFailAgain) {
  const support::ScratchDir scratch("seed-pool-test");
  campaign::SeedPool pool(scratch.path() / "queue");
  pool.Offer(Named("fruitful"), {"vec:exp"});
  pool.Offer(Named("failing"), {"vec:log"});
  std::map<std::string, std::string> id_of;
  generate::Random random(5);
  for (int i = 0; i < 20 && id_of.size() < 2; ++i) {
    const auto entry = pool.Pick(random);
    id_of[entry->c.name] = entry->id;
  }
  ASSERT_EQ(id_of.size(), 2u);
  const auto mutant = [&](const std::string &parent) {
    corpus::Case c = Named("mutant of " + parent);
    c.provenance["origin"] = "mutation";
    c.provenance["parent"] = id_of.at(parent);
    return c;
  };
  for (int i = 0; i < 4; ++i) {
    pool.Offer(mutant("failing"), {"vec:log"}, {.seconds = 30, .finding = true});
    pool.Offer(mutant("fruitful"), {"vec:exp", "vec:sin" + std::to_string(i)}, {.seconds = 30});
  }
  const auto counts = PickCounts(pool, 300);
  EXPECT_GT(counts.at("fruitful"), 5 * counts.at("failing"))
      << "fruitful " << counts.at("fruitful") << ", failing " << counts.at("failing");
}

// Per second spent: of two entries alike but for their run time, the fast one is picked more;
// the time is kept in the queue, so a resumed campaign weighs them alike.
TEST(SeedPool, FavoursFastParentsAndKeepsTheirTimeInTheQueue) {
  const support::ScratchDir scratch("seed-pool-test");
  const fs::path queue = scratch.path() / "queue";
  {
    campaign::SeedPool pool(queue);
    pool.Offer(Named("fast"), {"vec:exp"}, {.seconds = 10});
    pool.Offer(Named("slow"), {"vec:log"}, {.seconds = 80});
    pool.Offer(Named("middle"), {"vec:cos"}, {.seconds = 20});
    const auto counts = PickCounts(pool, 300);
    EXPECT_GT(counts.at("fast"), 3 * counts.at("slow"))
        << "fast " << counts.at("fast") << ", slow " << counts.at("slow");
  }
  campaign::SeedPool reloaded(queue);
  const auto counts = PickCounts(reloaded, 300);
  EXPECT_GT(counts.at("fast"), 3 * counts.at("slow"));
}

generate::GenerationPolicy ShareBounds(double initial, double low, double high) {
  generate::GenerationPolicy policy = generate::GenerationPolicy::Default();
  policy.Override(
      {{"numbers", {{"p_mutate", initial}, {"p_mutate_min", low}, {"p_mutate_max", high}}}});
  return policy;
}

// p_mutate until each origin has a measure; then the origin that brings more features per
// second gets the larger share, within the bounds.
TEST(MutationShare, FollowsWhatEachOriginBringsPerSecond) {
  campaign::MutationShare share(ShareBounds(0.7, 0.2, 0.9));
  EXPECT_DOUBLE_EQ(share.Share(), 0.7);
  for (int i = 0; i < 4; ++i)
    share.Record(false, 40, 20); // a young campaign: generated cases bring features by the dozen
  EXPECT_DOUBLE_EQ(share.Share(), 0.7) << "no mutated case measured yet";
  for (int i = 0; i < 4; ++i)
    share.Record(true, 1, 40);
  EXPECT_DOUBLE_EQ(share.Share(), 0.2);
  for (int i = 0; i < 200; ++i) { // the generator saturates, mutants keep bringing a few
    share.Record(false, 0, 30);
    share.Record(true, 2, 40);
  }
  EXPECT_DOUBLE_EQ(share.Share(), 0.9);
  for (int i = 0; i < 30; ++i)
    share.Record(false, 3, 30);
  const double middle = share.Share();
  EXPECT_GT(middle, 0.2);
  EXPECT_LT(middle, 0.9);
}

TEST(MutationShare, EqualBoundsFixTheShare) {
  campaign::MutationShare share(ShareBounds(0.5, 0.5, 0.5));
  for (int i = 0; i < 10; ++i) {
    share.Record(false, 50, 10);
    share.Record(true, 0, 60);
  }
  EXPECT_DOUBLE_EQ(share.Share(), 0.5);
}

} // namespace
} // namespace fuzzer
