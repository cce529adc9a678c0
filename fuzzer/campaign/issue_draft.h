#pragma once

#include "corpus/delivery.h"
#include "corpus/finding_store.h"
#include "corpus/known_issues.h"

#include <filesystem>
#include <string>

namespace fuzzer::campaign {

// A bug report in PyTorch's template (🐛 Describe the bug, Versions), in Markdown: a one-line
// title in PyTorch's style ("[inductor][cpu] flex_attention: ..."), the reduced repro in full,
// what it printed (the error, or the first differing values), expected and actual, the
// releases it fails and passes on, and the environment (torch, Python, compiler, CPU ISA, OS).
struct IssueDraftParts {
  std::string api;      // flex_attention, create_mask, ...
  std::string settings; // what the repro sets: "cpp.simdlen=256, bfloat16"
  std::string failure;  // one line: what goes wrong
  std::string how;      // how the repro's run ended, one line ("killed by signal 11 ...")
  std::string kind;     // the finding's kind: how "expected" and "actual" are phrased
  std::string repro;    // the script
  std::string output;   // the end of what it printed when run
  std::vector<corpus::ReleaseRun> releases;
  std::string release_label;
  nlohmann::json environment = nlohmann::json::object();
  std::string signature;
  std::string provenance; // where it came from: campaign, seed, case; tool version
  std::string notes;      // anything more (what was searched upstream, the cause if known)
};
std::string RenderIssueDraft(const IssueDraftParts &parts);

// The draft of a stored finding's bug from its delivery: the reduced repro when there is one,
// else the smallest case's repro.
std::string IssueDraft(const corpus::StoredFinding &finding, const corpus::Delivery &delivery);

// The draft of a known issue from its `reduced` folder (repro.py, case.json, releases.json,
// expected.md, delivery.json), relative to `root`. Without a stored run, `run` gives the repro's
// output on the venv's torch and the environment.
std::string KnownIssueDraft(const corpus::KnownIssue &issue, const std::filesystem::path &root,
                            const corpus::Delivery &run);

} // namespace fuzzer::campaign
