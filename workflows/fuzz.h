#pragma once

#include "support/shared_options.h"
#include "support/tool_paths.h"

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace workflows {

// The campaign's default matrix: one compiler of each family that Inductor's own g++ is not.
inline const std::vector<std::string> kCampaignCompilers =
    support::options::CampaignCompilers::Default();

struct FuzzOptions {
  std::optional<std::string> time; // 90s, 10m, 2h; default 5m unless --cases is given
  std::optional<std::uint64_t> cases;
  unsigned jobs = 0; // 0: the number of cores
  std::uint64_t seed = 1;
  std::string shard = "0/1";           // I/N, or auto: from the engine's variables
  std::optional<unsigned> shard_count; // --shard auto where the engine gives no count
  std::filesystem::path corpus = "fuzz-corpus";
  std::optional<std::filesystem::path> report_dir; // default: <corpus>/report
  // Merged into the corpus first: the night before's, whose bugs are then not new.
  std::optional<std::filesystem::path> start_from;
  std::optional<std::filesystem::path> policy_file;
  std::optional<std::filesystem::path>
      known_issues; // default: the project's corpus/known-issues.json
  bool resume = false;
  bool static_analysis = true;
  bool share_builds = true; // identical builds of the campaign's cases compiled once
  bool feedback = true;     // mutate the queue's cases (needs static_analysis for the features)
  std::vector<std::string> compilers; // the matrix's; empty: kCampaignCompilers that are installed
  unsigned matrix_every = 10;         // 0: no matrix
  long case_timeout_seconds = support::options::CaseTimeout::Default();
  unsigned recycle_after = 200;
  std::size_t worker_memory_mib = 6144;
  std::string sanitize;         // "address,undefined": every case's kernels built with them
  std::string sanitize_crashes; // "address,undefined": crashing cases run again with them
  std::string sanitize_compiler = support::options::SanitizeCompiler::Default();
  // Reruns after a wrong result or crash (fuzzer/campaign/probe.h), none started after
  // probe_seconds.
  unsigned probe_runs = support::options::ProbeRuns::Default();
  long probe_seconds = support::options::ProbeTime::Default();
  std::string reduce = "new";        // after the cases: reduce new bugs, all bugs hit, or none
  long reduce_timeout_seconds = 900; // per bug
  std::string inject_fault;          // tests only: INDEX:segfault|hang|allocate[,...]
  // Each new finding's case also runs on this torch release: "regression since" or "also in".
  std::optional<std::string> baseline_torch;
  std::string command_line;
};

// `inductor-fuzz fuzz`: the campaign. Exit 0: nothing new; 1: new findings; 2: the tool failed.
int Fuzz(const FuzzOptions &options, const support::ToolPaths &paths, std::ostream &out);

// "90s", "10m", "2h", "45" (seconds): seconds, or an InputError.
long ParseDuration(const std::string &text);

} // namespace workflows
