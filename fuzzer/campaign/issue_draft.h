#pragma once

#include "corpus/delivery.h"
#include "corpus/finding_store.h"
#include "corpus/known_issues.h"

#include <filesystem>
#include <optional>
#include <string>

namespace fuzzer::campaign {

// The longest title a draft gets: PyTorch's titles are a line in the issue list.
inline constexpr std::size_t kTitleLength = 100;

// A bug report as PyTorch's torch.compile bug template asks for one, in Markdown: a short title
// ("[inductor][cpu] flex_attention: what fails"), a place for the reporter's own words kept apart
// from what the tool wrote, the reduced repro, the lines of its output that show the bug (no
// header warnings, no machine paths), expected and actual, the releases it fails and passes on,
// the template's checklist for fuzzer-found issues filled in from what the repro does, suggested
// labels, a line saying inductor-fuzz generated the draft, and the versions.
struct IssueDraftParts {
  std::string api;      // flex_attention, create_mask, ...
  std::string settings; // what the repro sets: "cpp.simdlen=256, bfloat16"
  std::string failure;  // what fails, in a few words: the title's (FailureFromKey)
  std::string how;      // how the repro's run ended, one line ("killed by signal 11 ...")
  // The finding's kind: how "expected" and "actual" are phrased; none for a known issue whose
  // match names no finding kind (its expected behaviour then worded as an exception's).
  std::optional<corpus::FindingKind> kind;
  std::string repro;     // the script
  std::string output;    // what it printed when run; the draft shows the lines that show the bug
  std::string reference; // a wrong result against the float64 reference, as the oracle saw it
  std::vector<corpus::ReleaseRun> releases;
  std::string release_label;
  nlohmann::json environment = nlohmann::json::object();
  std::string signature;
  std::string provenance;   // where it came from: campaign, seed, case
  std::string tool_version; // inductor-fuzz's, for the line that says it wrote the draft
  std::string notes;        // anything more (what was searched upstream, the cause if known)
};
std::string RenderIssueDraft(const IssueDraftParts &parts);

// What fails, in a few words, from a bug's key or a known issue's match: the kind's words and
// the facts that tell this bug from another of its kind ("generated C++ does not compile:
// 'cur_...SplitSize<N>' was not declared in this scope").
std::string FailureFromKey(const std::string &key);

// "[inductor][cpu] API: failure", cut at a word to at most kTitleLength characters.
std::string DraftTitle(const std::string &api, const std::string &failure);

// Why a delivered bug of `kind` has no draft: its repro does not fail on its own (a maintainer
// could do nothing with it), or it is a compiler divergence, whose repro is reduced/repro.sh.
// Nothing when the repro fails standalone.
std::optional<std::string> WhyNoDraft(const corpus::Delivery &delivery, corpus::FindingKind kind);
// The same for a delivery read back from its record, its kind read once from its signature.
std::optional<std::string> WhyNoDraft(const corpus::Delivery &delivery);

// The draft of a stored finding's bug from its delivery: the reduced repro when there is one,
// else the smallest case's repro; its title from the finding's bug key.
// `notes` (likely duplicates upstream, for one) go in after expected and actual.
std::string IssueDraft(const corpus::StoredFinding &finding, const corpus::Delivery &delivery,
                       const std::string &notes = "");

// The draft of a known issue from its `reduced` folder (repro.py, case.json, releases.json,
// expected.md, delivery.json), relative to `root`. Without a stored run, `run` gives the repro's
// output on the venv's torch and the environment.
std::string KnownIssueDraft(const corpus::KnownIssue &issue, const std::filesystem::path &root,
                            const corpus::Delivery &run, const std::string &notes = "");

} // namespace fuzzer::campaign
