#pragma once

#include "corpus/case.h"
#include "corpus/finding.h"
#include "corpus/matrix_record.h"
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

// A case on its journey through a campaign's stages (case_stages.h): each stage reads what the
// stages before it left here and adds its own part, up to the corpus and the journal.
namespace fuzzer::campaign {

// What a case's stages ran for it beyond the case itself, added to the campaign's counts
// when the case is stored.
struct StageCounts {
  std::uint64_t sanitized_reruns = 0;    // the crash run again with the sanitizers
  std::uint64_t probe_reruns = 0;        // runs of the probe
  std::uint64_t probe_reruns_spared = 0; // probe reruns an earlier probe showed irrelevant
  std::uint64_t revealed_by_probe = 0;   // a wrong result its crash hid, shown by the probe
  std::uint64_t matrix_cases = 0;        // rebuilt on the compiler matrix
  std::uint64_t matrix_builds = 0;       // TU x compiler builds that took
  std::uint64_t build_cache_hits = 0;
  std::uint64_t runtime_replays = 0; // builds whose recorded calls were replayed
};

struct CaseInFlight {
  std::uint64_t index = 0;
  corpus::Case c;
  std::filesystem::path case_dir;
  worker::CaseOutcome outcome;
  // The campaign killed the worker for its memory (the monitor), not a signal of the case's own.
  bool killed_for_memory = false;
  std::vector<corpus::Finding> findings;
  // The crash the sanitizer rerun explained (stored as its memory errors), probed only for what
  // it hid; and what those memory errors explain (the crash's evidence).
  std::optional<corpus::Finding> explained_crash;
  nlohmann::json evidence = nlohmann::json::array();
  std::optional<RevealedRun> revealed;
  std::optional<corpus::MatrixRecord> matrix;
  std::size_t resident = 0;              // of the worker right after the run
  double seconds = 0;                    // generation to the last worker stage
  std::map<std::string, double> stages;  // its wall time by stage (StageTimer)
  std::set<std::string> features;        // codegen features of its TUs and surface cells
  std::vector<std::string> new_features; // of those, the ones new to the corpus's queue
  StageCounts counts;
};

} // namespace fuzzer::campaign
