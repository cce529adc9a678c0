#pragma once

#include <cstdint>
#include <vector>

namespace fuzzer::generate {

// A seeded generator whose every draw is defined here (splitmix64 and integer arithmetic), so a
// seed gives the same case with any standard library on any machine; <random>'s distributions
// do not promise that. Passed explicitly, never global.
class Random {
public:
  explicit Random(std::uint64_t seed) : state_(seed) {}

  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n), without modulo bias.
  std::uint64_t Below(std::uint64_t n) {
    if (n <= 1)
      return 0;
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t value;
    do
      value = Next();
    while (value >= limit);
    return value % n;
  }

  std::int64_t Between(std::int64_t low, std::int64_t high) { // inclusive
    return low + static_cast<std::int64_t>(Below(static_cast<std::uint64_t>(high - low) + 1));
  }

  // True with probability p, compared on a 53-bit grid so the threshold is exact.
  bool Chance(double p) { return static_cast<double>(Next() >> 11) * 0x1.0p-53 < p; }

  // An index drawn in proportion to non-negative weights; all-zero weights give index 0.
  std::size_t Weighted(const std::vector<double> &weights) {
    double total = 0;
    for (double w : weights)
      total += w;
    if (total <= 0)
      return 0;
    double point = static_cast<double>(Next() >> 11) * 0x1.0p-53 * total;
    for (std::size_t i = 0; i < weights.size(); ++i) {
      if (point < weights[i])
        return i;
      point -= weights[i];
    }
    return weights.size() - 1;
  }

  template <typename T> const T &Pick(const std::vector<T> &items) {
    return items[Below(items.size())];
  }

private:
  std::uint64_t state_;
};

// The seed of case `index` in a run started from `seed`: independent streams per case, so
// case i is the same whatever --count is and whichever shard makes it.
inline std::uint64_t CaseSeed(std::uint64_t seed, std::uint64_t index) {
  Random mix(seed ^ (index * 0xd1b54a32d192ed03ULL));
  mix.Next();
  return mix.Next();
}

} // namespace fuzzer::generate
