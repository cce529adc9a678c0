// Across TUs linked into one binary: an extern "C" name declared or defined with different
// types, which no single TU's parse can see (the TUs' reports from clang_analysis.cpp).
#include "parsers/clang_analysis.h"

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

namespace parsers {

std::vector<Conflict> CompareLinkedUnits(const std::vector<TranslationUnitReport> &reports) {
  struct Seen {
    const ExternCFunction *function;
    const TranslationUnitReport *unit;
  };
  std::map<std::string, Seen> first_by_name;
  std::vector<Conflict> findings;
  for (const auto &report : reports) {
    for (const auto &function : report.extern_c) {
      auto [seen, inserted] = first_by_name.try_emplace(function.name, Seen{&function, &report});
      if (inserted || seen->second.function->type == function.type)
        continue;
      const ExternCFunction &earlier = *seen->second.function;
      Conflict finding;
      finding.check = earlier.is_definition != function.is_definition
                          ? "forward-declaration-mismatch"
                          : "extern-c-mismatch";
      finding.name = function.name;
      finding.location = function.position;
      finding.previous = earlier.position;
      finding.type = function.type;
      finding.previous_type = earlier.type;
      finding.message =
          fmt::format("extern \"C\" {} is {} in {} but {} in {}", function.name, function.type,
                      report.display_name, earlier.type, seen->second.unit->display_name);
      findings.push_back(std::move(finding));
    }
  }
  return findings;
}
} // namespace parsers
