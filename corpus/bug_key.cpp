#include "corpus/bug_key.h"

#include "corpus/finding_kinds.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <regex>
#include <set>

namespace corpus {
namespace {

const std::string &Fact(const Finding &finding, std::string_view key) {
  static const std::string none;
  for (const auto &[name, value] : finding.essence.facts)
    if (name == key)
      return value;
  return none;
}

std::vector<std::string> Facts(const Finding &finding, std::string_view key) {
  std::vector<std::string> values;
  for (const auto &[name, value] : finding.essence.facts)
    if (name == key)
      values.push_back(value);
  return values;
}

// A message as the key keeps it: the signature's template (quoted names to their shape, bare
// numbers to <N>), kernel names to their shape and argument lists collapsed. Unquoted words keep
// their digits: "AVX512" and "AVX2" are two requirements.
std::string ProgramFree(const std::string &message) {
  // A Python-wrapper TU names its kernel function `kernel`, a cpp_wrapper TU after its fused
  // ops: "'void kernel(...)'" and "'void cpp_fused_..._0(...)'" are one kernel.
  static const std::regex bare_kernel(R"(\bkernel(?=\())");
  // GCC's two words for "the always_inline callee's body is not this TU's to inline": defined
  // in another TU (a cpp_wrapper calling its kernel TU), or interposable (an extern function
  // in -fPIC code). One cause, an always_inline on an extern kernel; other reasons (a target
  // option mismatch) stay apart.
  static const std::regex linkage_reason(
      R"(('always_inline' '[^']*'): function body (not available|can be overwritten at link time))");
  return std::regex_replace(
      std::regex_replace(CollapseArgumentLists(KernelNameShape(MessageTemplate(message))),
                         bare_kernel, "<kernel>"),
      linkage_reason, "$1: function body not inlinable here (linkage)");
}

// A type as the key keeps it: a function type's parameter list is the kernel's arity.
std::string TypeShape(const std::string &type) {
  static const std::regex parameters(R"(\([^()]*\))");
  return std::regex_replace(KernelNameShape(NameShape(type)), parameters, "(...)");
}

std::string NameKey(const std::string &name) { return NameRole(KernelNameShape(NameShape(name))); }

// The number of words a message has: a short one ("", "assert", "Error 1") does not tell two
// causes apart, so the raising frame joins the key.
std::size_t Words(const std::string &text) {
  static const std::regex word(R"([A-Za-z]{2,})");
  return static_cast<std::size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), word), std::sregex_iterator()));
}

// "undefined symbol: X" in a loader's or an ImportError's text: the bug is the missing symbol,
// whoever saw it (the worker's import or the matrix's load).
std::optional<std::string> MissingSymbol(const std::string &text) {
  static constexpr std::string_view kMarker = "undefined symbol: ";
  const auto at = text.find(kMarker);
  if (at == std::string::npos)
    return std::nullopt;
  std::string rest = text.substr(at + kMarker.size());
  if (rest.starts_with("_Z"))
    rest = support::Demangle(rest.substr(0, rest.find_first_of(" \t\n,")));
  else
    rest = rest.substr(0, rest.find('\n'));
  return "missing-symbol|symbol=" + ProgramFree(rest);
}

bool IsSourceKind(FindingKind kind) {
  return kind == FindingKind::kCompileError || kind == FindingKind::kConflictingDeclaration ||
         kind == FindingKind::kShadowing || kind == FindingKind::kAnalysisError;
}

bool IsCheckKind(FindingKind kind) {
  return IsSourceKind(kind) && kind != FindingKind::kCompileError;
}

// The name as a whole word of the text: tmp_acc0 is in "'float tmp_acc0 [8]'", not in tmp_acc01.
bool NamesWord(const std::string &text, const std::string &name) {
  if (name.empty())
    return false;
  auto is_word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  for (auto at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !is_word(text[at - 1]);
    const auto end = at + name.size();
    if (starts && (end == text.size() || !is_word(text[end])))
      return true;
  }
  return false;
}

bool ShareAFile(const Finding &a, const Finding &b) {
  for (const auto &x : a.source_lines)
    for (const auto &y : b.source_lines)
      if (std::filesystem::path(x.file).filename() == std::filesystem::path(y.file).filename())
        return true;
  return false;
}

