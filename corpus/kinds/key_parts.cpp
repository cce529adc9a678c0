#include "corpus/kinds/key_parts.h"

#include "corpus/bug_key.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>

namespace corpus::kinds {

std::string Fact(const Finding &finding, std::string_view key) {
  for (const auto &[name, value] : finding.essence.facts)
    if (name == key)
      return value.Text();
  return "";
}

std::string TitleFact(const std::map<std::string, std::string> &facts, const std::string &name) {
  const auto found = facts.find(name);
  return found == facts.end() ? "" : found->second;
}

std::vector<std::string> Facts(const Finding &finding, std::string_view key) {
  std::vector<std::string> values;
  for (const auto &[name, value] : finding.essence.facts)
    if (name == key)
      values.push_back(value.Text());
  return values;
}

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

std::string TypeShape(const std::string &type) {
  static const std::regex parameters(R"(\([^()]*\))");
  return std::regex_replace(KernelNameShape(NameShape(type)), parameters, "(...)");
}

std::string NameKey(const std::string &name) { return NameRole(KernelNameShape(NameShape(name))); }

std::size_t Words(const std::string &text) {
  static const std::regex word(R"([A-Za-z]{2,})");
  return static_cast<std::size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), word), std::sregex_iterator()));
}

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

bool Probed(const Finding &finding) {
  return finding.detail.is_object() && finding.detail.contains("probe");
}

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

namespace {

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

} // namespace

bool Failed(const ReproRun &run) { return !run.timed_out && run.exit_code != 0; }

std::string DeclarationKey(const Finding &finding) {
  std::string key = fmt::format("{}|check={}", KindName(finding.kind), Fact(finding, "check"));
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

} // namespace corpus::kinds
