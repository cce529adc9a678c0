#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace corpus {

// Findings somebody already knows about: a signature pattern, where it is tracked, and how far
// it got. A campaign reports a finding that matches as known, not new.
inline constexpr int kKnownIssuesFormatVersion = 1;

struct KnownIssue {
  std::string id;
  // KIND|FACT=PATTERN|...: the facts (of FactsOfKind) a finding's signature or bug key must
  // have, each value matching its pattern (* stands for any text); facts left out may be
  // anything. A full signature is such a match.
  std::string match;
  // unreported (reduced, and PyTorch's issues searched without a match); reported (link);
  // fixed-upstream (a fix landed, in no release yet); fixed-in <torch release> (replay saw that
  // release pass); investigating (not yet verified outside the tool); wont-fix
  std::string status;
  std::string link; // upstream issue or PR, or empty while investigating
  std::string title;
  std::string reduced; // the folder with its reduced repro.py (and issue.md), from the root
  bool operator==(const KnownIssue &) const = default;
};

struct KnownIssues {
  std::vector<KnownIssue> issues;
  // The first issue whose match a signature or a bug key satisfies.
  const KnownIssue *Match(const std::string &signature) const;
  // The first issue whose match one finding satisfies, by the facts of its signature and of its
  // key together (a key leaves out some of the signature's facts, and adds `needs`).
  const KnownIssue *Match(const std::string &signature, const std::string &key) const;
};

// The statuses a known issue may have; "fixed-in" is followed by a release: "fixed-in 2.16.0".
const std::vector<std::string> &KnownIssueStatuses();
bool IsKnownIssueStatus(const std::string &status);

// The torch release a status names as fixed ("fixed-in 2.16.0" -> "2.16.0"), or "".
std::string FixedInRelease(const std::string &status);

// The operations a tensor program's statement may end in, sorted, as the wrong-result fact
// `first` (OP(DTYPES)->DTYPE) names them: first_wrong.py's names of the statements the
// generator writes (fuzzer/generate/tensor_program*.cpp; tests/known_issue_vocabulary_test.cpp
// keeps the two in step), and torch.max and torch.min with a dim, which programs written by
// hand use for the same reductions as amax and amin.
const std::vector<std::string> &ProgramOperations();

// The probes' settings by name, sorted, as the fact `needs` lists them before their "=VALUE" or
// ">1" (fuzzer/campaign/probe.cpp: dtype=16-bit, cpp.threads>1): the case's own settings and
// every Inductor knob (corpus/knobs.h).
const std::vector<std::string> &ProbeNames();

// FormatError saying what is wrong with a match: no kind, no FACT=PATTERN, a fact its kind
// has not, a `first` naming an operation no program has, a `needs` naming a probe that does
// not exist. A pattern with `*` is checked where its name is: `first=am*(*int8)->*` needs some
// operation that `am*` matches; `first=*` and `needs=*` are not checked.
void ValidateKnownIssueMatch(const std::string &match);

// Reads and validates known-issues.json; FormatError names the entry and field.
KnownIssues ReadKnownIssues(const std::filesystem::path &path);

// Writes the file back (replay marking issues fixed), the fields in their documented order.
void WriteKnownIssues(const std::filesystem::path &path, const KnownIssues &known);

} // namespace corpus
