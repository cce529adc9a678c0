#include "corpus/finding.h"

#include "corpus/field_reader.h"
#include "corpus/finding_kinds.h"
#include "corpus/record_fields.h"
#include "support/sha256.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <regex>

namespace corpus {
namespace {

struct StatusEntry {
  CaseStatus status;
  std::string_view name;
};
constexpr std::array kStatuses = {
    StatusEntry{CaseStatus::kPass, "pass"},
    StatusEntry{CaseStatus::kExpected, "expected"},
    StatusEntry{CaseStatus::kFinding, "finding"},
    StatusEntry{CaseStatus::kInvalidCase, "invalid-case"},
};

} // namespace

const std::vector<std::string_view> *FactsOfKind(std::string_view kind_name) {
  if (const auto *row = RowOfName(kind_name))
    return &row->facts;
  // Not a finding's kind, a bug key's: an undefined symbol, whoever saw it (bug_key.h).
  static const std::vector<std::string_view> missing_symbol = {"symbol"};
  return kind_name == "missing-symbol" ? &missing_symbol : nullptr;
}

std::string NormaliseFact(const std::string &key, const std::string &value) {
  if (key == "message" || key == "error" || key == "symbol" || key == "abort" || key == "statement")
    return MessageTemplate(value);
  if (key == "name" || key == "type" || key == "previous_type" || key == "kernel")
    return NameShape(value);
  if (key == "frame") { // "torch/path.py:function", never a line number
    static const std::regex line(R"(:\d+(?=:|$))");
    return std::regex_replace(value, line, "");
  }
  return value;
}

std::string_view KindName(FindingKind kind) { return RowOf(kind).name; }

std::optional<FindingKind> KindFromName(std::string_view name) {
  if (const auto *row = RowOfName(name))
    return row->kind;
  return std::nullopt;
}

const std::vector<FindingKind> &AllFindingKinds() {
  static const std::vector<FindingKind> all = [] {
    std::vector<FindingKind> kinds;
    for (const auto &row : FindingKindRows())
      kinds.push_back(row.kind);
    return kinds;
  }();
  return all;
}

std::string_view StatusName(CaseStatus status) {
  for (const auto &entry : kStatuses)
    if (entry.status == status)
      return entry.name;
  return "unknown";
}

std::optional<CaseStatus> StatusFromName(std::string_view name) {
  for (const auto &entry : kStatuses)
    if (entry.name == name)
      return entry.status;
  return std::nullopt;
}

std::string NameShape(const std::string &name) {
  static const std::regex digits("[0-9]+");
  return std::regex_replace(name, digits, "<N>");
}

bool IsHeapCorruptionAbort(std::string_view message) {
  // glibc's malloc_printerr texts. One corruption shows as any of them, depending on which
  // chunk is touched next, so they are one signature.
  static constexpr std::array kPrefixes = {std::string_view("malloc(): "),
                                           std::string_view("free(): "),
                                           std::string_view("realloc(): "),
                                           std::string_view("munmap_chunk(): "),
                                           std::string_view("malloc_consolidate(): "),
                                           std::string_view("tcache_thread_shutdown(): "),
                                           std::string_view("corrupted size vs. prev_size"),
                                           std::string_view("corrupted double-linked list"),
                                           std::string_view("double free or corruption"),
                                           std::string_view("Fatal glibc error: malloc")};
  const auto start = message.find_first_not_of(" \t");
  if (start == std::string_view::npos)
    return false;
  message.remove_prefix(start);
  for (const auto prefix : kPrefixes)
    if (message.starts_with(prefix))
      return true;
  return false;
}

std::string MessageTemplate(const std::string &message) {
  static const std::regex quoted(R"((['"])([^'"]*)\1)"); // nvcc quotes names with "
  static const std::regex address(R"(0x[0-9a-fA-F]+)");
  static const std::regex path(R"((/[\w.+-]+)+/?)");
  static const std::regex hash(R"(\b[a-z0-9]{24,}\b)");
  static const std::regex number(R"(\b\d+\b)");
  // Dynamo's shape symbols (s0, u3, zf37) are numbered in creation order, and a fake tensor's
  // repr holds the shape and dtype of whatever the case passed.
  static const std::regex shape_symbol(R"(\b(s|u|zf|zuf)\d+\b)");
  static const std::regex fake_tensor(R"(FakeTensor\((?:[^()]|\([^()]*\))*\))");
  std::string text = message;
  for (const char *curly : {"\u2018", "\u2019"}) // gcc's quotes in a UTF-8 locale
    for (auto at = text.find(curly); at != std::string::npos; at = text.find(curly, at))
      text.replace(at, std::string_view(curly).size(), "'");
  text = std::regex_replace(text, address, "<addr>");
  text = std::regex_replace(text, fake_tensor, "FakeTensor(...)");
  text = std::regex_replace(text, shape_symbol, "$1<N>");
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
  // Whitespace runs (wrapped messages, indented notes) are one space.
  static const std::regex space(R"(\s+)");
  out = std::regex_replace(out, space, " ");
  const auto first = out.find_first_not_of(' ');
  const auto end = out.find_last_not_of(' ');
  return first == std::string::npos ? "" : out.substr(first, end - first + 1);
}

bool IsMemoryCorruptionCrash(std::string_view signal, std::string_view abort) {
  return signal == "11" || signal == "7" || (signal == "6" && IsHeapCorruptionAbort(abort));
}

FactValue FactValue::List(std::vector<std::string> members) {
  FactValue value;
  value.members_ = std::move(members);
  value.list_ = true;
  return value;
}

std::string FactValue::Text() const {
  return list_ ? fmt::format("{}", fmt::join(members_, ","))
               : (members_.empty() ? std::string() : members_.front());
}

nlohmann::json FactValueToJson(const FactValue &value) {
  return value.IsList() ? nlohmann::json(value.Members()) : nlohmann::json(value.Text());
}

FactValue FactValueFromJson(const nlohmann::json &json) {
  if (json.is_string())
    return FactValue(json.get<std::string>());
  if (!json.is_array())
    throw FormatError("a fact's value must be a string or a list of strings");
  std::vector<std::string> members;
  for (const auto &member : json) {
    if (!member.is_string())
      throw FormatError("a fact's value must be a string or a list of strings");
    members.push_back(member.get<std::string>());
  }
  return FactValue::List(std::move(members));
}

std::string Signature(const Finding &finding) {
  std::string signature(KindName(finding.kind));
  bool memory = false;
  if (finding.kind == FindingKind::kCrash) {
    std::string signal, abort;
    for (const auto &[key, value] : finding.essence.facts) {
      if (key == "signal")
        signal = value.Text();
      else if (key == "abort")
        abort = value.Text();
    }
    memory = IsMemoryCorruptionCrash(signal, abort);
  }
  for (const auto &[key, value] : finding.essence.facts) {
    if (memory && key == "signal")
      signature += fmt::format("|signal={}", kMemoryCorruptionSignal);
    else if (memory && key == "abort")
      signature += fmt::format("|abort={}", kMemoryCorruptionAbort);
    else
      signature += fmt::format("|{}={}", key, NormaliseFact(key, value.Text()));
  }
  return signature;
}

std::string SignatureId(const std::string &signature) {
  return support::Sha256Hex(signature).substr(0, 16);
}

namespace {

using nlohmann::json;

const RecordFields<SourceExcerpt> &SourceExcerptFields() {
  static const RecordFields<SourceExcerpt> fields = {MemberField("file", &SourceExcerpt::file),
                                                     MemberField("line", &SourceExcerpt::line),
                                                     MemberField("text", &SourceExcerpt::text)};
  return fields;
}

const RecordFields<Finding> &FindingFields() {
  static const RecordFields<Finding> fields = {
      CustomField<Finding>(
          "format_version", [](const Finding &) { return json(kFindingFormatVersion); },
          [](FieldReader &reader, const std::string &key, Finding &) {
            const auto version = reader.Integer(key, 1);
            if (version < 1 || version > kFindingFormatVersion)
              throw FormatError(fmt::format("finding format_version {} is not supported; this "
                                            "build reads versions 1 to {}",
                                            version, kFindingFormatVersion));
          }),
      CustomField<Finding>(
          "kind", [](const Finding &finding) { return json(KindName(finding.kind)); },
          [](FieldReader &reader, const std::string &key, Finding &finding) {
            const std::string kind = reader.String(key);
            const auto parsed = KindFromName(kind);
            if (!parsed)
              throw FormatError(
                  fmt::format("field 'kind' is '{}', which is not a finding kind", kind));
            finding.kind = *parsed;
          }),
      // The signature is made from the essence: a signature an older normaliser wrote is not
      // refused but made again (FindingStore::Migrate moves the folder it names).
      CustomField<Finding>(
          "signature", [](const Finding &finding) { return json(Signature(finding)); },
          [](FieldReader &reader, const std::string &key, Finding &) { reader.String(key); }),
      CustomField<Finding>(
          "signature_id",
          [](const Finding &finding) { return json(SignatureId(Signature(finding))); },
          [](FieldReader &reader, const std::string &key, Finding &) { reader.String(key); }),
      CustomField<Finding>(
          "essence",
          [](const Finding &finding) {
            json essence = json::array();
            for (const auto &[name, value] : finding.essence.facts)
              essence.push_back({name, FactValueToJson(value)});
            return essence;
          },
          [](FieldReader &reader, const std::string &key, Finding &finding) {
            const auto &essence = reader.Required(key);
            const bool joined_lists = reader.Integer("format_version", 1) == 1;
            const std::string_view shape = "field 'essence' must be a list of [name, value] pairs, "
                                           "each value a string or a list of strings";
            if (!essence.is_array())
              throw FormatError(std::string(shape));
            for (const auto &fact : essence) {
              if (!fact.is_array() || fact.size() != 2 || !fact[0].is_string() ||
                  !(fact[1].is_string() || fact[1].is_array()))
                throw FormatError(std::string(shape));
              const std::string name = fact[0].get<std::string>();
              FactValue value = FactValueFromJson(fact[1]);
              // A finding stored before lists were kept wrote a list comma-joined.
              if (joined_lists && IsListFact(RowOf(finding.kind), name))
                value = FactValue::List(SplitListText(value.Text()));
              finding.essence.Add(name, std::move(value));
            }
          }),
      MemberField("summary", &Finding::summary), MemberField("message", &Finding::message),
      MemberField("diagnostic", &Finding::diagnostic),
      ListField("source_lines", &Finding::source_lines, &SourceExcerptFields),
      MemberField("compilers", &Finding::compilers), MemberField("subject", &Finding::subject),
      MemberField("detail", &Finding::detail), MemberField("provenance", &Finding::provenance)};
  return fields;
}

} // namespace

nlohmann::json FindingToJson(const Finding &finding) {
  return WriteFields(FindingFields(), finding);
}

Finding FindingFromJson(const nlohmann::json &json) {
  FieldReader reader(json, "", "the finding");
  Finding finding;
  ReadFields(FindingFields(), reader, finding);
  return finding;
}

} // namespace corpus
