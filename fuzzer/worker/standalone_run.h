#pragma once

#include "corpus/finding.h"

#include <chrono>
#include <filesystem>
#include <string>

namespace fuzzer::worker {

struct StandaloneRun {
  bool reproduces = false;
  bool passed = false; // exited 0 (printed PASS): not failing at all
  std::string how;     // what the run did, in one line
  std::string output;  // what it printed (the last run), for a bug report: its end, and a
                       // compile error from its start
  unsigned runs = 0;
};

// Runs the script with `python` (the venv's) and judges its failure against the signature by
// its kind's own judge (`kind`, the kind of the finding the signature is of; the caller knows
// it, or reads it once from the signature's text where text is all there is): the
// same signal for a crash, the innermost exception's class for an exception, a failed
// assertion for a wrong result, no end for a timeout, for a memory error the sanitizer's report
// in a kernel (the script's prelude runs it sanitized; its reports and Inductor's cache are
// sent to a scratch folder and read as the worker's are). A flaky failure (a crash the case showed
// only some of the time) gets up to `attempts` runs; `runs` says how many it took.
StandaloneRun RunStandalone(const std::filesystem::path &script,
                            const std::filesystem::path &python, corpus::FindingKind kind,
                            const std::string &signature, std::chrono::seconds timeout,
                            unsigned attempts = 1);

} // namespace fuzzer::worker
