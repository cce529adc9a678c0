#include "corpus/matrix_record.h"

#include "corpus/field_reader.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <utility>

namespace corpus {
namespace {

using nlohmann::json;

void CheckVersion(FieldReader &reader, int supported, const std::string &document) {
  const auto version = reader.Integer("format_version", 0);
  if (version != supported)
    throw FormatError(fmt::format("{} has format_version {}; this build reads {}: re-run the "
                                  "command that wrote it",
                                  document, version, supported));
}

std::optional<Finding> OptionalFinding(FieldReader &reader, const std::string &key) {
  const json *value = reader.Optional(key);
  if (!value || value->is_null())
    return std::nullopt;
  return FindingFromJson(*value);
}

json BuildToJson(const BuildRecord &build) {
  return {{"compiler", build.compiler},
          {"argv", build.argv},
          {"built", build.built},
          {"exit", build.exit},
          {"timed_out", build.timed_out},
          {"compiler_crashed", build.compiler_crashed},
          {"seconds", build.seconds},
          {"object_size", build.object_size},
          {"errors", build.errors},
          {"warnings", build.warnings},
          {"first_error", build.first_error},
          {"signature", build.signature},
          {"load_error", build.load_error},
          {"runtime", build.runtime},
          {"runtime_detail", build.runtime_detail}};
}

BuildRecord BuildFromJson(const json &value, const std::string &where) {
  FieldReader reader(value, where);
  BuildRecord build;
  build.compiler = reader.String("compiler");
  build.argv = reader.Strings("argv");
  build.built = reader.Boolean("built");
  build.exit = reader.String("exit");
  build.timed_out = reader.Boolean("timed_out");
  build.compiler_crashed = reader.Boolean("compiler_crashed");
  build.seconds = reader.Number("seconds");
  build.object_size = static_cast<std::uintmax_t>(reader.Integer("object_size", 0));
  build.errors = static_cast<int>(reader.Integer("errors", 0));
  build.warnings = reader.Strings("warnings");
  build.first_error = reader.String("first_error");
  build.signature = reader.String("signature");
  build.load_error = reader.String("load_error");
  build.runtime = reader.String("runtime");
  build.runtime_detail = reader.Required("runtime_detail");
  reader.RejectUnknown();
  return build;
}

constexpr std::array<std::pair<CompareVerdict, std::string_view>, 8> kVerdictNames = {{
    {CompareVerdict::kSame, "same"},
    {CompareVerdict::kNewWarnings, "new-warnings"},
    {CompareVerdict::kFixed, "fixed"},
    {CompareVerdict::kBothFail, "both-fail"},
    {CompareVerdict::kRegression, "regression"},
    {CompareVerdict::kLoadRegression, "load-regression"},
    {CompareVerdict::kRuntimeDiffers, "runtime-differs"},
    {CompareVerdict::kRounding, "rounding"},
}};

json SideToJson(const CompareSide &side) {
  return {{"built", side.built},
          {"seconds", side.seconds},
          {"object_size", side.object_size},
          {"first_error", side.first_error},
          {"warnings", side.warnings},
          {"new_warnings", side.new_warnings},
          {"known_warnings", side.known_warnings},
          {"load_error", side.load_error},
          {"runtime", side.runtime},
          {"float64_reference", side.float64_reference}};
}

CompareSide SideFromJson(const json &value, const std::string &where) {
  FieldReader reader(value, where);
  CompareSide side;
  side.built = reader.Boolean("built");
  side.seconds = reader.Number("seconds");
  side.object_size = static_cast<std::uintmax_t>(reader.Integer("object_size", 0));
  side.first_error = reader.String("first_error");
  side.warnings = static_cast<std::size_t>(reader.Integer("warnings", 0));
  side.new_warnings = reader.Strings("new_warnings");
  side.known_warnings = reader.Strings("known_warnings");
  side.load_error = reader.String("load_error");
  side.runtime = reader.String("runtime");
  if (const auto *reference = reader.Optional("float64_reference")) // absent before stop 59
    side.float64_reference = *reference;
  reader.RejectUnknown();
  return side;
}

CompilerIdentity CompilerFromJson(const json &value, const std::string &where) {
  FieldReader reader(value, where);
  CompilerIdentity compiler{reader.String("name"), reader.String("version")};
  reader.RejectUnknown();
  return compiler;
}

const json &ListField(FieldReader &reader, const std::string &key) {
  const json &list = reader.Required(key);
  if (!list.is_array())
    throw FormatError(fmt::format("{} must be a list", reader.Label(key)));
  return list;
}

} // namespace

std::vector<Finding> MatrixRow::Findings() const {
  std::vector<Finding> findings;
  if (divergence)
    findings.push_back(*divergence);
  findings.insert(findings.end(), load_findings.begin(), load_findings.end());
  if (runtime_finding)
    findings.push_back(*runtime_finding);
  findings.insert(findings.end(), memory_errors.begin(), memory_errors.end());
  return findings;
}

json MatrixRecordToJson(const MatrixRecord &record) {
  json rows = json::array();
  for (const auto &row : record.rows) {
    json builds = json::array();
    for (const auto &build : row.builds)
      builds.push_back(BuildToJson(build));
    json load_findings = json::array(), memory_errors = json::array();
    for (const auto &finding : row.load_findings)
      load_findings.push_back(FindingToJson(finding));
    for (const auto &finding : row.memory_errors)
      memory_errors.push_back(FindingToJson(finding));
    rows.push_back(
        {{"tu", row.tu},
         {"source", row.source},
         {"recording", row.recording},
         {"reference_runtime", row.reference_runtime},
         {"builds", builds},
         {"finding", row.divergence ? FindingToJson(*row.divergence) : json()},
         {"runtime_finding", row.runtime_finding ? FindingToJson(*row.runtime_finding) : json()},
         {"load_findings", load_findings},
         {"memory_errors", memory_errors}});
  }
  return {{"format_version", kMatrixRecordFormatVersion},
          {"provenance", record.provenance},
          {"tus", rows}};
}

MatrixRecord MatrixRecordFromJson(const json &document) {
  FieldReader reader(document, "", "the matrix result");
  CheckVersion(reader, kMatrixRecordFormatVersion, "the matrix result");
  MatrixRecord record;
  record.provenance = reader.Required("provenance");
  const json &tus = ListField(reader, "tus");
  for (std::size_t i = 0; i < tus.size(); ++i) {
    const std::string where = fmt::format("tus[{}]", i);
    FieldReader row_reader(tus[i], where);
    MatrixRow row;
    row.tu = row_reader.String("tu");
    row.source = row_reader.String("source");
    row.recording = row_reader.String("recording");
    row.reference_runtime = row_reader.String("reference_runtime");
    const json &builds = ListField(row_reader, "builds");
    for (std::size_t b = 0; b < builds.size(); ++b)
      row.builds.push_back(BuildFromJson(builds[b], fmt::format("{}.builds[{}]", where, b)));
    row.divergence = OptionalFinding(row_reader, "finding");
    row.runtime_finding = OptionalFinding(row_reader, "runtime_finding");
    for (const auto &finding : ListField(row_reader, "load_findings"))
      row.load_findings.push_back(FindingFromJson(finding));
    // Records from before the sanitizer column have none.
    if (tus[i].contains("memory_errors"))
      for (const auto &finding : ListField(row_reader, "memory_errors"))
        row.memory_errors.push_back(FindingFromJson(finding));
    row_reader.RejectUnknown();
    record.rows.push_back(std::move(row));
  }
  reader.RejectUnknown();
  return record;
}

void WriteMatrixRecord(const std::filesystem::path &path, const MatrixRecord &record) {
  support::WriteFileAtomically(path, MatrixRecordToJson(record).dump(2) + "\n");
}

void WriteCachedBuild(const std::filesystem::path &path, const BuildRecord &build) {
  json document = BuildToJson(build);
  document["format_version"] = kCachedBuildFormatVersion;
  support::WriteFileAtomically(path, document.dump(2) + "\n");
}

BuildRecord ReadCachedBuild(const std::filesystem::path &path) {
  json document = ReadJsonDocument(path, "cached build", "delete the build cache folder");
  try {
    FieldReader reader(document, path.string());
    CheckVersion(reader, kCachedBuildFormatVersion, "cached build " + path.string());
    document.erase("format_version");
    return BuildFromJson(document, path.string());
  } catch (const FormatError &error) {
    throw FormatError(fmt::format("{}: {}", path.string(), error.what()));
  }
}

MatrixRecord ReadMatrixRecord(const std::filesystem::path &path) {
  const json document = ReadJsonDocument(path, "matrix result", "re-run `inductor-fuzz matrix`");
  try {
    return MatrixRecordFromJson(document);
  } catch (const FormatError &error) {
    throw FormatError(fmt::format("{}: {}", path.string(), error.what()));
  }
}

std::string_view VerdictName(CompareVerdict verdict) {
  for (const auto &[value, name] : kVerdictNames)
    if (value == verdict)
      return name;
  return "unknown";
}

std::optional<CompareVerdict> VerdictFromName(std::string_view name) {
  for (const auto &[value, known] : kVerdictNames)
    if (known == name)
      return value;
  return std::nullopt;
}

bool IsRegression(CompareVerdict verdict) {
  return verdict == CompareVerdict::kRegression || verdict == CompareVerdict::kLoadRegression ||
         verdict == CompareVerdict::kRuntimeDiffers;
}

std::map<std::string, int> CompareRecord::Counts() const {
  std::map<std::string, int> counts;
  for (const auto &row : rows)
    ++counts[std::string(VerdictName(row.verdict))];
  return counts;
}

int CompareRecord::Regressions() const {
  int regressions = 0;
  for (const auto &row : rows)
    regressions += IsRegression(row.verdict);
  return regressions;
}

json CompareRecordToJson(const CompareRecord &record) {
  json rows = json::array();
  for (const auto &row : record.rows)
    rows.push_back(
        {{"tu", row.tu},
         {"verdict", VerdictName(row.verdict)},
         {"baseline", SideToJson(row.baseline)},
         {"candidate", SideToJson(row.candidate)},
         {"reference_runtime", row.reference_runtime},
         {"runtime_finding", row.runtime_finding ? FindingToJson(*row.runtime_finding) : json()},
         {"fp_pinning", row.fp_pinning},
         {"compile_seconds_delta", row.CompileSecondsDelta()},
         {"object_size_delta", row.ObjectSizeDelta()}});
  return {{"format_version", kCompareRecordFormatVersion},
          {"provenance", record.provenance},
          {"baseline", {{"name", record.baseline.name}, {"version", record.baseline.version}}},
          {"candidate", {{"name", record.candidate.name}, {"version", record.candidate.version}}},
          {"counts", record.Counts()},
          {"tus", rows}};
}

CompareRecord CompareRecordFromJson(const json &document) {
  FieldReader reader(document, "", "the compare result");
  CheckVersion(reader, kCompareRecordFormatVersion, "the compare result");
  CompareRecord record;
  record.provenance = reader.Required("provenance");
  record.baseline = CompilerFromJson(reader.Required("baseline"), "baseline");
  record.candidate = CompilerFromJson(reader.Required("candidate"), "candidate");
  const json &tus = ListField(reader, "tus");
  for (std::size_t i = 0; i < tus.size(); ++i) {
    const std::string where = fmt::format("tus[{}]", i);
    FieldReader row_reader(tus[i], where);
    CompareRow row;
    row.tu = row_reader.String("tu");
    const std::string verdict = row_reader.String("verdict");
    const auto parsed = VerdictFromName(verdict);
    if (!parsed)
      throw FormatError(fmt::format("{} is '{}', which is not a compare verdict",
                                    row_reader.Label("verdict"), verdict));
    row.verdict = *parsed;
    row.baseline = SideFromJson(row_reader.Required("baseline"), where + ".baseline");
    row.candidate = SideFromJson(row_reader.Required("candidate"), where + ".candidate");
    row.reference_runtime = row_reader.String("reference_runtime");
    row.runtime_finding = OptionalFinding(row_reader, "runtime_finding");
    if (const auto *pinning = row_reader.Optional("fp_pinning")) // absent before stop 60
      row.fp_pinning = *pinning;
    // The deltas and counts are derived; they are read to be known fields, not trusted.
    row_reader.Number("compile_seconds_delta");
    row_reader.CheckInteger("object_size_delta", row_reader.Required("object_size_delta"),
                            std::numeric_limits<std::int64_t>::min());
    row_reader.RejectUnknown();
    record.rows.push_back(std::move(row));
  }
  const json &counts = reader.Required("counts");
  if (!counts.is_object() || counts != json(record.Counts()))
    throw FormatError(fmt::format("field 'counts' does not match the verdicts of field 'tus'; "
                                  "the file was edited or truncated: re-run `inductor-fuzz "
                                  "compare`"));
  reader.RejectUnknown();
  return record;
}

void WriteCompareRecord(const std::filesystem::path &path, const CompareRecord &record) {
  support::WriteFileAtomically(path, CompareRecordToJson(record).dump(2) + "\n");
}

CompareRecord ReadCompareRecord(const std::filesystem::path &path) {
  const json document =
      ReadJsonDocument(path, "compare result", "re-run `inductor-fuzz compare --report`");
  try {
    return CompareRecordFromJson(document);
  } catch (const FormatError &error) {
    throw FormatError(fmt::format("{}: {}", path.string(), error.what()));
  }
}

} // namespace corpus
