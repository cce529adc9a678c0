#include "fuzzer/matrix/warnings.h"

#include "support/errors.h"
#include "support/reasoned_table.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace fuzzer::matrix {
namespace {

constexpr std::string_view kInFunction = " in ";

// The name before a definition's parameter list, template arguments included.
std::string DefinedName(std::string_view line) {
  const auto paren = line.find('(');
  if (paren == std::string_view::npos || paren == 0)
    return "";
  std::size_t end = paren;
  while (end > 0 && line[end - 1] == ' ')
    --end;
  std::size_t begin = end;
  if (begin > 0 && line[begin - 1] == '>') {
    int depth = 0;
    while (begin > 0) {
      const char c = line[--begin];
      depth += c == '>' ? 1 : c == '<' ? -1 : 0;
      if (depth == 0)
        break;
    }
  }
  while (begin > 0 && (support::IsIdentifierChar(line[begin - 1]) || line[begin - 1] == ':'))
    --begin;
  return std::string(line.substr(begin, end - begin));
}

bool StartsDefinition(std::string_view line) {
  if (line.empty() || std::isspace(static_cast<unsigned char>(line[0])))
    return false;
  for (std::string_view skip : {"#", "//", "/*", "{", "}", "namespace", "template <typename",
                                "using ", "typedef ", "struct ", "class "})
    if (line.starts_with(skip) && !(skip == "template <typename" && line.find('(') != line.npos))
      return false;
  return line.find('(') != std::string_view::npos;
}

} // namespace

std::string WarningIdentity::Key() const {
  return function.empty() ? option : option + std::string(kInFunction) + function;
}

WarningIdentity WarningIdentity::FromKey(std::string_view key) {
  // An option never holds " in "; a message template (the fallback) may, so split at the last.
  const auto at = key.rfind(kInFunction);
  if (at == std::string_view::npos)
    return {std::string(key), ""};
  return {std::string(key.substr(0, at)), std::string(key.substr(at + kInFunction.size()))};
}

std::string NameShape(std::string_view text) {
  std::string shaped;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!support::IsIdentifierChar(text[i])) {
      shaped += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && support::IsIdentifierChar(text[end]))
      ++end;
    std::string_view token = text.substr(i, end - i);
    std::size_t digits = token.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(token[digits - 1])))
      --digits;
    const bool identifier = !std::isdigit(static_cast<unsigned char>(token[0]));
    if (identifier && digits < token.size()) {
      shaped += token.substr(0, digits);
      shaped += 'N';
    } else {
      shaped += token;
    }
    i = end;
  }
  return shaped;
}

std::string EnclosingFunctionShape(const std::vector<std::string> &lines, int line) {
  for (int at = std::min<int>(line, static_cast<int>(lines.size())) - 1; at >= 0; --at)
    if (StartsDefinition(lines[at]))
      return NameShape(DefinedName(lines[at]));
  return "";
}

std::vector<std::string> WarningKeys(const std::vector<parsers::CompilerDiagnostic> &diagnostics,
                                     const std::filesystem::path &source) {
  std::vector<std::string> keys;
  std::vector<std::string> lines;
  bool read = false;
  for (const auto &diagnostic : diagnostics) {
    if (diagnostic.severity != "warning" || diagnostic.location.file != source.string())
      continue;
    if (!read) {
      std::ifstream in(source);
      for (std::string text; std::getline(in, text);)
        lines.push_back(std::move(text));
      read = true;
    }
    WarningIdentity identity{.option = diagnostic.option.empty()
                                           ? "warning: " + diagnostic.message_template
                                           : diagnostic.option,
                             .function = EnclosingFunctionShape(lines, diagnostic.location.line)};
    std::string key = identity.Key();
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      keys.push_back(std::move(key));
  }
  return keys;
}

KnownWarnings KnownWarnings::Parse(std::string_view text, const std::string &origin) {
  KnownWarnings known;
  known.origin_ = origin;
  for (auto &line :
       support::ReadReasonedTable(text, origin, 3, "COMPILERS OPTION FUNCTION -- WHY")) {
    KnownWarning warning{.compilers = line.fields[0],
                         .option = line.fields[1],
                         .function = line.fields[2],
                         .reason = std::move(line.reason),
                         .line = line.number};
    if (warning.compilers != "*" && warning.compilers != "gcc" && warning.compilers != "clang")
      throw support::InputError(fmt::format("{} line {}: compilers '{}' is not gcc, clang or *",
                                            origin, line.number, warning.compilers));
    known.entries_.push_back(std::move(warning));
  }
  return known;
}

KnownWarnings KnownWarnings::CheckedIn() {
  return Parse(CheckedInKnownWarnings(), "the checked-in known warnings");
}

KnownWarnings KnownWarnings::Read(const std::filesystem::path &path) {
  return Parse(support::ReadTextFile(path, "known warnings file", std::size_t{1} << 20),
               path.string());
}

const KnownWarning *KnownWarnings::Match(const std::string &compiler, std::string_view key) const {
  const WarningIdentity identity = WarningIdentity::FromKey(key);
  const std::string family = parsers::FamilyName(parsers::FamilyOfCompiler(compiler));
  for (const auto &entry : entries_)
    if ((entry.compilers == "*" || entry.compilers == family) &&
        support::GlobMatches(entry.option, identity.option) &&
        support::GlobMatches(entry.function, identity.function))
      return &entry;
  return nullptr;
}

} // namespace fuzzer::matrix
