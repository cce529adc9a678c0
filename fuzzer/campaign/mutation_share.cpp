#include "fuzzer/campaign/mutation_share.h"

#include <algorithm>

namespace fuzzer::campaign {

namespace {
// A case of an origin brings the weight of that origin's earlier cases down by this factor: a
// half-life of under 7 cases, so that the share follows a generator that has saturated (with
// 0.97, the dozens of features its first cases brought held the share near 60% for 30 minutes
// after its cases stopped bringing any).
constexpr double kDecay = 0.9;
// Each origin finishes this many cases before its yield is trusted.
constexpr std::size_t kCasesBeforeMeasure = 4;
// A prior of one feature a minute for both origins, so that one lucky case does not decide.
constexpr double kPriorFeatures = 1.0, kPriorSeconds = 60.0;
} // namespace

MutationShare::MutationShare(const generate::GenerationPolicy &policy)
    : initial_(policy.Number("p_mutate")), low_(policy.Number("p_mutate_min")),
      high_(std::max(policy.Number("p_mutate_max"), policy.Number("p_mutate_min"))) {}

void MutationShare::Record(bool mutated, std::size_t new_features, double seconds) {
  std::lock_guard lock(mutex_);
  Yield &yield = mutated ? mutated_ : generated_;
  yield.features = yield.features * kDecay + static_cast<double>(new_features);
  yield.seconds = yield.seconds * kDecay + std::max(seconds, 0.0);
  ++yield.cases;
}

double MutationShare::Share() const {
  std::lock_guard lock(mutex_);
  if (generated_.cases < kCasesBeforeMeasure || mutated_.cases < kCasesBeforeMeasure)
    return initial_;
  const auto rate = [](const Yield &yield) {
    return (yield.features + kPriorFeatures) / (yield.seconds + kPriorSeconds);
  };
  const double mutated = rate(mutated_), generated = rate(generated_);
  return std::clamp(mutated / (mutated + generated), low_, high_);
}

} // namespace fuzzer::campaign
