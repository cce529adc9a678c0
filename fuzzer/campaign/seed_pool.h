#pragma once

#include "corpus/case.h"
#include "fuzzer/generate/random.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fuzzer::campaign {

// A case that brought codegen features no case before it had: a parent for mutation.
struct PoolEntry {
  std::string id; // "q-" and 16 hex digits of the case's SHA-256
  corpus::Case c;
  std::vector<std::string> new_features; // what it brought
  std::vector<std::string> all_features; // every feature of its TUs
  std::uint64_t picked = 0;              // times chosen as a parent in this process
};

// The feedback's memory: every codegen feature seen (parsers/codegen_features.h) and the cases
// that first brought one, kept in CORPUS/queue/ (one JSON file per case: the case, the
// features it brought) so that the next campaign on the corpus, or --resume, starts from it.
// Thread-safe: workers pick parents while the analysis stage offers finished cases.
class SeedPool {
public:
  // Loads the entries already in `queue_dir` (created when missing); a damaged file is skipped
  // with a warning on stderr, never deleted.
  explicit SeedPool(std::filesystem::path queue_dir);

  // The features of a finished case: those not seen before are returned, and when there are
  // any the case joins the pool (and the queue folder).
  std::vector<std::string> Offer(const corpus::Case &c, const std::set<std::string> &features);

  // A parent, favouring entries whose features few cases reach (the sum of 1/cases over its
  // features: a case alone in reaching something is worth more than one with many common
  // features) and that were picked less; none while empty.
  std::optional<PoolEntry> Pick(generate::Random &random);

  std::size_t Size() const;
  std::size_t FeaturesSeen() const;
  std::set<std::string> Features() const;

private:
  std::filesystem::path queue_dir_;
  mutable std::mutex mutex_;
  std::vector<PoolEntry> entries_;
  std::set<std::string> seen_;
  std::map<std::string, std::uint64_t> reached_by_; // feature -> cases offered that reached it
};

} // namespace fuzzer::campaign
