#pragma once

#include "corpus/finding.h"

#include <string>
#include <string_view>
#include <vector>

namespace corpus {

// Which part of the tool reports a kind: the worker's oracles, `check` (Clang), the compiler
// matrix, or a sanitizer.
enum class Detector { kWorker, kCheck, kMatrix, kSanitizer };

// Everything the tool treats differently from one finding kind to another, as one row of one
// table (finding_kinds.cpp). A new oracle is its producer, one row and its fixture; the key is
// the one other place (BugKey's case for it, corpus/bug_key.cpp). docs/extending.md.
struct FindingKindRow {
  FindingKind kind;
  std::string_view name; // a signature's first field
  Detector detector;
  // What its signature or bug key may name, in order (a known issue's match names only these).
  std::vector<std::string_view> facts;
  bool probed = false;    // rerun with each setting put back for what it needs (probe.h)
  bool flaky = false;     // a run may show it and the next not: a reduction confirms it 3 times
  bool in_one_tu = false; // it lives in one TU: `reduce` reduces the source after the case
  int delivery_order = 3; // of a bug's findings, delivery reduces the lowest first
  // What fails, in a draft's title ("[inductor][cpu] API: <title>: <facts>"): a few words.
  std::string_view title;
  // A draft's "Expected:" sentence; "{api}" stands for the API the case calls.
  std::string_view expected;
};

// Every kind, in FindingKind's order.
const std::vector<FindingKindRow> &FindingKindRows();
const FindingKindRow &RowOf(FindingKind kind);
const FindingKindRow *RowOfName(std::string_view name);
// The row of a signature's or a bug key's kind (its text up to the first '|'); none when that
// is not a finding kind.
const FindingKindRow *RowOfSignature(std::string_view signature);
std::string_view DetectorName(Detector detector);
// A row's `expected` with the API put in.
std::string ExpectedBehaviour(const FindingKindRow &row, std::string_view api);

} // namespace corpus
