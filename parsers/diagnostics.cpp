#include "parsers/diagnostics.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <sstream>

namespace parsers {
namespace {

CompilerDiagnostic FromGccJson(const nlohmann::json &item) {
  CompilerDiagnostic diagnostic;
  diagnostic.severity = item.value("kind", "");
  diagnostic.option = item.value("option", "");
  diagnostic.message = item.value("message", "");
  diagnostic.message_template = corpus::MessageTemplate(diagnostic.message);
  if (item.contains("locations") && !item["locations"].empty()) {
    const auto &caret = item["locations"][0].value("caret", nlohmann::json::object());
    diagnostic.location = {caret.value("file", ""), caret.value("line", 0u),
                           caret.value("column", 0u)};
  }
  for (const auto &child : item.value("children", nlohmann::json::array()))
    diagnostic.notes.push_back(FromGccJson(child));
  return diagnostic;
}

} // namespace

std::vector<CompilerDiagnostic> ParseGccJson(const std::string &text) {
  std::vector<CompilerDiagnostic> diagnostics;
  // gcc prints one JSON array per TU; take every array on the output.
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto document = nlohmann::json::parse(line, nullptr, false);
    if (!document.is_array())
      continue;
    for (const auto &item : document)
      diagnostics.push_back(FromGccJson(item));
  }
  return diagnostics;
}

std::vector<CompilerDiagnostic> ParseCompilerText(const std::string &text, CompilerFamily family) {
  // gcc and clang: file:line:col: severity: message [-Wflag]; nvcc: file(line): severity: message
  static const std::regex gnu(
      R"(^(.+?):(\d+):(?:(\d+):)?\s*(fatal error|error|warning|note|remark):\s*(.*?)(?:\s*\[(-W[^\]]+)\])?\s*$)");
  static const std::regex edg(
      R"(^(.+?)\((\d+)\):\s*(catastrophic error|error|warning|remark)(?: #\S+)?:\s*(.*)$)");
  static const std::regex tool(
      R"(^(cc1plus|clang|nvcc|g\+\+|c\+\+)[^:]*:\s*(fatal error|error|warning):\s*(.*)$)");
  std::vector<CompilerDiagnostic> diagnostics;
  std::istringstream lines(text);
  std::string line;
  std::smatch match;
  while (std::getline(lines, line)) {
    CompilerDiagnostic diagnostic;
    if (std::regex_match(line, match, gnu)) {
      diagnostic.location = {match[1], static_cast<unsigned>(std::stoul(match[2])),
                             match[3].matched ? static_cast<unsigned>(std::stoul(match[3])) : 0u};
      diagnostic.severity = match[4];
      diagnostic.message = match[5];
      diagnostic.option = match[6].matched ? std::string(match[6]) : "";
    } else if (family == CompilerFamily::kNvcc && std::regex_match(line, match, edg)) {
      diagnostic.location = {match[1], static_cast<unsigned>(std::stoul(match[2])), 0};
      diagnostic.severity =
          match[3] == "catastrophic error" ? "fatal error" : std::string(match[3]);
      diagnostic.message = match[4];
    } else if (std::regex_match(line, match, tool)) {
      diagnostic.severity = match[2];
      diagnostic.message = match[3];
    } else {
      continue;
    }
    diagnostic.message_template = corpus::MessageTemplate(diagnostic.message);
    if (diagnostic.severity == "note" && !diagnostics.empty())
      diagnostics.back().notes.push_back(std::move(diagnostic));
    else
      diagnostics.push_back(std::move(diagnostic));
  }
  return diagnostics;
}

CompilerFamily FamilyOfCompiler(const std::string &program) {
  const std::string name = program.substr(program.find_last_of('/') + 1);
  if (name.find("nvcc") != std::string::npos)
    return CompilerFamily::kNvcc;
  if (name.find("clang") != std::string::npos)
    return CompilerFamily::kClang;
  return CompilerFamily::kGcc;
}

std::string FamilyName(CompilerFamily family) {
  switch (family) {
  case CompilerFamily::kGcc:
    return "gcc";
  case CompilerFamily::kClang:
    return "clang";
  case CompilerFamily::kNvcc:
    return "nvcc";
  }
  return "unknown";
}

corpus::Finding CompileErrorFinding(CompilerFamily family,
                                    const std::vector<CompilerDiagnostic> &diagnostics) {
  corpus::Finding finding;
  finding.kind = corpus::FindingKind::kCompileError;
  finding.essence.Add("family", FamilyName(family));
  for (const auto &diagnostic : diagnostics)
    if (diagnostic.severity == "error" || diagnostic.severity == "fatal error") {
      finding.essence.Add("message", diagnostic.message).Add("option", diagnostic.option);
      finding.summary = diagnostic.message;
      finding.message = diagnostic.message;
      finding.diagnostic = diagnostic.option;
      finding.source_lines.push_back({diagnostic.location.file, diagnostic.location.line, ""});
      return finding;
    }
  finding.essence.Add("message", "no error diagnostic");
  finding.summary = "the compiler failed without an error diagnostic";
  return finding;
}

} // namespace parsers
