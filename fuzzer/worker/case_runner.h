#pragma once

#include "corpus/case.h"
#include "fuzzer/support/tool_paths.h"
#include "fuzzer/worker/worker_client.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <iosfwd>
#include <string>

namespace fuzzer::worker {

// What the driver learnt from running one case, ready to be stored.
struct CaseOutcome {
  std::string status; // "pass", "expected" (raised as the case said it would), "finding"
  std::string kind;   // empty, or an oracle kind: "wrong-result", "exception", "crash", ...
  nlohmann::json result;
};

struct WorkerRunOptions {
  bool eager_only = false; // check the case is valid: run eager only, compile nothing
  std::string test_plant;  // tests only: corrupt the compiled result so the oracle must fire
  std::filesystem::path record_dir; // where kernel calls are recorded; empty: not recorded
};

// Sends one case to the worker and turns its reply, or its death, into an outcome.
CaseOutcome RunCaseOnWorker(Worker &worker, const corpus::Case &c,
                            const std::filesystem::path &cache_dir,
                            std::chrono::milliseconds timeout,
                            const WorkerRunOptions &run_options = {});

// Writes result.json, case.json, commands.json, sources/ and wrappers/ into out_dir.
void WriteCaseArtifacts(const std::filesystem::path &out_dir, const corpus::Case &c,
                        const CaseOutcome &outcome, const nlohmann::json &provenance);

} // namespace fuzzer::worker
