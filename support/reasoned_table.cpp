#include "support/reasoned_table.h"

#include "support/errors.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <sstream>

namespace support {

std::vector<ReasonedLine> ReadReasonedTable(std::string_view text, const std::string &origin,
                                            std::size_t field_count, std::string_view format) {
  std::vector<ReasonedLine> entries;
  std::istringstream lines{std::string(text)};
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    const std::string entry = Trim(line);
    if (entry.empty() || entry.starts_with('#'))
      continue;
    const auto because = entry.find(" -- ");
    ReasonedLine parsed{.number = number, .fields = {}, .reason = ""};
    std::istringstream fields(entry.substr(0, because));
    for (std::string field; fields >> field;)
      parsed.fields.push_back(field);
    if (because != std::string::npos)
      parsed.reason = Trim(entry.substr(because + 4));
    if (parsed.fields.size() != field_count || parsed.reason.empty())
      throw InputError(
          fmt::format("{} line {}: write `{}` (every entry says why)", origin, number, format));
    entries.push_back(std::move(parsed));
  }
  return entries;
}

} // namespace support
