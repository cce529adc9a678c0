#pragma once

#include "corpus/case.h"
#include "fuzzer/matrix/kernel_fingerprints.h"
#include "support/shared_options.h"
#include "support/torch_environments.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

// Two torch releases, case by case and kernel by kernel: what fails now that did not before.
namespace workflows {

enum class ReleaseVerdict {
  kSame,               // passes on both
  kRegressed,          // passes on the baseline, fails on the candidate
  kFixed,              // fails on the baseline, passes on the candidate
  kFailingDifferently, // fails on both, with another signature
  kBothFailing,        // fails on both with one signature
  kNotComparable,      // invalid on one of them (its API or knob is not there)
};
std::string_view ReleaseVerdictName(ReleaseVerdict verdict);

// One case on one release.
struct ReleaseRun {
  std::string torch_version;
  std::string status;                     // pass, expected, finding, invalid-case
  std::string signature;                  // of the finding; "" when the case did not fail
  std::vector<std::string> anchors;       // its bug's (corpus::ReleaseAnchors)
  std::string summary;                    // the finding's one line, or why the case is invalid
  std::vector<std::string> config_absent; // the case's Inductor keys this release lacks
  std::vector<fuzzer::matrix::KernelFingerprint> kernels;
  double seconds = 0;
  bool Failed() const { return status == "finding"; }
  bool Invalid() const { return status == "invalid-case"; }
};

ReleaseVerdict ClassifyReleases(const ReleaseRun &baseline, const ReleaseRun &candidate);

struct ReleaseComparison {
  std::string case_name;
  std::string origin; // the case file, or "gen --seed S" and the index
  ReleaseRun baseline;
  ReleaseRun candidate;
  ReleaseVerdict verdict = ReleaseVerdict::kSame;
  fuzzer::matrix::CodegenDelta codegen;
};

struct ReleaseCase {
  corpus::Case c;
  std::string origin;
};

struct ReleaseCompareOptions {
  support::TorchEnvironment baseline;
  support::TorchEnvironment candidate;
  std::filesystem::path worker_executable;
  bool confine_workers = true; // see support::ToolPaths
  std::filesystem::path scratch;
  std::chrono::seconds case_timeout{support::options::CaseTimeout::Default()};
};

// Runs every case on both releases, one warm worker per release, the two side by side.
// `progress` sees each comparison as it is made.
std::vector<ReleaseComparison>
CompareReleases(const std::vector<ReleaseCase> &cases, const ReleaseCompareOptions &options,
                const std::function<void(std::size_t index, const ReleaseComparison &)> &progress);

// The kernels of every TU a worker's result captured, in capture order.
std::vector<fuzzer::matrix::KernelFingerprint> CapturedKernels(const nlohmann::json &result);

nlohmann::json ReleaseComparisonToJson(const ReleaseComparison &comparison);

} // namespace workflows
