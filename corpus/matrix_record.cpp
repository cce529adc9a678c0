#include "corpus/matrix_record.h"

#include "corpus/field_reader.h"
#include "corpus/record_fields.h"
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

// A finding member that may be null (none found) or, in an older record, absent.
template <class Record>
RecordField<Record> OptionalFindingField(std::string_view name,
                                         std::optional<Finding> Record::*member) {
  return CustomField<Record>(
      name,
      [member](const Record &record) {
        return record.*member ? FindingToJson(*(record.*member)) : json();
      },
      [member](FieldReader &reader, const std::string &key, Record &record) {
        const json *value = reader.Optional(key);
        record.*member =
            value && !value->is_null() ? std::optional(FindingFromJson(*value)) : std::nullopt;
      });
}

// A list of findings; `since` names the stop that added it where an older record may lack it.
template <class Record>
RecordField<Record> FindingsField(std::string_view name, std::vector<Finding> Record::*member,
                                  bool may_be_absent = false) {
  return CustomField<Record>(
      name,
      [member](const Record &record) {
        json findings = json::array();
        for (const auto &finding : record.*member)
          findings.push_back(FindingToJson(finding));
        return findings;
      },
      [member, may_be_absent](FieldReader &reader, const std::string &key, Record &record) {
        const json *findings = may_be_absent ? reader.Optional(key) : &reader.Required(key);
        if (!findings)
          return;
        if (!findings->is_array())
          throw FormatError(fmt::format("{} must be a list", reader.Label(key)));
        for (const auto &finding : *findings)
          (record.*member).push_back(FindingFromJson(finding));
      });
}

// format_version, written as `version` and refused when it is another.
template <class Record> RecordField<Record> VersionField(int version, std::string document) {
  return CustomField<Record>(
      "format_version", [version](const Record &) { return json(version); },
      [version, document](FieldReader &reader, const std::string &, Record &) {
        CheckVersion(reader, version, document);
      });
}

const RecordFields<BuildRecord> &BuildFields() {
  static const RecordFields<BuildRecord> fields = {
      MemberField("compiler", &BuildRecord::compiler),
      MemberField("argv", &BuildRecord::argv),
      MemberField("built", &BuildRecord::built),
      MemberField("exit", &BuildRecord::exit),
      MemberField("timed_out", &BuildRecord::timed_out),
      MemberField("compiler_crashed", &BuildRecord::compiler_crashed),
      MemberField("seconds", &BuildRecord::seconds),
      MemberField("object_size", &BuildRecord::object_size),
      MemberField("errors", &BuildRecord::errors),
      MemberField("warnings", &BuildRecord::warnings),
      MemberField("first_error", &BuildRecord::first_error),
      MemberField("signature", &BuildRecord::signature),
      MemberField("load_error", &BuildRecord::load_error),
      MemberField("runtime", &BuildRecord::runtime),
      MemberField("runtime_detail", &BuildRecord::runtime_detail)};
  return fields;
}

json BuildToJson(const BuildRecord &build) { return WriteFields(BuildFields(), build); }

