#include "parsers/conflict.h"

namespace parsers {
namespace {

corpus::FindingKind KindOf(const Conflict &conflict) {
  if (conflict.kind == "shadowing")
    return corpus::FindingKind::kShadowing;
  if (conflict.kind == "analysis-error")
    return corpus::FindingKind::kAnalysisError;
  return corpus::FindingKind::kConflictingDeclaration;
}

} // namespace

corpus::Finding ToFinding(const Conflict &conflict) {
  corpus::Finding finding;
  finding.kind = KindOf(conflict);
  finding.essence.Add("check", conflict.check);
  // An error no check knows is keyed by Clang's diagnostic ID, never its text.
  if (finding.kind == corpus::FindingKind::kAnalysisError)
    finding.essence.Add("diagnostic", conflict.clang_diagnostic).Add("origin", conflict.origin);
  finding.essence.Add("name", conflict.name)
      .Add("type", conflict.type)
      .Add("previous_type", conflict.previous_type)
      .Add("kernel", conflict.kernel);
  // Why no candidate fit, for an unclassified error Clang attached a note to: one diagnostic
  // about one callee is several causes. In the signature, since a stored finding keeps the
  // first hit's detail only; absent (not empty) without a note, so older signatures stand.
  if (finding.kind == corpus::FindingKind::kAnalysisError && !conflict.note_diagnostic.empty())
    finding.essence.Add("because", conflict.note_diagnostic);
  finding.summary = conflict.message;
  finding.message = conflict.message;
  finding.diagnostic = conflict.clang_diagnostic;
  finding.source_lines.push_back({conflict.location.file, conflict.location.line, ""});
  if (conflict.previous.line)
    finding.source_lines.push_back({conflict.previous.file, conflict.previous.line, ""});
  if (!conflict.reported_by.empty())
    finding.compilers.push_back(conflict.reported_by);

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
          {"reported_by", conflict.reported_by.empty() ? "clang" : conflict.reported_by},
          {"name", conflict.name},
          {"name_shape", corpus::NameShape(conflict.name)},
          {"location", position(conflict.location)},
          {"previous", position(conflict.previous)},
          {"type", conflict.type},
          {"previous_type", conflict.previous_type},
          {"kernel", conflict.kernel},
          {"scope", conflict.scope},
          {"origin", conflict.origin},
          {"message", conflict.message},
          {"note_diagnostic", conflict.note_diagnostic},
          {"signature", corpus::Signature(ToFinding(conflict))}};
}

} // namespace parsers
