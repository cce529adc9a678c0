#pragma once

#include "fuzzer/campaign/campaign_options.h"
#include "fuzzer/campaign/campaign_stats.h"
#include "support/tool_paths.h"

#include <atomic>

// The nightly campaign's loop: cases taken from the seed sequence (or the shard of it), each
// sent through the table of stages (case_stages.h) on a pool of warm workers, with a monitor
// that kills a worker past its memory and prints progress. What a campaign is told is
// campaign_options.h; what it counts, campaign_stats.h.
namespace fuzzer::campaign {

// Generates the campaign's cases, runs each on a pool of warm workers through every oracle,
// stores each finding once per signature in the corpus, and journals every finished case so
// that --resume continues where a killed campaign stopped. `stop` ends it early (Ctrl-C):
// cases in flight finish, none is started.
CampaignStats RunCampaign(const CampaignOptions &options, const support::ToolPaths &paths,
                          const std::atomic<bool> &stop, const ProgressLine &progress);

} // namespace fuzzer::campaign