bool ShareALine(const Finding &a, const Finding &b) {
  for (const auto &x : a.source_lines)
    for (const auto &y : b.source_lines)
      if (x.line > 0 && x.line == y.line &&
          std::filesystem::path(x.file).filename() == std::filesystem::path(y.file).filename())
        return true;
  return false;
}

// "|needs=a,b" when a probe ran on the finding (fuzzer/campaign/probe.h): the settings without
// which the case passed. Nothing when no probe ran, so that an unprobed finding never claims
// to need nothing.
std::string ProbeNeeds(const Finding &finding) {
  if (!finding.detail.is_object() || !finding.detail.contains("probe"))
    return "";
  const auto &probe = finding.detail["probe"];
  std::vector<std::string> needs;
  if (probe.is_object() && probe.contains("needs") && probe["needs"].is_array())
    for (const auto &setting : probe["needs"])
      if (setting.is_string())
        needs.push_back(setting.get<std::string>());
  std::sort(needs.begin(), needs.end());
  return fmt::format("|needs={}", fmt::join(needs, ","));
}

// Whether `later` points at a line at or after `first`'s in a file they share.
bool FollowsInOneFile(const Finding &later, const Finding &first) {
  for (const auto &x : later.source_lines)
    for (const auto &y : first.source_lines)
      if (x.line > 0 && y.line > 0 && x.line >= y.line &&
          std::filesystem::path(x.file).filename() == std::filesystem::path(y.file).filename())
        return true;
  return false;
}

bool Probed(const Finding &finding) {
  return finding.detail.is_object() && finding.detail.contains("probe");
}

// "|template=...|wrapper=...|shapes=..." of the code a dying worker had built (its journal,
// case_runner.cpp), when it recorded one. After a probe the template alone: whether the wrapper
// or dynamic shapes matter is what the probe says (`needs`), and one cause met under both would
// split otherwise.
std::string DeathPath(const Finding &finding) {
  if (!finding.detail.is_object() || !finding.detail.contains("code_path") ||
      !finding.detail["code_path"].is_object())
    return "";
  const auto &path = finding.detail["code_path"];
  if (Probed(finding))
    return fmt::format("|template={}", path.value("template", ""));
  return fmt::format("|template={}|wrapper={}|shapes={}", path.value("template", ""),
                     path.value("wrapper", ""), path.value("shapes", ""));
}

// A call sequence names the fields of its later calls callN.FIELD: one cause wrong in the first
// call and in the second is one bug, so the key keeps the field alone.
std::string FieldsOfEveryCall(const std::string &fields) {
  static const std::regex call(R"(^call[0-9]+\.)");
  std::set<std::string> plain;
  std::size_t start = 0;
  while (start <= fields.size()) {
    const auto end = std::min(fields.find(',', start), fields.size());
    if (end > start)
      plain.insert(std::regex_replace(fields.substr(start, end - start), call, ""));
    start = end + 1;
  }
  return fmt::format("{}", fmt::join(plain, ","));
}

// One query row cannot say which rows a cause gets wrong: every row is the first of its block,
// the last, the only one. Where a decode-shape case is wrong everywhere and its probe's rerun
// at a prefill shape fails the same, that rerun says where (a first-row bug is wrong in the first
// row of each block, a bug of the whole output still everywhere).
std::string WhereOf(const Finding &finding, const std::string &where) {
  if (where != "everywhere" || !Probed(finding) || !finding.detail["probe"].is_object())
    return where;
  for (const auto &run : finding.detail["probe"].value("runs", nlohmann::json::array())) {
    if (!run.is_object() || run.value("setting", "") != "shape=decode" ||
        run.value("outcome", "") != "fails-the-same")
      continue;
    const std::string signature = run.value("signature", "");
    std::size_t start = 0;
    while (start < signature.size()) {
      const auto end = std::min(signature.find('|', start), signature.size());
      const std::string fact = signature.substr(start, end - start);
      if (fact.starts_with("where=") && fact.size() > 6)
        return fact.substr(6);
      start = end + 1;
    }
  }
  return where;
}

// The signature's facts with the fields of every call as one, then what the probe found. After a
// probe the wrapper and the shapes leave the key, as for a crash (DeathPath).
std::string WrongResultKey(const Finding &finding) {
  const bool probed = Probed(finding);
  std::string key(KindName(finding.kind));
  for (const auto &[name, value] : finding.essence.facts) {
    if (probed && (name == "wrapper" || name == "shapes"))
      continue;
    key += fmt::format("|{}={}", name,
                       name == "fields"  ? FieldsOfEveryCall(value)
                       : name == "where" ? WhereOf(finding, value)
                                         : NormaliseFact(name, value));
  }
  return key + ProbeNeeds(finding);
}

