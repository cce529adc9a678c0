#include "parsers/conflict.h"

namespace parsers {

corpus::Finding ToFinding(const Conflict &conflict) {
  corpus::Finding finding;
  finding.kind = conflict.kind == "shadowing" ? corpus::FindingKind::kShadowing
                                              : corpus::FindingKind::kConflictingDeclaration;
  finding.essence.Add("check", conflict.check)
      .Add("name", conflict.name)
      .Add("type", conflict.type)
      .Add("previous_type", conflict.previous_type)
      .Add("kernel", conflict.kernel);
  finding.summary = conflict.message;
  finding.message = conflict.message;
  finding.diagnostic = conflict.clang_diagnostic;
  finding.source_lines.push_back({conflict.location.file, conflict.location.line, ""});
  if (conflict.previous.line)
    finding.source_lines.push_back({conflict.previous.file, conflict.previous.line, ""});
  finding.subject = conflict.location.file;
  return finding;
}

nlohmann::json ConflictToJson(const Conflict &conflict) {
  auto position = [](const SourcePosition &p) {
    return nlohmann::json{{"file", p.file}, {"line", p.line}, {"column", p.column}};
  };
  return {{"kind", conflict.kind},
          {"check", conflict.check},
          {"severity", conflict.severity},
          {"clang_diagnostic", conflict.clang_diagnostic},
          {"name", conflict.name},
          {"name_shape", corpus::NameShape(conflict.name)},
          {"location", position(conflict.location)},
          {"previous", position(conflict.previous)},
          {"type", conflict.type},
          {"previous_type", conflict.previous_type},
          {"kernel", conflict.kernel},
          {"message", conflict.message},
          {"signature", corpus::Signature(ToFinding(conflict))}};
}

} // namespace parsers
