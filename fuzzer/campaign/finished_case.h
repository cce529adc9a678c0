#pragma once

#include "corpus/case.h"
#include "corpus/finding.h"
#include "corpus/finding_store.h"
#include "corpus/matrix_record.h"
#include "fuzzer/campaign/campaign.h"
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
// what it adds to the campaign's counts. Apart from the loop that runs the cases (campaign.cpp),
// which hands each finished case here from its analysis stage.
namespace fuzzer::campaign {

// A case the worker is done with, on its way to analysis and the corpus.
struct RanCase {
  corpus::Case c;
  std::uint64_t index = 0;
  worker::CaseOutcome outcome;
  std::vector<corpus::Finding> findings;
  nlohmann::json evidence = nlohmann::json::array(); // a crash the memory errors explain
  std::filesystem::path case_dir;
  std::optional<corpus::MatrixRecord> matrix;
  std::optional<RevealedRun> revealed;
  std::size_t resident = 0;
  double seconds = 0;
  std::map<std::string, double> stages; // its wall time by stage (StageTimer)
  std::set<std::string> features;       // codegen features of its TUs
};

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
StoredCase StoreFinishedCase(const RanCase &ran, const std::vector<std::string> &new_features,
                             const CampaignOptions &options, const std::string &torch_version,
                             corpus::FindingStore &store);

// The stored case in the campaign's counts by kind and status, its bugs and hits (the caller
// holds the lock that guards `stats`).
void CountStoredCase(const RanCase &ran, const StoredCase &stored, std::uint64_t seed,
                     CampaignStats &stats);

} // namespace fuzzer::campaign