// "|because=NOTE" of an error no check classified, when Clang said why (its first note's ID):
// one diagnostic about one callee ("no matching function for call to 'f'") is several causes,
// told apart by why no candidate fit (too few arguments, no conversion, deduction failed).
std::string ClangNote(const Finding &finding) {
  const std::string &note = Fact(finding, "because");
  return finding.kind != FindingKind::kAnalysisError || note.empty() ? "" : "|because=" + note;
}

// Whether a redeclaration gave the name the type it had: `auto` is the type a second
// `auto tmp0 = ...;` has when Clang reports it, before it is deduced.
bool SameType(const std::string &type, const std::string &previous) {
  return !type.empty() && (type == previous || type == "auto" || type == "decltype(auto)");
}

// A create_block_mask result whose every wrong field is one of the BlockMask's tables: which
// tables a cause reaches (partial or full blocks, kv or q, which rows) and how the wrong
// entries lie are the mask's and the shape's doing, so the key keeps the kind of table the
// difference starts in (a count is upstream of the indices it bounds) and, for counts, whether
// blocks were lost or gained: every wrong count table's `how` (comparisons.py) is `fewer`, or
// `more`, or they are `mixed`.
std::optional<std::string> BlockMaskTablesKey(const Finding &finding) {
  static const std::set<std::string> tables = {
      "kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices",
      "q_num_blocks",  "q_indices",  "full_q_num_blocks",  "full_q_indices"};
  if (Fact(finding, "api") != "create_block_mask" || !finding.detail.is_object())
    return std::nullopt;
  const auto &mismatches = finding.detail.value("mismatches", nlohmann::json::array());
  if (!mismatches.is_array() || mismatches.empty())
    return std::nullopt;
  static const std::regex call(R"(^call[0-9]+\.)");
  std::set<std::string> count_hows;
  bool indices = false;
  for (const auto &mismatch : mismatches) {
    if (!mismatch.is_object())
      return std::nullopt;
    const std::string field = std::regex_replace(mismatch.value("field", ""), call, "");
    if (!tables.contains(field) || mismatch.value("problem", "") != "values differ")
      return std::nullopt;
    if (field.ends_with("num_blocks"))
      count_hows.insert(mismatch.value("how", ""));
    else
      indices = true;
  }
  std::string key = "wrong-result|api=create_block_mask";
  if (!count_hows.empty()) {
    const bool one_way =
        count_hows.size() == 1 && (*count_hows.begin() == "fewer" || *count_hows.begin() == "more");
    key += fmt::format("|tables=counts|blocks={}", one_way ? *count_hows.begin() : "mixed");
  } else if (indices) {
    key += "|tables=indices";
  }
  key += fmt::format("|template={}", Fact(finding, "template"));
  if (!Probed(finding))
    key += fmt::format("|wrapper={}|shapes={}", Fact(finding, "wrapper"), Fact(finding, "shapes"));
  return key + ProbeNeeds(finding);
}

} // namespace

std::string KernelNameShape(const std::string &text) {
  // After NameShape the kernel's number is <N>; the ops it fused sit between the prefix and it.
  static const std::regex kernel(R"(\bcpp_fused(?:_[A-Za-z0-9]*)*?_(?:<N>|[0-9]+)(?![A-Za-z0-9]))");
  return std::regex_replace(text, kernel, "<kernel>");
}

std::string CollapseArgumentLists(const std::string &text) {
  // A tuple of symbols, numbers and fake tensors with at least one symbol or fake tensor.
  static const std::regex symbols(
      R"(\((?=[^()]*(?:\b(?:s|u|zf|zuf)<N>|FakeTensor))\s*(?:(?:s|u|zf|zuf)<N>|<N>|FakeTensor\(\.\.\.\))(?:\s*,\s*(?:(?:s|u|zf|zuf)<N>|<N>|FakeTensor\(\.\.\.\)))*\s*,?\s*\))");
  static const std::regex parameters(R"(([A-Za-z_][\w:<>~]*)\(([^()'"]+)\))");
  static const std::regex classes(R"(\((?:\s*<class '[^']*'>\s*,?)+\))");
  std::string out = std::regex_replace(text, symbols, "(<symbols>)");
  out = std::regex_replace(out, classes, "(<types>)");
  return std::regex_replace(out, parameters, "$1(...)");
}

