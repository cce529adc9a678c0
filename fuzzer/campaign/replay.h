#pragma once

#include "corpus/finding_store.h"
#include "fuzzer/support/tool_paths.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace fuzzer::campaign {

// What a stored finding does when its smallest case runs again, on today's torch.
enum class ReplayVerdict { kStillFailing, kFixed, kFailingDifferently, kNoCase };
std::string_view ReplayVerdictName(ReplayVerdict verdict);

struct ReplayResult {
  std::string id;
  std::string signature; // as stored
  ReplayVerdict verdict = ReplayVerdict::kNoCase;
  std::string now; // the status, and the signature when it fails differently
};

struct ReplayOptions {
  std::filesystem::path corpus;
  std::chrono::seconds case_timeout{600};
};

// Reruns every stored finding's smallest case on a worker: fix verification after a torch
// upgrade. Static-analysis and matrix findings are reported as kNoCase (run `check`/`matrix`).
std::vector<ReplayResult> ReplayCorpus(const ReplayOptions &options,
                                       const support::ToolPaths &paths,
                                       const std::function<void(const ReplayResult &)> &each);

} // namespace fuzzer::campaign
