#pragma once

#include "corpus/finding.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace corpus {

// A finding has two levels (docs/signature.md). Its signature is the exact failure mode, stable
// for replay and bisect. Its bug key keeps what identifies the cause and drops what names the
// program: a kernel's name (Inductor names it after the ops it fused), the parameter list of the
// function an error sits in, Dynamo's symbol tuples, the compiler and the access kind where the
// allocator decides it. Findings with one key are one bug.
std::string BugKey(const Finding &finding);

// The version of the rules BugKey applies, stored beside every key a report writes
// (summary.json, corpus list --json). Keys are never read back as truth: a stored corpus is
// re-keyed with the rules of the build that opens it. Raised whenever a key changes for a
// finding it existed for (docs/signature.md lists what each version changed).
inline constexpr int kBugKeyVersion = 2;

// A signature or a key taken apart: its kind and its facts in order. The facts are those
// FactsOfKind names; none when the text's kind is not one, or its text after the kind starts
// with no fact of it.
struct KeyFacts {
  std::string kind;
  std::vector<std::pair<std::string, std::string>> facts;
};
std::optional<KeyFacts> ParseKeyFacts(const std::string &text);

// Which detector reported a kind of finding: worker (the case's own run: exceptions, wrong
// results, crashes, timeouts, torch's own C++ build), check (static analysis), matrix (the
// compiler matrix and the runtime differential) or sanitizer.
std::string_view DetectorOf(FindingKind kind);

// Two findings of one case that are one cause although their keys differ: a compiler error and
// a `check` finding on the same line of the same TU about the same name. Only evidence seen
// together in one case joins keys, so a generic key never chains two causes into one bug.
bool SameCauseInOneCase(const Finding &a, const Finding &b);

// What identifies a finding's bug when the same case runs on another torch release: its key,
// and for an exception its type and raising frame (a release that rewords the message keeps
// them). Two runs of one case sharing an anchor are one bug (compare --baseline-torch, bisect).
std::vector<std::string> ReleaseAnchors(const Finding &finding);
bool ShareAnAnchor(const std::vector<std::string> &a, const std::vector<std::string> &b);

// The normalisers of a bug key, exposed for tests and for people reading keys.
// Inductor's kernel names (cpp_fused_add_mul_3, cpp_fused__to_copy_arange_..._0) to <kernel>;
// what follows the kernel's number is kept (<kernel>_fill_stub is a helper of the template).
std::string KernelNameShape(const std::string &text);
// Argument tuples of Dynamo's symbols ("(s0, zf1)") to "(<symbols>)", tuples of Python types
// ("(<class 'int'>, <class 'torch.SymFloat'>)") to "(<types>)", and the parameter list of a
// named function ("'kernel(const bool*, int64_t*)'") to "(...)".
std::string CollapseArgumentLists(const std::string &text);
// What an Inductor local is for, whatever form the dtype gave it: an accumulator is
// tmp_acc<N> whether scalar, vector (tmp_acc<N>_vec) or per-lane array (tmp_acc<N>_arr).
std::string NameRole(const std::string &name);
// A redeclaration message of g++ ("redeclaration of 'T x'", "conflicting declaration 'T x'")
// with the type, which is the dtype's, left out and the name to its role; other text as is.
std::string RedeclarationShape(const std::string &message);

} // namespace corpus