std::string NameRole(const std::string &name) {
  static const std::regex accumulator(R"(\b(tmp_acc(?:<N>|[0-9]+))_(?:vec|arr)\b)");
  return std::regex_replace(name, accumulator, "$1");
}

std::string RedeclarationShape(const std::string &message) {
  // g++ spells the declaration as "TYPE NAME" or "TYPE NAME [N]" for an array.
  static const std::regex redeclared(
      R"(^(redeclaration of|conflicting declaration) '[^']*?([A-Za-z_][\w<>]*)(?: \[[^\]]*\])?'(.*)$)");
  std::smatch parts;
  if (!std::regex_match(message, parts, redeclared))
    return message;
  return fmt::format("{} '<type> {}'{}", parts[1].str(), NameRole(parts[2].str()), parts[3].str());
}

std::string_view DetectorOf(FindingKind kind) { return DetectorName(RowOf(kind).detector); }

std::string BugKey(const Finding &finding) {
  const std::string kind(KindName(finding.kind));
  switch (finding.kind) {
  case FindingKind::kException: {
    const std::string &message = Fact(finding, "message");
    if (auto symbol = MissingSymbol(message))
      return *symbol;
    std::string key =
        fmt::format("exception|type={}|message={}", Fact(finding, "type"), ProgramFree(message));
    if (Words(MessageTemplate(message)) < 3)
      key += "|frame=" + NormaliseFact("frame", Fact(finding, "frame"));
    return key;
  }
  case FindingKind::kLoadError: {
    const std::string &symbol = Fact(finding, "symbol");
    if (auto missing = MissingSymbol(symbol))
      return *missing;
    return "load-error|symbol=" + ProgramFree(symbol);
  }
  case FindingKind::kCompileError:
    return fmt::format("compile-error|family={}|message={}|option={}", Fact(finding, "family"),
                       RedeclarationShape(ProgramFree(Fact(finding, "message"))),
                       Fact(finding, "option"));
  case FindingKind::kConflictingDeclaration:
  case FindingKind::kShadowing:
  case FindingKind::kAnalysisError: {
    std::string key = fmt::format("{}|check={}", kind, Fact(finding, "check"));
    if (finding.kind == FindingKind::kAnalysisError)
      key += fmt::format("|diagnostic={}|origin={}", Fact(finding, "diagnostic"),
                         Fact(finding, "origin"));
    // A redeclaration with the type it had: the spelled type is the dtype's, not the cause's.
    const std::string type = TypeShape(Fact(finding, "type"));
    const std::string previous = TypeShape(Fact(finding, "previous_type"));
    const bool same = SameType(type, previous);
    key += fmt::format("|name={}|type={}|previous_type={}", NameKey(Fact(finding, "name")),
                       same ? "<same>" : type, same ? "<same>" : previous);
    return key + ClangNote(finding);
  }
  case FindingKind::kMemoryError:
    return fmt::format("memory-error|kernel={}|statement={}", NameKey(Fact(finding, "kernel")),
                       ProgramFree(Fact(finding, "statement")));
  case FindingKind::kCompilerDivergence: {
    std::string key = fmt::format("compiler-divergence|failed={}|crashed={}",
                                  Fact(finding, "failed"), Fact(finding, "crashed"));
    for (const auto &error : Facts(finding, "error"))
      key += "|error=" + ProgramFree(error);
    return key;
  }
  case FindingKind::kRuntimeDivergence:
    return fmt::format("runtime-divergence|differs={}|how={}|dtype={}", Fact(finding, "differs"),
                       Fact(finding, "how"), Fact(finding, "dtype"));
  case FindingKind::kCrash:
  case FindingKind::kTimeout:
    return Signature(finding) + DeathPath(finding) + ProbeNeeds(finding);
  case FindingKind::kWrongResult:
    if (auto tables = BlockMaskTablesKey(finding))
      return *tables;
    return WrongResultKey(finding);
  default:
    return Signature(finding);
  }
}

