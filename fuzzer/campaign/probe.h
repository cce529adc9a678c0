#pragma once

#include "corpus/case.h"
#include "corpus/finding.h"
#include "fuzzer/worker/case_runner.h"
#include "support/shared_options.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

// What a silent failure needs: after a wrong result or a crash, the case runs again with each
// of its non-default settings put back, one at a time; the settings without which it passes
// join the bug key (`needs=...`, docs/signature.md).
namespace fuzzer::campaign {

struct ProbeOptions {
  unsigned max_runs = support::options::ProbeRuns::Default(); // reruns at most; 0: no probe
  // No rerun starts after this long.
  std::chrono::seconds budget{support::options::ProbeTime::Default()};
  std::chrono::seconds run_timeout{support::options::CaseTimeout::Default()};
  // Only what the failure hid is wanted (a crash its sanitizer rerun explains, keyed by the
  // memory error): stop at the first rerun that does not fail the same.
  bool until_revealed = false;
};

// One setting a case has that is not the default, named as the key names it
// ("dtype=16-bit", "dynamic=true", "cpp.threads=1"), and the case with it put back.
struct ProbeSetting {
  std::string name;
  corpus::Case reverted;
};

// The settings to try, most telling first (dtype, dynamic, wrapper, AOTI, decode shape, then
// the knobs in the table's order). Deterministic: a function of the case alone.
std::vector<ProbeSetting> ProbeSettings(const corpus::Case &c);

// Runs one probe case; `label` names it (a folder name for its files).
using ProbeRunner =
    std::function<worker::CaseOutcome(const corpus::Case &reverted, const std::string &label)>;

// The probe's record, kept in the finding's detail["probe"]:
//   {"needs": [settings without which the case passed], "complete": whether every setting ran,
//    "runs": [{"setting", "outcome": passes|fails-the-same|ran-past-the-crash|fails-otherwise|
//              invalid, "status", "signature", "seconds"}], "settings": [every setting, in order]}
// A crash whose rerun ends in a wrong result ran the kernels to the end: the crash needs that
// setting. Any other rerun that fails otherwise (another kind), or is invalid, says nothing.
// A failure a probe's rerun showed that the case's own failure hid: a wrong result in the
// rerun of a crash, whose kernels now ran to the end. It is a finding of its own, of the
// reverted case (which reproduces it), not evidence of the crash's bug.
struct RevealedFailure {
  std::string setting; // the setting put back
  std::string label;   // the rerun's label (probe-K): its files are under that folder
  corpus::Case c;      // the reverted case
  worker::CaseOutcome outcome;
};
// `earlier`: another case's probe of the same signature; a setting its rerun failed the same
// is not run again (recorded with status "not-rerun" and the case it is `as_in`).
nlohmann::json ProbeFinding(const corpus::Case &c, const corpus::Finding &finding,
                            const ProbeRunner &run, const ProbeOptions &options,
                            std::vector<RevealedFailure> *revealed = nullptr,
                            const nlohmann::json *earlier = nullptr);

// A wrong result a crash of the case hid, shown by the crash's probe: a rerun of the case with
// one setting put back (`c`), the crash's stored id, and where the rerun's files are.
struct RevealedRun {
  corpus::Case c;
  worker::CaseOutcome outcome;
  std::filesystem::path case_dir;
  std::string setting;
  std::string hidden_by;
};

// What probing a case's findings gave: the failure its crash hid (none when nothing did) and
// how many reruns it took.
struct ProbedCase {
  std::optional<RevealedRun> revealed;
  std::size_t reruns = 0;
  std::size_t spared = 0; // settings not run again, as an earlier probe of the signature showed
};

// The probes a campaign already ran, by what they were about. A failure of the same signature
// in a case with the same settings to put back gets the earlier probe's record (its "needs",
// so the same bug key) instead of its reruns. A crash of the same signature with other
// settings reruns only what the earlier probe did not show irrelevant (a setting it needed, or
// one it did not try): a crash's rerun costs a worker start, and a known crash comes back often.
// Another bug behind the same signature still shows, since what made the key is rerun. Only
// probes that showed no hidden failure are kept. Shared by a campaign's jobs.
class ProbeMemo {
public:
  // `subject`: the signature and the settings to put back (ProbeSubject).
  std::optional<nlohmann::json> Same(const std::string &subject) const;
  std::optional<nlohmann::json> OfSignature(const std::string &signature) const;
  void Remember(const std::string &subject, const std::string &signature,
                const nlohmann::json &probe, const std::string &case_name);
  std::uint64_t Reused() const;

private:
  mutable std::mutex mutex_;
  std::map<std::string, nlohmann::json> by_subject_;
  std::map<std::string, nlohmann::json> by_signature_;
  mutable std::uint64_t reused_ = 0;
};

// Runs `reverted` with its files under `folder` (CASE/probe-K/...).
using CaseRerun = std::function<worker::CaseOutcome(const corpus::Case &reverted,
                                                    const std::filesystem::path &folder)>;

// Probes the first of a case's findings that is probed (IsProbedKind), or the crash its
// sanitizer rerun explained (`explained_crash`, stored as its memory error: probed only for
// what it hid, up to the first rerun that does not crash), recording each probe in the
// finding's detail["probe"]. A wrong result that a rerun showed is probed in turn (its own
// reruns under its rerun's folder) and returned, to be stored as a finding of its own. One
// probe per case: its findings share the case.
ProbedCase ProbeCase(const corpus::Case &c, const std::filesystem::path &case_dir,
                     std::vector<corpus::Finding> &findings,
                     std::optional<corpus::Finding> explained_crash, const ProbeOptions &options,
                     const CaseRerun &rerun, ProbeMemo *memo = nullptr);

// Whether a finding of this kind is probed: wrong results and crashes.
bool IsProbedKind(corpus::FindingKind kind);

// The settings a probe found needed ("needs"), from a finding's detail; empty when none ran.
std::vector<std::string> ProbedNeeds(const corpus::Finding &finding);

} // namespace fuzzer::campaign
