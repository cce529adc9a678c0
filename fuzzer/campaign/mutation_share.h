#pragma once

#include "fuzzer/generate/policy.h"

#include <cstddef>
#include <mutex>

namespace fuzzer::campaign {

// The share of a feedback campaign's cases made by mutation, following what each origin has
// lately brought: new codegen features per second of worker time, generated cases against
// mutated ones. Early, the generator's cases bring features by the dozen and the share stays
// low; once they bring none, mutation takes over, within the policy's bounds
// (p_mutate_min..p_mutate_max; p_mutate until each origin has finished a few cases). Set both
// bounds to one value for a fixed share. Thread-safe.
class MutationShare {
public:
  explicit MutationShare(const generate::GenerationPolicy &policy);

  void Record(bool mutated, std::size_t new_features, double seconds);
  double Share() const;

private:
  struct Yield {
    double features = 0; // decayed: each case of its origin weighs the older ones down
    double seconds = 0;
    std::size_t cases = 0;
  };
  double initial_, low_, high_;
  mutable std::mutex mutex_;
  Yield generated_, mutated_;
};

} // namespace fuzzer::campaign
