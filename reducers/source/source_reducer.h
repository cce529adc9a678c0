#pragma once

#include "reducers/source/interestingness.h"
#include "reducers/source/source_passes.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace reducers {

struct SourceReduceOptions {
  unsigned jobs = 1;                      // candidates tested side by side
  std::vector<const SourcePass *> passes; // in order; the list repeats until nothing is accepted
  std::optional<std::filesystem::path> formatter; // clang-format for the result, kept if it passes
  // Before the test runs, Clang parses the candidate: one with more errors than the text it came
  // from is dropped untested. Worth it when the test costs seconds (a user's script, a build
  // and run on two compilers), not when it is itself a parse. The first few such candidates are
  // tested anyway: when the test keeps one (it greps, say), the gate is off from then on.
  bool gate_on_parse_errors = false;
};

struct SourceReduction {
  std::string original;
  std::string reduced;
  std::string signature;
  unsigned steps = 0;        // candidates accepted
  unsigned tried = 0;        // candidates tested
  unsigned gated = 0;        // candidates dropped untested: more Clang errors than their text
  unsigned gate_audits = 0;  // candidates the gate would drop, tested to check it
  bool gate_refuted = false; // the test kept one of those: the gate went off
  unsigned rounds = 0;
  double seconds = 0;
  double test_seconds = 0; // the test's own time, summed over candidates (jobs overlap)
  bool interrupted = false;
  bool formatted = false;
  std::map<std::string, unsigned> accepted_by_pass;
};

struct SourceReduceCallbacks {
  std::function<void(const std::string &)> progress;
  std::function<void(const SourceReduction &)> improved; // every new best text, for Ctrl-C
};

// Reduces `text` while `test` keeps observing the signature it shows on the untouched text
// (an InputError when it shows none). Each pass proposes candidates; `jobs` of them are tested
// at a time and the first in the pass's order that keeps the signature is taken, then the pass
// goes on from there on the new text. Texts already tested are not tested again. `stop` ends it
// early with the best text so far.
SourceReduction ReduceSource(const std::string &text, InterestingnessTest &test,
                             const SourceReduceOptions &options, const SourcePassContext &context,
                             const std::atomic<bool> &stop, const SourceReduceCallbacks &callbacks);

} // namespace reducers
