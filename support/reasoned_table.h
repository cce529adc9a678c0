#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace support {

// One entry of a checked-in table of `FIELD ... -- WHY` lines (the replay's tolerances, the
// known warnings): its line number, its fields, and its reason.
struct ReasonedLine {
  int number = 0;
  std::vector<std::string> fields;
  std::string reason;
};

// Every entry of such a table, blank lines and `#` comments skipped. An entry without exactly
// `field_count` fields or without a reason throws InputError "ORIGIN line N: write `FORMAT`
// (every entry says why)"; what each field may hold is the caller's to check.
std::vector<ReasonedLine> ReadReasonedTable(std::string_view text, const std::string &origin,
                                            std::size_t field_count, std::string_view format);

} // namespace support
