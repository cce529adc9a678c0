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

// The random streams of a case, each seeded with CaseSeed ^ its salt. A stream of its own per
// part of the case means that draws added to one part move no draw of another, so a case that
// does not use the new part is the case the same seed gave before (generator.h's version says
// when that is not so). Changing a salt changes what every seed generates
// (tests/generator_test.cpp's golden hashes). An API drawn on its own has a stream of its own, its
// row's salt (fuzzer/generate/api_row.h, apis/NAME.cpp); Apis.EveryStreamIsItsOwn checks that
// every salt, these and the rows', differs from the others.
enum class RandomStream : std::uint64_t {
  kStructure = 0,                        // the case's structure and values (CaseSeed itself)
  kCallSequence = 0x9e3779b97f4a7c15ULL, // the calls after the first: how many, what each changes
  kFamily = 0x5851f42d4c957f2dULL,       // the program families' draws (optional knobs, ...)
  kReach = 0x47a1c0de47a1c0deULL,        // issue 47's families (reach_draws.cpp)
  kOpProgram = 0x0b5e55ed0b5e55edULL,    // whether the case is an op program, and which
  kCompilePath = 0xa07100000000a071ULL,  // torch.compile or AOTInductor, drawn last
  kMutation = 0x6d75746174696f6eULL,     // a mutation of a queue case ("mutation")
  kPoolChoice = 0x706f6f6cULL,           // the campaign's generate-or-mutate choice ("pool")
};

// The generator of `stream` for case `index` of the run started from `seed`.
inline Random StreamOf(std::uint64_t seed, std::uint64_t index, RandomStream stream) {
  return Random(CaseSeed(seed, index) ^ static_cast<std::uint64_t>(stream));
}

} // namespace fuzzer::generate
