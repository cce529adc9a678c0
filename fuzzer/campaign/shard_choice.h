#pragma once

#include "fuzzer/campaign/journal.h"

#include <functional>
#include <optional>
#include <string>

namespace fuzzer::campaign {

// Reads one environment variable: none when it is unset. The campaign passes std::getenv; tests
// pass a map.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string &name)>;
EnvironmentLookup ProcessEnvironment();

// The shard a campaign runs and where it came from, for the line the campaign starts with.
struct ShardChoice {
  Shard shard;
  std::string source; // "--shard 2/8", "Slurm array (SLURM_ARRAY_TASK_ID=5, ...)"
};

// `--shard I/N`, or `--shard auto`: the index and count from the engine that started this
// process, the first of these whose index variable is set:
//   INDUCTOR_FUZZ_SHARD_INDEX / INDUCTOR_FUZZ_SHARD_COUNT   an explicit pair (a GitHub Actions
//                                                           matrix sets them from `strategy`)
//   JOB_COMPLETION_INDEX + the count                        a Kubernetes Indexed Job
//   SLURM_ARRAY_TASK_ID against SLURM_ARRAY_TASK_MIN, _MAX, _STEP or _COUNT   a Slurm array
//   SHARD_NUMBER / NUM_TEST_SHARDS, counted from 1          PyTorch's CI
// `count` (--shard-count) gives the count where the engine has none (Kubernetes), and must agree
// with it where it has one. Engines whose variables are set and disagree, a variable that is not
// a number, an index outside its count, or none set: an InputError naming the variables.
ShardChoice ChooseShard(const std::string &spec, std::optional<unsigned> count,
                        const EnvironmentLookup &environment);

} // namespace fuzzer::campaign
