#pragma once

#include "corpus/case.h"
#include "corpus/finding.h"
#include "fuzzer/worker/worker_client.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace fuzzer::worker {

// What the driver learnt from running one case, ready to be stored.
struct CaseOutcome {
  corpus::CaseStatus status = corpus::CaseStatus::kPass;
  std::optional<corpus::Finding> finding; // set exactly when status is kFinding
  // The worker's result as it replied (captured builds, wrappers, recordings, oracle data),
  // with "status", and "kind" and "signature" of the finding.
  nlohmann::json result;
  std::string_view Status() const { return corpus::StatusName(status); }
  std::string_view Kind() const { return finding ? corpus::KindName(finding->kind) : ""; }
};

struct WorkerRunOptions {
  bool eager_only = false; // check the case is valid: run eager only, compile nothing
  std::string test_plant;  // tests only: corrupt the compiled result so the oracle must fire
  std::filesystem::path record_dir; // where kernel calls are recorded; empty: not recorded
  // Compiler outputs by content, shared by the cases of one campaign (capture.py's BuildCache);
  // empty: every build runs its compiler.
  std::filesystem::path build_cache;
};

// The request a worker runs a case by: the case, the Inductor config and compile arguments its
// knobs give. `gen --requests` writes these for the portable capture, which sends them as is.
nlohmann::json RunRequest(const corpus::Case &c);

// `folder` made absolute, or, when its path holds a character a compiler command would split
// or mangle (a space, a quote), a symlink to it under the temporary folder whose path holds
// none: the name to hand Inductor as its cache folder.
std::filesystem::path CompilerSafePath(const std::filesystem::path &folder);

// Sends one case to the worker and turns its reply, or its death, into an outcome. A worker
// that dies, hangs or answers with something that is not a reply makes a crash or timeout
// finding of the case; it never throws for what the case did.
CaseOutcome RunCaseOnWorker(Worker &worker, const corpus::Case &c,
                            const std::filesystem::path &cache_dir,
                            std::chrono::milliseconds timeout,
                            const WorkerRunOptions &run_options = {});

// What a worker's reply (or its death) says of a case: the outcome RunCaseOnWorker returns,
// made from a reply however it was got (here, or by the portable capture on another machine).
// record_dir: where the worker recorded the case's kernel calls and journalled its builds.
CaseOutcome OutcomeOfReply(const corpus::Case &c, WorkerReply reply,
                           const std::filesystem::path &record_dir);

// The code path Inductor took for a case, read from the C++ it captured (docs/signature.md):
// which template ("flex-prefill", "flex-decoding"), else "generic" kernels, or "none" when
// nothing was built; which wrapper ("python", "cpp_wrapper", "aoti"); "static" or "dynamic"
// shapes. Wrong results and crashes name it in their essence.
struct CodePath {
  std::string template_kind;
  std::string wrapper;
  std::string shapes;
};
CodePath CodePathOf(const corpus::Case &c, const nlohmann::json &result);

// The finding a worker's result describes, or none: a kind of kReplyReaders's (wrong-result,
// exception, compile-error) by its reader; any other by the reply's own "facts" ([name, value]
// pairs after the API), "summary" and "detail". A malformed fact value is a FormatError.
std::optional<corpus::Finding> FindingOfResult(const corpus::Case &c, const nlohmann::json &result);

} // namespace fuzzer::worker
