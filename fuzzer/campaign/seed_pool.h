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
  double seconds = 0;                    // what its run took (0: not known, an older queue file)
  bool finding = false;                  // its run ended in a finding
  std::uint64_t picked = 0;              // times chosen as a parent in this process
  // Its mutants finished in this process: those that brought a feature, and those that ended
  // in a finding and brought none (a parent that reproduces one bug over and over).
  std::uint64_t fruitful_children = 0;
  std::uint64_t failing_children = 0;
};

// How a finished case ran, beside its features.
struct RunSummary {
  double seconds = 0;
  bool finding = false;
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
  // any the case joins the pool (and the queue folder). A mutant's run is also counted for its
  // parent (provenance "parent").
  std::vector<std::string> Offer(const corpus::Case &c, const std::set<std::string> &features,
                                 const RunSummary &run = {});

  // A parent, favouring entries whose features few cases reach (the sum of 1/cases over its
  // features: a case alone in reaching something is worth more than one with many common
  // features), that were picked less, whose mutants brought features rather than the same
  // finding again, and that run fast (AFL's lesson: a queue entry's worth is per second spent);
  // none while empty.
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

// A corpus's queue as files, read whole before a merge writes anything: the entries (file name
// -> text; an unreadable one is left out with a warning, as SeedPool does) and the cases that
// reached each feature.
struct QueueFiles {
  std::map<std::string, std::string> entries;
  std::map<std::string, std::uint64_t> cases_reaching;
};
QueueFiles ReadQueueFiles(const std::filesystem::path &queue_dir);

// Adds to `queue_dir` the entries it lacks and raises each feature's count to at least the
// other's (the shards of a night all count the night before: a sum would count it N times).
// Returns how many entries were added.
std::size_t MergeQueueInto(const QueueFiles &from, const std::filesystem::path &queue_dir);

} // namespace fuzzer::campaign
