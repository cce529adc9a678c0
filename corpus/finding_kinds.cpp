#include "corpus/finding_kinds.h"

#include "corpus/kinds/kinds.h"

#include <algorithm>
#include <sstream>

namespace corpus {

const std::vector<FindingKindRow> &FindingKindRows() {
  static const std::vector<FindingKindRow> rows = {
#define INDUCTOR_FUZZ_KIND(enumerator, file) kinds::file::Row(),
#include "corpus/finding_kinds.def"
#undef INDUCTOR_FUZZ_KIND
  };
  return rows;
}

const FindingKindRow &RowOf(FindingKind kind) {
  for (const auto &row : FindingKindRows())
    if (row.kind == kind)
      return row;
  return FindingKindRows().front(); // unreachable: every kind has a row (finding_kinds_test)
}

const FindingKindRow *RowOfName(std::string_view name) {
  for (const auto &row : FindingKindRows())
    if (row.name == name)
      return &row;
  return nullptr;
}

const FindingKindRow *RowOfSignature(std::string_view signature) {
  return RowOfName(signature.substr(0, signature.find('|')));
}

std::string_view DetectorName(Detector detector) {
  switch (detector) {
  case Detector::kCheck:
    return "check";
  case Detector::kMatrix:
    return "matrix";
  case Detector::kSanitizer:
    return "sanitizer";
  case Detector::kWorker:
    break;
  }
  return "worker";
}

ReproExpectation ExpectationOf(const std::string &signature) {
  ReproExpectation expected{.signature = signature};
  std::istringstream parts(signature);
  std::getline(parts, expected.facts["kind"], '|');
  for (std::string part; std::getline(parts, part, '|');)
    if (const auto equals = part.find('='); equals != std::string::npos)
      expected.facts[part.substr(0, equals)] = part.substr(equals + 1);
  return expected;
}

bool IsListFact(const FindingKindRow &row, std::string_view fact) {
  return std::find(row.list_facts.begin(), row.list_facts.end(), fact) != row.list_facts.end();
}

std::vector<std::string> SplitListText(const std::string &text) {
  std::vector<std::string> words;
  std::istringstream parts(text);
  for (std::string word; std::getline(parts, word, ',');)
    words.push_back(word);
  return words;
}

ReduceForm ReduceFormOf(const std::string &signature) {
  const auto *row = RowOfSignature(signature);
  return row && row->reduce_form ? row->reduce_form(ExpectationOf(signature))
                                 : ReduceForm::kAsFound;
}

std::string ExpectedBehaviour(const FindingKindRow &row, std::string_view api) {
  std::string text(row.expected);
  for (std::size_t at = text.find("{api}"); at != std::string::npos; at = text.find("{api}", at))
    text.replace(at, 5, api), at += api.size();
  return text;
}

std::string KindsTable() {
  std::ostringstream table;
  table << "| kind | detector | what it means | facts |\n|---|---|---|---|\n";
  for (const auto &row : FindingKindRows()) {
    table << "| `" << row.name << "` | " << DetectorName(row.detector) << " | " << row.meaning
          << " |";
    for (std::size_t i = 0; i < row.facts.size(); ++i)
      table << (i ? ", `" : " `") << row.facts[i] << "`";
    table << " |\n";
  }
  return table.str();
}

} // namespace corpus
