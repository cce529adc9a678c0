#pragma once

#include "corpus/case.h"
#include "fuzzer/campaign/campaign_options.h"
#include "fuzzer/campaign/campaign_stats.h"
#include "fuzzer/campaign/mutation_share.h"
#include "fuzzer/campaign/seed_pool.h"
#include "support/tool_paths.h"

#include <cstdint>

// Where a campaign's cases come from: the generator, or with coverage feedback a mutation of a
// queue case. Apart from the stages (case_stages.h) because it holds the mutation's choices.
namespace fuzzer::campaign {

class CaseSource {
public:
  CaseSource(const CampaignOptions &options, const support::ToolPaths &paths, SeedPool &pool,
             const MutationShare &mutation_share, const ProgressLine &progress)
      : options_(options), paths_(paths), pool_(pool), mutation_share_(mutation_share),
        progress_(progress) {}

  // Case `index`: new from the generator, or, with feedback and a pool, a mutation of a pool
  // case (its donor of subexpressions a pool case or a freshly generated one). Which, and
  // every choice after, comes from (seed, index); the parent is whatever the pool holds then.
  // A fault injected at `index` (tests only) replaces its mask_mod's body.
  corpus::Case Next(std::uint64_t index) const;

private:
  corpus::Case Generated(std::uint64_t index) const;
  corpus::Case Chosen(std::uint64_t index) const;

  const CampaignOptions &options_;
  const support::ToolPaths &paths_;
  SeedPool &pool_;
  const MutationShare &mutation_share_;
  const ProgressLine &progress_;
};

} // namespace fuzzer::campaign
