#pragma once

#include "corpus/surface_table.h"
#include "fuzzer/campaign/campaign_stats.h"

#include <string>

namespace fuzzer::campaign {

// The op-surface table of what a campaign (or a corpus) reached, against the universe it
// recorded (corpus/surface_table.h).
corpus::SurfaceTable SurfaceTableOf(const CampaignStats &stats);

// The table as a picture for report.html: ops down, dtypes across, each cell coloured by the
// paths reached (none, scalar, vector, both) or marked as eager does not support it; with the
// share of supported cells reached and the casts reached.
std::string SurfaceHtml(const corpus::SurfaceTable &table);

} // namespace fuzzer::campaign
