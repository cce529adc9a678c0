#pragma once

#include "corpus/case.h"
#include "corpus/finding.h"
#include "corpus/finding_store.h"
#include "corpus/matrix_record.h"
#include "fuzzer/campaign/campaign_options.h"
#include "fuzzer/campaign/campaign_stats.h"
#include "fuzzer/campaign/case_in_flight.h"
#include "fuzzer/campaign/journal.h"
#include "fuzzer/campaign/probe.h"
#include "fuzzer/worker/case_runner.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

// The end of a case in a campaign: its findings stored in the corpus, its journal entry, and
// what it adds to the campaign's counts: the store stage's (case_stages.cpp) own parts.
namespace fuzzer::campaign {

// What storing a finished case made: its journal entry, and an event per finding stored with
// the ids of the findings of the same case it was joined with (the same bug).
struct StoredCase {
  JournalEntry entry;
  std::vector<FindingEvent> events;
  std::vector<std::vector<std::string>> joined; // by event
};

// Stores the case's findings, then the one its crash hid (the rerun's case and files), each
// with its run record, repro.py and, with the matrix, matrix.json. A disk-full fault injected
// at the case's index throws as a full disk would, before anything is written.
StoredCase StoreFinishedCase(const CaseInFlight &ran, const CampaignOptions &options,
                             const std::string &torch_version, corpus::FindingStore &store);

// The stored case in the campaign's counts by kind and status, its bugs and hits, and what its
// stages ran for it (the caller holds the lock that guards `stats`).
void CountStoredCase(const CaseInFlight &ran, const StoredCase &stored, std::uint64_t seed,
                     CampaignStats &stats);

} // namespace fuzzer::campaign
