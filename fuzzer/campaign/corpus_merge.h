#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace fuzzer::campaign {

// What `corpus merge` did.
struct MergeOutcome {
  std::size_t hits_added = 0;
  std::size_t findings = 0;       // in the merged corpus afterwards
  std::size_t queue_added = 0;    // coverage-feedback entries (CORPUS/queue/)
  std::size_t journals = 0;       // distinct campaign journals merged (CORPUS/campaigns/)
  std::vector<std::string> notes; // one line per corpus migrated from an older signature version
};

// Merges whole corpora into `into` (made when missing): every finding with its hits, smallest
// record, delivery, reduction and baselines; the coverage queue and its feature counts; the
// campaign journals, so that the merged corpus is the next night's starting point and a shard's
// `--resume` history survives. Every source is checked and read before anything is written: a
// folder that is not a corpus, `into` itself among the sources, a damaged finding, or two
// journals of one seed run under another policy, generator or shard count (their case i differs,
// and a hit is keyed by seed and i) are an InputError and nothing is merged. Sources an older
// signature version wrote are migrated first (in place, as opening them does).
MergeOutcome MergeCorpora(const std::vector<std::filesystem::path> &sources,
                          const std::filesystem::path &into);

} // namespace fuzzer::campaign