std::optional<KeyFacts> ParseKeyFacts(const std::string &text) {
  const auto bar = text.find('|');
  KeyFacts parsed{.kind = text.substr(0, bar)};
  const auto *known = FactsOfKind(parsed.kind);
  if (!known)
    return std::nullopt;
  // A fact starts at "|name=" for a name the kind has; a bar inside a value (a C++ `operator|`
  // in a message) stays in the value.
  const auto fact_at = [&](std::size_t from) -> std::pair<std::size_t, std::string> {
    for (auto at = text.find('|', from); at != std::string::npos; at = text.find('|', at + 1)) {
      const auto equals = text.find('=', at + 1);
      if (equals == std::string::npos)
        break;
      const std::string name = text.substr(at + 1, equals - at - 1);
      if (std::find(known->begin(), known->end(), name) != known->end())
        return {at, name};
    }
    return {std::string::npos, ""};
  };
  if (bar == std::string::npos)
    return parsed;
  auto [at, name] = fact_at(bar);
  if (at != bar)
    return std::nullopt; // text after the kind that starts no fact of it
  while (at != std::string::npos) {
    const auto value_start = at + name.size() + 2;
    auto [next, next_name] = fact_at(value_start);
    parsed.facts.emplace_back(name, text.substr(value_start, next == std::string::npos
                                                                 ? std::string::npos
                                                                 : next - value_start));
    at = next;
    name = std::move(next_name);
  }
  return parsed;
}

std::vector<std::string> ReleaseAnchors(const Finding &finding) {
  std::vector<std::string> anchors = {BugKey(finding)};
  if (finding.kind == FindingKind::kException && !Fact(finding, "frame").empty())
    anchors.push_back(fmt::format("exception|type={}|frame={}", Fact(finding, "type"),
                                  NormaliseFact("frame", Fact(finding, "frame"))));
  return anchors;
}

bool ShareAnAnchor(const std::vector<std::string> &a, const std::vector<std::string> &b) {
  for (const auto &x : a)
    if (std::find(b.begin(), b.end(), x) != b.end())
      return true;
  return false;
}

bool SameCauseInOneCase(const Finding &a, const Finding &b) {
  if (a.kind == FindingKind::kCompilerDivergence || b.kind == FindingKind::kCompilerDivergence) {
    const Finding &divergence = a.kind == FindingKind::kCompilerDivergence ? a : b;
    const Finding &other = a.kind == FindingKind::kCompilerDivergence ? b : a;
    // The worker's own build failing with the error a matrix compiler failed with: one
    // rejection of one TU, seen by two detectors (g++'s always_inline error under
    // cpp.force_inline_kernel, which clang++ builds).
    if (other.kind == FindingKind::kCompileError) {
      const std::string said = ProgramFree(Fact(other, "message"));
      for (const auto &error : Facts(divergence, "error"))
        if (!said.empty() && ProgramFree(error) == said)
          return true;
      return false;
    }
    // A `check` error quoting the same diagnostic text: clang's one rejection seen by the
    // matrix and by static analysis.
    if (!IsCheckKind(other.kind) || other.message.empty())
      return false;
    const std::string said = MessageTemplate(other.message);
    for (const auto &error : Facts(divergence, "error"))
      if (MessageTemplate(error) == said)
        return true;
    return false;
  }
  if (!IsSourceKind(a.kind) || !IsSourceKind(b.kind))
    return false;
  const bool a_check = IsCheckKind(a.kind), b_check = IsCheckKind(b.kind);
  if (a_check && b_check) {
    // Two checks about one name: on one line, or anywhere in the TU when the name is declared
    // at file scope (no enclosing kernel), where a TU has one entity of that name.
    const std::string &name = Fact(a, "name");
    if (name.empty() || name != Fact(b, "name"))
      return false;
    return ShareALine(a, b) ||
           ((Fact(a, "kernel").empty() || Fact(b, "kernel").empty()) && ShareAFile(a, b));
  }
  if (!a_check && !b_check)
    return false;
  const Finding &check = a_check ? a : b;
  const Finding &compiler = a_check ? b : a;
  // An error Clang's check could not classify, at or after the line the compiler's first error
  // is on in the same TU, follows from that error (a lambda's `void` variable after the call
  // that failed to resolve): evidence of its bug, not a bug of its own.
  if (check.kind == FindingKind::kAnalysisError && FollowsInOneFile(check, compiler))
    return true;
  if (!ShareALine(check, compiler))
    return false;
  // A compiler error and a check finding on one line: the same name, or both an error no check
  // classified (g++ and Clang rejecting one line). A redeclaration and a shadowing warning of
  // another name on one line stay two bugs.
  return NamesWord(compiler.message + "\n" + Fact(compiler, "message"), Fact(check, "name")) ||
         check.kind == FindingKind::kAnalysisError;
}

} // namespace corpus
