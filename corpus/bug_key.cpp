#include "corpus/bug_key.h"

#include "corpus/finding_kinds.h"
#include "corpus/kinds/key_parts.h"
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

using kinds::Fact;
using kinds::Facts;
using kinds::ProgramFree;

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

// Whether `later` points at a line at or after `first`'s in a file they share.
bool FollowsInOneFile(const Finding &later, const Finding &first) {
  for (const auto &x : later.source_lines)
    for (const auto &y : first.source_lines)
      if (x.line > 0 && y.line > 0 && x.line >= y.line &&
          std::filesystem::path(x.file).filename() == std::filesystem::path(y.file).filename())
        return true;
  return false;
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
  const auto &row = RowOf(finding.kind);
  return row.key ? row.key(finding) : Signature(finding);
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
