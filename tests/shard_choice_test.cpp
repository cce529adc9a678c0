// `fuzz --shard auto`: the shard from each engine's own variables, and every way they can be
// wrong (fuzzer/campaign/shard_choice.h). No torch: seconds.
#include "fuzzer/campaign/shard_choice.h"
#include "support/errors.h"

#include <gtest/gtest.h>

#include <map>

namespace fuzzer::campaign {
namespace {

using Variables = std::map<std::string, std::string>;

EnvironmentLookup From(const Variables &variables) {
  return [variables](const std::string &name) -> std::optional<std::string> {
    if (const auto found = variables.find(name); found != variables.end())
      return found->second;
    return std::nullopt;
  };
}

ShardChoice Auto(const Variables &variables, std::optional<unsigned> count = std::nullopt) {
  return ChooseShard("auto", count, From(variables));
}

// The InputError's message, or "" when the choice succeeds.
std::string Refusal(const Variables &variables, std::optional<unsigned> count = std::nullopt) {
  try {
    Auto(variables, count);
  } catch (const support::InputError &error) {
    return error.what();
  }
  return "";
}

void ExpectShard(const ShardChoice &choice, unsigned index, unsigned count) {
  EXPECT_EQ(choice.shard.index, index) << choice.source;
  EXPECT_EQ(choice.shard.count, count) << choice.source;
}

TEST(ShardChoice, AnExplicitShardIsParsedStrictly) {
  ExpectShard(ChooseShard("2/8", std::nullopt, From({})), 2, 8);
  for (const std::string bad : {"8/8", "2/0", "2", "-1/4", "2/8x", " 2/8", "1.0/2", "a/b", ""})
    EXPECT_THROW(ChooseShard(bad, std::nullopt, From({})), support::InputError) << bad;
  EXPECT_THROW(ChooseShard("2/8", 8, From({})), support::InputError)
      << "--shard-count belongs to --shard auto";
}

TEST(ShardChoice, KubernetesIndexedJobTakesTheCountFromTheOptionOrTheVariable) {
  const auto choice = Auto({{"JOB_COMPLETION_INDEX", "3"}}, 8);
  ExpectShard(choice, 3, 8);
  EXPECT_NE(choice.source.find("Kubernetes"), std::string::npos) << choice.source;
  EXPECT_NE(choice.source.find("JOB_COMPLETION_INDEX=3"), std::string::npos) << choice.source;
  ExpectShard(Auto({{"JOB_COMPLETION_INDEX", "0"}, {"INDUCTOR_FUZZ_SHARD_COUNT", "4"}}), 0, 4);
  EXPECT_NE(Refusal({{"JOB_COMPLETION_INDEX", "3"}}).find("--shard-count"), std::string::npos);
  EXPECT_NE(Refusal({{"JOB_COMPLETION_INDEX", "8"}}, 8).find("outside the count 8"),
            std::string::npos);
  EXPECT_NE(Refusal({{"JOB_COMPLETION_INDEX", "1"}, {"INDUCTOR_FUZZ_SHARD_COUNT", "4"}}, 8)
                .find("disagree"),
            std::string::npos);
}

TEST(ShardChoice, SlurmArraysCountFromTheirMinimumByTheirStep) {
  ExpectShard(Auto({{"SLURM_ARRAY_TASK_ID", "0"},
                    {"SLURM_ARRAY_TASK_MIN", "0"},
                    {"SLURM_ARRAY_TASK_MAX", "2"},
                    {"SLURM_ARRAY_TASK_COUNT", "3"}}),
              0, 3);
  // --array=1-8: task 5 is the fifth shard of eight.
  ExpectShard(Auto({{"SLURM_ARRAY_TASK_ID", "5"},
                    {"SLURM_ARRAY_TASK_MIN", "1"},
                    {"SLURM_ARRAY_TASK_MAX", "8"}}),
              4, 8);
  // --array=10-20:5: tasks 10, 15 and 20.
  ExpectShard(Auto({{"SLURM_ARRAY_TASK_ID", "15"},
                    {"SLURM_ARRAY_TASK_MIN", "10"},
                    {"SLURM_ARRAY_TASK_MAX", "20"},
                    {"SLURM_ARRAY_TASK_STEP", "5"},
                    {"SLURM_ARRAY_TASK_COUNT", "3"}}),
              1, 3);
  // --array=1,5,7: three tasks that are no range.
  EXPECT_NE(Refusal({{"SLURM_ARRAY_TASK_ID", "5"},
                     {"SLURM_ARRAY_TASK_MIN", "1"},
                     {"SLURM_ARRAY_TASK_MAX", "7"},
                     {"SLURM_ARRAY_TASK_COUNT", "3"}})
                .find("not one range"),
            std::string::npos);
  EXPECT_NE(Refusal({{"SLURM_ARRAY_TASK_ID", "5"}}).find("SLURM_ARRAY_TASK_MIN is not set"),
            std::string::npos);
  EXPECT_NE(Refusal({{"SLURM_ARRAY_TASK_ID", "five"}, {"SLURM_ARRAY_TASK_MIN", "0"}})
                .find("not a whole number"),
            std::string::npos);
  EXPECT_NE(Refusal({{"SLURM_ARRAY_TASK_ID", "2"},
                     {"SLURM_ARRAY_TASK_MIN", "3"},
                     {"SLURM_ARRAY_TASK_MAX", "5"}})
                .find("not a task"),
            std::string::npos);
  EXPECT_NE(Refusal({{"SLURM_ARRAY_TASK_ID", "1"},
                     {"SLURM_ARRAY_TASK_MIN", "0"},
                     {"SLURM_ARRAY_TASK_MAX", "2"}},
                    4)
                .find("disagrees"),
            std::string::npos);
}

TEST(ShardChoice, PyTorchCiCountsFromOne) {
  const auto choice = Auto({{"SHARD_NUMBER", "1"}, {"NUM_TEST_SHARDS", "3"}});
  ExpectShard(choice, 0, 3);
  ExpectShard(Auto({{"SHARD_NUMBER", "3"}, {"NUM_TEST_SHARDS", "3"}}), 2, 3);
  EXPECT_NE(Refusal({{"SHARD_NUMBER", "0"}, {"NUM_TEST_SHARDS", "3"}}).find("counts from 1"),
            std::string::npos);
  EXPECT_NE(Refusal({{"SHARD_NUMBER", "4"}, {"NUM_TEST_SHARDS", "3"}}).find("past"),
            std::string::npos);
  EXPECT_NE(Refusal({{"SHARD_NUMBER", "2"}}).find("NUM_TEST_SHARDS is not set"), std::string::npos);
}

TEST(ShardChoice, TheExplicitPairComesFirstAndEnginesMustAgree) {
  // A GitHub Actions matrix job on a self-hosted Kubernetes runner: both say the same.
  const auto choice = Auto({{"INDUCTOR_FUZZ_SHARD_INDEX", "1"},
                            {"INDUCTOR_FUZZ_SHARD_COUNT", "4"},
                            {"JOB_COMPLETION_INDEX", "1"}});
  ExpectShard(choice, 1, 4);
  EXPECT_NE(choice.source.find("explicit pair"), std::string::npos) << choice.source;
  const auto disagree = Refusal({{"INDUCTOR_FUZZ_SHARD_INDEX", "1"},
                                 {"INDUCTOR_FUZZ_SHARD_COUNT", "4"},
                                 {"SHARD_NUMBER", "1"},
                                 {"NUM_TEST_SHARDS", "4"}});
  EXPECT_NE(disagree.find("but the PyTorch CI"), std::string::npos) << disagree;
  EXPECT_NE(Refusal({{"INDUCTOR_FUZZ_SHARD_INDEX", "0"}}).find("count is unknown"),
            std::string::npos);
  EXPECT_NE(Refusal({{"INDUCTOR_FUZZ_SHARD_INDEX", "0"}, {"INDUCTOR_FUZZ_SHARD_COUNT", "0"}})
                .find("not between 1"),
            std::string::npos);
  EXPECT_NE(Refusal({}).find("no engine's shard variables"), std::string::npos);
  EXPECT_NE(Refusal({{"SLURM_JOB_ID", "12"}}).find("no engine's shard variables"),
            std::string::npos)
      << "a Slurm job that is not an array has no shard";
}

} // namespace
} // namespace fuzzer::campaign
