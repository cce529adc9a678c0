#pragma once

#include "corpus/finding.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace corpus {

// Which part of the tool reports a kind: the worker's oracles, `check` (Clang), the compiler
// matrix, or a sanitizer.
enum class Detector { kWorker, kCheck, kMatrix, kSanitizer };

// A standalone repro's run (fuzzer/worker/standalone_run.cpp), as a kind's judge reads it.
struct ReproRun {
  bool timed_out = false;
  std::optional<int> exit_code; // set when it exited
  std::optional<int> signal;    // set when a signal ended it
  std::string output;           // all it printed
  std::string last_line;        // its last line, trailing newlines dropped
  // ReproForm::kSanitized: the signatures of the memory errors its sanitizer reports hold.
  std::vector<std::string> sanitizer_signatures;
};

// What a repro should show: the signature (a finding's, or a known issue's pattern with '*')
// and its facts by name, the kind under "kind".
struct ReproExpectation {
  std::string signature;
  std::map<std::string, std::string> facts;
};

// How a kind's standalone repro runs: as it is, or under the sanitizer its prelude loads, with
// the reports sent where the judge reads them.
enum class ReproForm { kPlain, kSanitized };

// How `reduce` (and so a night's delivery) runs a finding's candidates: as it was found; always
// under the sanitizers (a memory error, seen only there); or under them when a sanitized run of
// the untouched case reports a memory error (a crash of a corrupted heap: plain, a run shows it
// some of the time and each candidate needs three; sanitized, the first run decides).
enum class ReduceForm { kAsFound, kSanitized, kSanitizedWhenItReports };

// What of a repro's output a draft shows (fuzzer/campaign/draft_output.cpp): its last lines; the
// exception's message and traceback tail; the compiler's first error with its context (else as
// an exception, the build's own traceback); or the comparison's mismatch report.
enum class DraftExcerpt { kLastLines, kException, kCompileError, kComparison };

// Everything the tool treats differently from one finding kind to another, as one row: each
// kind's file under corpus/kinds/ makes its row, and corpus/finding_kinds.def lists the kinds
// (which makes the enum too). A new oracle is its producer, one line, one file and its fixture.
// docs/extending.md.
struct FindingKindRow {
  FindingKind kind;
  std::string_view name; // a signature's first field
  Detector detector;
  std::string_view meaning; // one sentence for a reader: `corpus kinds`, docs/architecture.md
  // What its signature or bug key may name, in order (a known issue's match names only these).
  std::vector<std::string_view> facts;
  // Those of its facts whose value is a list of words (FactValue::List), not a text.
  std::vector<std::string_view> list_facts;
  bool probed = false; // rerun with each setting put back for what it needs (probe.h)
  // The runs a reduction gives each candidate to show it: 3 where a heap or a clock decides
  // whether a run does; 1 where every run does, a memory error under its sanitizer among them.
  unsigned confirm_runs = 1;
  bool in_one_tu = false; // it lives in one TU: `reduce` reduces the source after the case
  int delivery_order = 3; // of a bug's findings, delivery reduces the lowest first
  // What fails, in a draft's title ("[inductor][cpu] API: <title>: <facts>"): a few words.
  std::string_view title;
  // A draft's "Expected:" sentence; "{api}" stands for the API the case calls.
  std::string_view expected;
  // Its bug key (corpus/bug_key.h); none: the signature is the key.
  std::string (*key)(const Finding &finding) = nullptr;
  // Whether a standalone repro's run shows it, the one judge (reduce, delivery, `repro SCRIPT
  // --signature`, scripts/verify-issue-drafts); none: a repro.py never does (the matrix's
  // kinds: their repro is repro.sh).
  bool (*shows_in_repro)(const ReproRun &run, const ReproExpectation &expected) = nullptr;
  ReproForm repro_form = ReproForm::kPlain;
  // How a finding with this signature reduces (ReduceForm); none: as it was found.
  ReduceForm (*reduce_form)(const ReproExpectation &expected) = nullptr;
  // The title's words with the facts of the bug's key that tell it from another of its kind
  // (by name, as a reader reads them); none: the title alone. `needs` is added after them.
  std::string (*title_words)(std::string_view title,
                             const std::map<std::string, std::string> &facts) = nullptr;
  DraftExcerpt draft_excerpt = DraftExcerpt::kLastLines;
  // Its repro compares values (eager, a reference): the draft's checklist names tolerances and
  // a baseline, and its first line the mismatch.
  bool compares_values = false;
  // The worker's process ends with it (a signal, a hang): a draft's first line is how it ended.
  bool ends_the_process = false;
  // A failure of the compiled call itself, no reference needed: its repro may be the calls
  // unrolled as a person writes them (reducers/case/unrolled_repro.cpp).
  bool unrolls = false;
};

// Whether the row's kind keeps `fact` as a list of words.
bool IsListFact(const FindingKindRow &row, std::string_view fact);
// A list fact as a finding of format version 1 stored it, comma-joined, as its words ("" none).
std::vector<std::string> SplitListText(const std::string &text);

// A row's reduce_form for a signature (kAsFound where the kind is not known).
ReduceForm ReduceFormOf(const std::string &signature);

// The signature's facts by name, its kind as "kind": what a judge is given.
ReproExpectation ExpectationOf(const std::string &signature);

// Every kind, in FindingKind's order.
const std::vector<FindingKindRow> &FindingKindRows();
const FindingKindRow &RowOf(FindingKind kind);
const FindingKindRow *RowOfName(std::string_view name);
// The row of a signature's or a bug key's kind (its text up to the first '|'); none when that
// is not a finding kind.
const FindingKindRow *RowOfSignature(std::string_view signature);
std::string_view DetectorName(Detector detector);
// Every kind as a Markdown table (kind, detector, what it means, the facts its key may name):
// what `corpus kinds` prints and docs/architecture.md holds.
std::string KindsTable();
// A row's `expected` with the API put in.
std::string ExpectedBehaviour(const FindingKindRow &row, std::string_view api);

} // namespace corpus
