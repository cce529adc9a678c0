#pragma once

#include "corpus/finding_store.h"
#include "fuzzer/campaign/campaign_options.h"
#include "fuzzer/campaign/campaign_stats.h"
#include "fuzzer/campaign/case_in_flight.h"
#include "fuzzer/campaign/case_source.h"
#include "fuzzer/campaign/journal.h"
#include "fuzzer/campaign/mutation_share.h"
#include "fuzzer/campaign/probe.h"
#include "fuzzer/campaign/seed_pool.h"
#include "fuzzer/worker/worker_client.h"
#include "support/tool_paths.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace parsers {
class Analyzer;
}
namespace fuzzer::matrix {
class BuildCache;
class PrefixCache;
} // namespace fuzzer::matrix

// A case's journey through a campaign as a table of stages, as the reducer's passes and the
// finding kinds are tables: each row names the stage (its key in the time table), says when it
// applies and what it does to the case in flight. The campaign (campaign.cpp) only runs the
// rows in order, the worker rows on the case's worker and the analysis rows on the thread that
// reads a case's TUs while its worker starts the next case. A new stage is a function here and
// its row.
namespace fuzzer::campaign {

// One worker of the campaign's pool and what its monitor knows of it.
struct WorkerSlot {
  std::unique_ptr<worker::Worker> worker;
  std::atomic<int> pid{0}; // of the process serving the current case's run, 0 between
  std::atomic<bool> killed_for_memory{false};
  unsigned cases_on_process = 0;
  std::filesystem::path scratch;
};

// The campaign's counts and the lock that guards them, with the campaign's clock.
class CampaignTally {
public:
  template <typename Change> void Update(Change &&change) {
    std::lock_guard lock(mutex_);
    change(stats_);
  }
  std::mutex &Mutex() const { return mutex_; }
  CampaignStats &Stats() { return stats_; } // under Mutex()
  const CampaignStats &Stats() const { return stats_; }
  double Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }
  void Start() { started_ = std::chrono::steady_clock::now(); }

private:
  mutable std::mutex mutex_;
  CampaignStats stats_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// What the stages share across cases, owned by the campaign; each part is safe to use from
// every job (the analyzer only from the analysis thread).
struct CampaignServices {
  const support::ToolPaths &paths;
  const CaseSource &cases;
  ProbeMemo &probe_memo;
  matrix::BuildCache &build_cache;
  matrix::PrefixCache &prefix_cache;
  parsers::Analyzer &analyzer;
  SeedPool &pool;
  MutationShare &mutation_share;
  corpus::FindingStore &store;
  Journal &journal;
  const std::string &torch_version;
  CampaignTally &tally;
};

// What a stage runs with: the campaign's options, its services, and for a worker stage the
// case's worker.
struct StageContext {
  const CampaignOptions &options;
  CampaignServices &services;
  WorkerSlot *slot = nullptr; // null on the analysis thread
};

enum class StageThread {
  kWorker,   // on the case's worker, one case at a time per job
  kAnalysis, // on the campaign's analysis thread, in the order the workers finished
};

struct CaseStage {
  std::string_view name; // the time table's key (time_by_family), when timed
  std::string_view does;
  StageThread thread;
  bool timed; // untimed: bookkeeping whose time is part of the case's wall time only
  bool (*applies)(const CaseInFlight &, const CampaignOptions &);
  void (*run)(CaseInFlight &, const StageContext &);
};

// Every stage, in the order a case meets them.
const std::vector<CaseStage> &CaseStages();

// The resident memory of a process (0 when it is gone).
std::size_t ResidentBytes(int pid);

} // namespace fuzzer::campaign
