#pragma once

// What several kinds' keys and judges are made of (corpus/kinds/*.cpp, corpus/bug_key.cpp).

#include "corpus/finding.h"
#include "corpus/finding_kinds.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace corpus::kinds {

// A fact of the finding's essence by name: its first value's text (a list's words
// comma-joined, as the signature writes it), or "".
std::string Fact(const Finding &finding, std::string_view key);
// Every value of a fact the essence holds more than once (a divergence's errors).
std::vector<std::string> Facts(const Finding &finding, std::string_view key);
// A fact of a draft's title facts by name, or "".
std::string TitleFact(const std::map<std::string, std::string> &facts, const std::string &name);
// A message as the key keeps it: the signature's template (quoted names to their shape, bare
// numbers to <N>), kernel names to their shape and argument lists collapsed. Unquoted words keep
// their digits: "AVX512" and "AVX2" are two requirements.
std::string ProgramFree(const std::string &message);
// A type as the key keeps it: a function type's parameter list is the kernel's arity.
std::string TypeShape(const std::string &type);
std::string NameKey(const std::string &name);
// The number of words a message has: a short one ("", "assert", "Error 1") does not tell two
// causes apart, so the raising frame joins the key.
std::size_t Words(const std::string &text);
// "undefined symbol: X" in a loader's or an ImportError's text: the bug is the missing symbol,
// whoever saw it (the worker's import or the matrix's load).
std::optional<std::string> MissingSymbol(const std::string &text);
bool Probed(const Finding &finding);
// "|needs=a,b" when a probe ran on the finding (fuzzer/campaign/probe.h): the settings without
// which the case passed. Nothing when no probe ran, so that an unprobed finding never claims
// to need nothing.
std::string ProbeNeeds(const Finding &finding);
// "|template=...|wrapper=...|shapes=..." of the code a dying worker had built (its journal,
// case_runner.cpp), when it recorded one. After a probe the template alone: whether the wrapper
// or dynamic shapes matter is what the probe says (`needs`), and one cause met under both would
// split otherwise.
std::string DeathPath(const Finding &finding);
// Whether a repro's run failed at all: it ended, and not with exit 0. A kind's judge asks this
// first (but a timeout's, and a memory error's, whose reports decide).
bool Failed(const ReproRun &run);
// The key of a `check` finding (conflicting-declaration, shadowing, analysis-error).
std::string DeclarationKey(const Finding &finding);

} // namespace corpus::kinds