BuildRecord BuildFromJson(const json &value, const std::string &where) {
  FieldReader reader(value, where);
  BuildRecord build;
  ReadFields(BuildFields(), reader, build);
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

const RecordFields<CompareSide> &SideFields() {
  static const RecordFields<CompareSide> fields = {
      MemberField("built", &CompareSide::built),
      MemberField("seconds", &CompareSide::seconds),
      MemberField("object_size", &CompareSide::object_size),
      MemberField("first_error", &CompareSide::first_error),
      MemberField("warnings", &CompareSide::warnings),
      MemberField("new_warnings", &CompareSide::new_warnings),
      MemberField("known_warnings", &CompareSide::known_warnings),
      MemberField("load_error", &CompareSide::load_error),
      MemberField("runtime", &CompareSide::runtime),
      CustomField<CompareSide>(
          "float64_reference", [](const CompareSide &side) { return side.float64_reference; },
          [](FieldReader &reader, const std::string &key, CompareSide &side) {
            if (const auto *reference = reader.Optional(key)) // absent before stop 59
              side.float64_reference = *reference;
          })};
  return fields;
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

namespace {

const RecordFields<MatrixRow> &MatrixRowFields() {
  static const RecordFields<MatrixRow> fields = {
      MemberField("tu", &MatrixRow::tu), MemberField("source", &MatrixRow::source),
      MemberField("recording", &MatrixRow::recording),
      MemberField("reference_runtime", &MatrixRow::reference_runtime),
      ListField("builds", &MatrixRow::builds, &BuildFields),
      OptionalFindingField("finding", &MatrixRow::divergence),
      OptionalFindingField("runtime_finding", &MatrixRow::runtime_finding),
      FindingsField("load_findings", &MatrixRow::load_findings),
      // Records from before the sanitizer column have none.
      FindingsField("memory_errors", &MatrixRow::memory_errors, true)};
  return fields;
}

const RecordFields<MatrixRecord> &MatrixRecordFields() {
  static const RecordFields<MatrixRecord> fields = {
      VersionField<MatrixRecord>(kMatrixRecordFormatVersion, "the matrix result"),
      MemberField("provenance", &MatrixRecord::provenance),
      ListField("tus", &MatrixRecord::rows, &MatrixRowFields)};
  return fields;
}

} // namespace

json MatrixRecordToJson(const MatrixRecord &record) {
  return WriteFields(MatrixRecordFields(), record);
}

MatrixRecord MatrixRecordFromJson(const json &document) {
  FieldReader reader(document, "", "the matrix result");
  MatrixRecord record;
  ReadFields(MatrixRecordFields(), reader, record);
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

namespace {

const RecordFields<CompilerIdentity> &CompilerFields() {
  static const RecordFields<CompilerIdentity> fields = {
      MemberField("name", &CompilerIdentity::name),
      MemberField("version", &CompilerIdentity::version)};
  return fields;
}

const RecordFields<CompareRow> &CompareRowFields() {
  static const RecordFields<CompareRow> fields = {
      MemberField("tu", &CompareRow::tu),
      CustomField<CompareRow>(
          "verdict", [](const CompareRow &row) { return json(VerdictName(row.verdict)); },
          [](FieldReader &reader, const std::string &key, CompareRow &row) {
            const std::string verdict = reader.String(key);
            const auto parsed = VerdictFromName(verdict);
            if (!parsed)
              throw FormatError(fmt::format("{} is '{}', which is not a compare verdict",
                                            reader.Label(key), verdict));
            row.verdict = *parsed;
          }),
      ObjectField("baseline", &CompareRow::baseline, &SideFields),
      ObjectField("candidate", &CompareRow::candidate, &SideFields),
      MemberField("reference_runtime", &CompareRow::reference_runtime),
      OptionalFindingField("runtime_finding", &CompareRow::runtime_finding),
      CustomField<CompareRow>(
          "fp_pinning", [](const CompareRow &row) { return row.fp_pinning; },
          [](FieldReader &reader, const std::string &key, CompareRow &row) {
            if (const auto *pinning = reader.Optional(key)) // absent before stop 60
              row.fp_pinning = *pinning;
          }),
      // The deltas are derived; they are read to be known fields, not trusted.
      CustomField<CompareRow>(
          "compile_seconds_delta",
          [](const CompareRow &row) { return json(row.CompileSecondsDelta()); },
          [](FieldReader &reader, const std::string &key, CompareRow &) { reader.Number(key); }),
      CustomField<CompareRow>(
          "object_size_delta", [](const CompareRow &row) { return json(row.ObjectSizeDelta()); },
          [](FieldReader &reader, const std::string &key, CompareRow &) {
            reader.CheckInteger(key, reader.Required(key),
                                std::numeric_limits<std::int64_t>::min());
          })};
  return fields;
}

const RecordFields<CompareRecord> &CompareRecordFields() {
  static const RecordFields<CompareRecord> fields = {
      VersionField<CompareRecord>(kCompareRecordFormatVersion, "the compare result"),
      MemberField("provenance", &CompareRecord::provenance),
      ObjectField("baseline", &CompareRecord::baseline, &CompilerFields),
      ObjectField("candidate", &CompareRecord::candidate, &CompilerFields),
      ListField("tus", &CompareRecord::rows, &CompareRowFields),
      // Derived from the verdicts: a file whose counts disagree was edited or truncated.
      CustomField<CompareRecord>(
          "counts", [](const CompareRecord &record) { return json(record.Counts()); },
          [](FieldReader &reader, const std::string &key, CompareRecord &record) {
            const json &counts = reader.Required(key);
            if (!counts.is_object() || counts != json(record.Counts()))
              throw FormatError(
                  "field 'counts' does not match the verdicts of field 'tus'; the file was "
                  "edited or truncated: re-run `inductor-fuzz compare`");
          })};
  return fields;
}

} // namespace

json CompareRecordToJson(const CompareRecord &record) {
  return WriteFields(CompareRecordFields(), record);
}

CompareRecord CompareRecordFromJson(const json &document) {
  FieldReader reader(document, "", "the compare result");
  CompareRecord record;
  ReadFields(CompareRecordFields(), reader, record);
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
