#include "parsers/finding.h"

#include <fmt/format.h>

#include <regex>

namespace parsers {

std::string NameShape(const std::string &name) {
  static const std::regex digits("[0-9]+");
  return std::regex_replace(name, digits, "<N>");
}

std::string FindingSignature(const Finding &finding, bool include_shadowing) {
  if (finding.kind == "shadowing" && !include_shadowing)
    return "";
  return fmt::format("{}:{}:{}:{}|{}:{}", finding.kind, finding.check, NameShape(finding.name),
                     NameShape(finding.type), NameShape(finding.previous_type),
                     NameShape(finding.kernel));
}

nlohmann::json FindingToJson(const Finding &finding) {
  auto position = [](const SourcePosition &p) {
    return nlohmann::json{{"file", p.file}, {"line", p.line}, {"column", p.column}};
  };
  return {{"kind", finding.kind},
          {"check", finding.check},
          {"severity", finding.severity},
          {"clang_diagnostic", finding.clang_diagnostic},
          {"name", finding.name},
          {"name_shape", NameShape(finding.name)},
          {"location", position(finding.location)},
          {"previous", position(finding.previous)},
          {"type", finding.type},
          {"previous_type", finding.previous_type},
          {"kernel", finding.kernel},
          {"message", finding.message},
          {"signature", FindingSignature(finding)}};
}

} // namespace parsers
