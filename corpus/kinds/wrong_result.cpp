#include "corpus/kinds/kinds.h"

#include "corpus/api_row.h"
#include "corpus/field_reader.h"
#include "corpus/kinds/key_parts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <set>

namespace corpus::kinds::wrong_result {
namespace {

// A call sequence names the fields of its later calls callN.FIELD: one cause wrong in the first
// call and in the second is one bug, so the key keeps the field alone.
std::string FieldsOfEveryCall(const FactValue &fields) {
  static const std::regex call(R"(^call[0-9]+\.)");
  std::set<std::string> plain;
  for (const auto &field : fields.Members())
    if (!field.empty())
      plain.insert(std::regex_replace(field, call, ""));
  return fmt::format("{}", fmt::join(plain, ","));
}

// A probe run's `where`, as its facts keep it (a list; a string before lists were kept), or
// its signature names it (a run stored before its facts were).
std::string WhereOfRun(const nlohmann::json &run) {
  if (const auto facts = run.find("facts"); facts != run.end() && facts->is_object()) {
    const auto where = facts->find("where");
    if (where == facts->end() || !(where->is_string() || where->is_array()))
      return "";
    try {
      return FactValueFromJson(*where).Text();
    } catch (const FormatError &) {
      return "";
    }
  }
  const auto expected = ExpectationOf(run.value("signature", ""));
  const auto found = expected.facts.find("where");
  return found == expected.facts.end() ? "" : found->second;
}

// One query row cannot say which rows a cause gets wrong: every row is the first of its block,
// the last, the only one. Where a decode-shape case is wrong everywhere and its probe's rerun
// at a prefill shape fails the same, that rerun says where (a first-row bug is wrong in the first
// row of each block, a bug of the whole output still everywhere).
std::string WhereOf(const Finding &finding, const FactValue &where) {
  const std::string text = where.Text();
  if (text != "everywhere" || !Probed(finding) || !finding.detail["probe"].is_object())
    return text;
  for (const auto &run : finding.detail["probe"].value("runs", nlohmann::json::array())) {
    if (!run.is_object() || run.value("setting", "") != "shape=decode" ||
        run.value("outcome", "") != "fails-the-same")
      continue;
    const std::string rerun = WhereOfRun(run);
    return rerun.empty() ? text : rerun;
  }
  return text;
}

// The signature's facts with the fields of every call as one, then what the probe found. After a
// probe the wrapper and the shapes leave the key, as for a crash (DeathPath). A program's first
// wrong statement is its cause: which outputs and elements show it then depend on the program
// around it, so the fields and where leave the key.
std::string WrongResultKey(const Finding &finding) {
  const bool probed = Probed(finding);
  const bool first = std::ranges::any_of(finding.essence.facts,
                                         [](const auto &fact) { return fact.first == "first"; });
  std::string key(KindName(finding.kind));
  for (const auto &[name, value] : finding.essence.facts) {
    if (probed && (name == "wrapper" || name == "shapes"))
      continue;
    if (first && (name == "fields" || name == "where"))
      continue;
    key += fmt::format("|{}={}", name,
                       name == "fields"  ? FieldsOfEveryCall(value)
                       : name == "where" ? WhereOf(finding, value)
                                         : NormaliseFact(name, value.Text()));
  }
  return key + ProbeNeeds(finding);
}

// A create_block_mask result whose every wrong field is one of the BlockMask's tables: which
// tables a cause reaches (partial or full blocks, kv or q, which rows) and how the wrong
// entries lie are the mask's and the shape's doing, so the key keeps the kind of table the
// difference starts in (a count is upstream of the indices it bounds) and, for counts, whether
// blocks were lost or gained: every wrong count table's `how` (comparisons.py) is `fewer`, or
// `more`, or they are `mixed`.
std::optional<std::string> BlockMaskTablesKey(const Finding &finding) {
  static const std::set<std::string> tables = {
      "kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices",
      "q_num_blocks",  "q_indices",  "full_q_num_blocks",  "full_q_indices"};
  if (!CorpusApiOf(Fact(finding, "api")).returns_block_mask || !finding.detail.is_object())
    return std::nullopt;
  const auto &mismatches = finding.detail.value("mismatches", nlohmann::json::array());
  if (!mismatches.is_array() || mismatches.empty())
    return std::nullopt;
  static const std::regex call(R"(^call[0-9]+\.)");
  std::set<std::string> count_hows;
  bool indices = false;
  for (const auto &mismatch : mismatches) {
    if (!mismatch.is_object())
      return std::nullopt;
    const std::string field = std::regex_replace(mismatch.value("field", ""), call, "");
    if (!tables.contains(field) || mismatch.value("problem", "") != "values differ")
      return std::nullopt;
    if (field.ends_with("num_blocks"))
      count_hows.insert(mismatch.value("how", ""));
    else
      indices = true;
  }
  std::string key = "wrong-result|api=create_block_mask";
  if (!count_hows.empty()) {
    const bool one_way =
        count_hows.size() == 1 && (*count_hows.begin() == "fewer" || *count_hows.begin() == "more");
    key += fmt::format("|tables=counts|blocks={}", one_way ? *count_hows.begin() : "mixed");
  } else if (indices) {
    key += "|tables=indices";
  }
  key += fmt::format("|template={}", Fact(finding, "template"));
  if (!Probed(finding))
    key += fmt::format("|wrapper={}|shapes={}", Fact(finding, "wrapper"), Fact(finding, "shapes"));
  return key + ProbeNeeds(finding);
}

std::string Key(const Finding &finding) {
  if (auto tables = BlockMaskTablesKey(finding))
    return *tables;
  return WrongResultKey(finding);
}

// The repro compares with torch.testing.assert_close: a failed assertion.
bool ShowsInRepro(const ReproRun &run, const ReproExpectation &) {
  return Failed(run) && run.output.find("AssertionError") != std::string::npos;
}

// "... in tail rows (values)": where and how, when they say more than "everywhere" and "off".
std::string TitleWords(std::string_view title, const std::map<std::string, std::string> &facts) {
  std::string words(title);
  if (const auto where = TitleFact(facts, "where"); !where.empty() && where != "everywhere")
    words += " in " + std::regex_replace(where, std::regex("-"), " ");
  if (const auto how = TitleFact(facts, "how"); !how.empty() && how != "off")
    words += " (" + how + ")";
  return words;
}

} // namespace

FindingKindRow Row() {
  return {.kind = FindingKind::kWrongResult,
          .name = "wrong-result",
          .detector = Detector::kWorker,
          .meaning = "compiled differs from eager: BlockMask tensors exactly; attention output "
                     "beyond a dtype tolerance against a float64 reference",
          .facts = {"api", "first", "fields", "tables", "blocks", "problems", "how", "where",
                    "template", "wrapper", "shapes", "needs"},
          .list_facts = {"fields", "problems", "how", "where"},
          .probed = true,
          .delivery_order = 0,
          .title = "compiled result differs from eager",
          .expected = "`torch.compile({api})` gives the result eager `{api}` gives (the repro "
                      "compares them with `torch.testing.assert_close`).",
          .key = &Key,
          .shows_in_repro = &ShowsInRepro,
          .title_words = &TitleWords,
          .draft_excerpt = DraftExcerpt::kComparison,
          .compares_values = true};
}

} // namespace corpus::kinds::wrong_result
