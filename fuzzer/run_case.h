#pragma once

#include "fuzzer/case.h"
#include "fuzzer/tool_paths.h"
#include "fuzzer/worker_client.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <iosfwd>
#include <string>

namespace fuzzer {

struct RunCaseOptions {
  std::filesystem::path case_file;
  std::filesystem::path out_dir;
  std::chrono::seconds timeout{600};
  std::string command_line; // recorded in result.json
};

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
CaseOutcome RunCaseOnWorker(Worker &worker, const Case &c, const std::filesystem::path &cache_dir,
                            std::chrono::milliseconds timeout,
                            const WorkerRunOptions &run_options = {});

// Writes result.json, case.json, commands.json, sources/ and wrappers/ into out_dir.
void WriteCaseArtifacts(const std::filesystem::path &out_dir, const Case &c,
                        const CaseOutcome &outcome, const nlohmann::json &provenance);

// `inductor-fuzz run-case`: exit 0 pass, 1 finding. Throws InputError for unusable input and
// WorkerStartError when no worker can run it (both exit 2).
int RunCaseCommand(const RunCaseOptions &options, const ToolPaths &paths, std::ostream &out);

} // namespace fuzzer
