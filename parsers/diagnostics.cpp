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
  diagnostic.message_template = MessageTemplate(diagnostic.message);
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

std::string MessageTemplate(const std::string &message) {
  static const std::regex quoted(R"((['"])([^'"]*)\1)"); // nvcc quotes names with "
  static const std::regex address(R"(0x[0-9a-fA-F]+)");
  static const std::regex path(R"((/[\w.+-]+)+/?)");
  static const std::regex hash(R"(\b[a-z0-9]{24,}\b)");
  static const std::regex number(R"(\b\d+\b)");
  std::string text = message;
  for (const char *curly : {"\u2018", "\u2019"}) // gcc's quotes in a UTF-8 locale
    for (auto at = text.find(curly); at != std::string::npos; at = text.find(curly, at))
      text.replace(at, std::string_view(curly).size(), "'");
  text = std::regex_replace(text, address, "<addr>");
  text = std::regex_replace(text, hash, "<hash>");
  text = std::regex_replace(text, path, "<path>");
  // Quoted names keep their shape (tmp_acc0_arr -> tmp_acc<N>_arr); bare numbers become <N>.
  std::string out;
  auto begin = std::sregex_iterator(text.begin(), text.end(), quoted);
  std::size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += std::regex_replace(text.substr(last, it->position() - last), number, "<N>");
    out += std::string((*it)[1]) + NameShape((*it)[2]) + std::string((*it)[1]);
    last = it->position() + it->length();
  }
  out += std::regex_replace(text.substr(last), number, "<N>");
  return out;
}

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
    diagnostic.message_template = MessageTemplate(diagnostic.message);
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

std::string CompileErrorSignature(CompilerFamily family,
                                  const std::vector<CompilerDiagnostic> &diagnostics) {
  for (const auto &diagnostic : diagnostics)
    if (diagnostic.severity == "error" || diagnostic.severity == "fatal error")
      return fmt::format("compile-error|{}|{}|{}", FamilyName(family), diagnostic.message_template,
                         diagnostic.option);
  return fmt::format("compile-error|{}|no error diagnostic", FamilyName(family));
}

std::string ExceptionSignature(const std::string &type, const std::string &message,
                               const std::vector<std::string> &torch_frames) {
  const std::string first_line = message.substr(0, message.find('\n'));
  std::string frames;
  const std::size_t keep = 3;
  for (std::size_t i = torch_frames.size() > keep ? torch_frames.size() - keep : 0;
       i < torch_frames.size(); ++i)
    frames += (frames.empty() ? "" : ">") + torch_frames[i];
  return fmt::format("exception|{}|{}|{}", type, MessageTemplate(first_line), frames);
}

} // namespace parsers
