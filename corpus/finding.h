#pragma once

#include <nlohmann/json.hpp>

#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace corpus {

// Every oracle's finding kind. Static analysis reports one kind per level (a conflict is an
// error, shadowing a warning) and names its check in the essence ("check").
enum class FindingKind {
#define INDUCTOR_FUZZ_KIND(enumerator, file) enumerator,
#include "corpus/finding_kinds.def"
#undef INDUCTOR_FUZZ_KIND
};

// What became of one case. Only kFinding is a finding; kInvalidCase is a broken case (eager
// failed where the case did not expect it), counted apart as a generator or author defect.
enum class CaseStatus { kPass, kExpected, kFinding, kInvalidCase };

std::string_view KindName(FindingKind kind);
// The facts a kind's signature or bug key may name, in the order they appear (an essence holds
// some of them; the key adds the probe's `needs`). A known issue's match names only these.
// "missing-symbol" is the key of an undefined symbol, whoever saw it (corpus/bug_key.h).
const std::vector<std::string_view> *FactsOfKind(std::string_view kind_name);
std::optional<FindingKind> KindFromName(std::string_view name);
const std::vector<FindingKind> &AllFindingKinds();
std::string_view StatusName(CaseStatus status);
std::optional<CaseStatus> StatusFromName(std::string_view name);

// A fact's value: a text, or a list of words (the fields a result is wrong in, the compilers a
// TU built with) that stays a list, in the producer's order, until the signature writes it
// comma-joined. A key reads a list's members, never a split of its text.
class FactValue {
public:
  FactValue() = default;
  FactValue(std::string text) : members_{std::move(text)} {}
  FactValue(const char *text) : FactValue(std::string(text)) {}
  static FactValue List(std::vector<std::string> members);
  template <class Range> static FactValue ListOf(const Range &words) {
    return List(std::vector<std::string>(std::begin(words), std::end(words)));
  }
  bool IsList() const { return list_; }
  // A list's words; a text alone.
  const std::vector<std::string> &Members() const { return members_; }
  // A list's words joined by ','; a text as it is.
  std::string Text() const;
  bool operator==(const FactValue &) const = default;

private:
  std::vector<std::string> members_;
  bool list_ = false;
};

// Stored: a text as a JSON string, a list as a JSON list of strings. FactValueFromJson throws
// FormatError for anything else.
nlohmann::json FactValueToJson(const FactValue &value);
FactValue FactValueFromJson(const nlohmann::json &json);

// The raw facts that decide whether two failures are one bug, in order, by name. Producers
// record facts as they saw them; Signature() alone normalises them (docs/signature.md).
struct Essence {
  std::vector<std::pair<std::string, FactValue>> facts;
  Essence &Add(std::string key, FactValue value) {
    facts.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  bool operator==(const Essence &) const = default;
};

// A line of source a finding points at.
struct SourceExcerpt {
  std::string file;
  unsigned line = 0;
  std::string text;
  bool operator==(const SourceExcerpt &) const = default;
};

// One failure, as every producer reports it: what kind, what makes it this bug, and the
// evidence a person needs to act on it.
struct Finding {
  FindingKind kind = FindingKind::kException;
  Essence essence;
  std::string summary;    // one line for people
  std::string message;    // the exception's, compiler's or loader's own text
  std::string diagnostic; // exception type, Clang diagnostic id, compiler option
  std::vector<SourceExcerpt> source_lines;
  std::vector<std::string> compilers; // the compilers involved, as named on the command line
  std::string subject;                // the case name or TU label it is about
  nlohmann::json detail = nlohmann::json::object();     // the oracle's own data
  nlohmann::json provenance = nlohmann::json::object(); // tool, torch, command line, seed
  bool operator==(const Finding &) const = default;
};

// The one signature: "<kind>|<key>=<normalised value>|...". Equal signatures are one bug.
std::string Signature(const Finding &finding);
// A short, file-name-safe name for a signature: its SHA-256, first 16 hex digits.
std::string SignatureId(const std::string &signature);

// How each fact is normalised before it enters a signature, by the fact's name. Facts not named
// in docs/signature.md are enumerations the producer already chose (an API, compiler names).
std::string NormaliseFact(const std::string &key, const std::string &value);
// Normalisers the signature applies, by fact name (also used to show templates to people).
// Generated names reduced to their shape: digits become <N> (tmp_acc0_arr -> tmp_acc<N>_arr).
std::string NameShape(const std::string &name);
// A message without what varies between runs: quoted names to their shape, numbers to <N>,
// paths to <path>, addresses to <addr>, hashes to <hash>, quote styles unified.
std::string MessageTemplate(const std::string &message);

// One corrupted heap shows as a segfault in one run and as whichever of glibc's heap checks
// fires first in the next: a crash by SIGSEGV, SIGBUS, or SIGABRT from a glibc heap check is one
// signature, "crash|...|signal=memory|abort=memory error". The essence keeps the raw facts.
inline constexpr std::string_view kMemoryCorruptionSignal = "memory";
inline constexpr std::string_view kMemoryCorruptionAbort = "memory error";
bool IsHeapCorruptionAbort(std::string_view message); // glibc's malloc_printerr texts
bool IsMemoryCorruptionCrash(std::string_view signal, std::string_view abort);

// 1: every fact's value a string; 2: a list fact's value a list of strings (FactValue). Both are
// read; a version-1 list fact (its kind's row names it, FindingKindRow::list_facts) is split at
// its commas once, when it is read.
inline constexpr int kFindingFormatVersion = 2;
// The version of Signature()'s normalisation. A corpus names the version its folders were
// written by (corpus.json); one written by an older version is re-signed when it is opened.
// 1: every corpus before corpus.json existed; 2: the bug level (corpus/bug_key.h) beside it;
// 3: a wrong result says how and where it is wrong and its code path.
inline constexpr int kSignatureVersion = 3;
nlohmann::json FindingToJson(const Finding &finding);
// Validating reader: throws FormatError naming the field. The signature is re-made from the
// essence, whatever version wrote the stored one.
Finding FindingFromJson(const nlohmann::json &json);

} // namespace corpus
