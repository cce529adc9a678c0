#include "fuzzer/worker/sanitizer_settings.h"

#include "support/errors.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <sstream>

namespace fuzzer::worker {
namespace {

constexpr std::array kTools = {std::string_view("asan"), std::string_view("ubsan"),
                               std::string_view("asan-suppress"),
                               std::string_view("ubsan-suppress")};

} // namespace

std::vector<SanitizerSetting> ParseSanitizerSettings(std::string_view text) {
  std::vector<SanitizerSetting> settings;
  std::istringstream lines{std::string(text)};
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    const std::string entry = support::Trim(line);
    if (entry.empty() || entry.starts_with('#'))
      continue;
    const auto because = entry.find(" -- ");
    const auto space = entry.find_first_of(" \t");
    SanitizerSetting setting{
        .tool = entry.substr(0, space),
        .setting = space == std::string::npos || (because != std::string::npos && space >= because)
                       ? ""
                       : support::Trim(std::string_view(entry).substr(space, because - space)),
        .reason = because == std::string::npos ? "" : support::Trim(entry.substr(because + 4))};
    if (std::find(kTools.begin(), kTools.end(), setting.tool) == kTools.end())
      throw support::InputError(fmt::format(
          "sanitizer settings line {}: '{}' is not asan, ubsan, asan-suppress or ubsan-suppress",
          number, setting.tool));
    if (setting.setting.empty() || setting.reason.empty())
      throw support::InputError(fmt::format(
          "sanitizer settings line {}: write `TOOL SETTING -- WHY` (every entry says why)",
          number));
    settings.push_back(std::move(setting));
  }
  return settings;
}

std::string JoinSettings(const std::vector<SanitizerSetting> &settings, std::string_view tool) {
  const std::string_view separator = tool.ends_with("-suppress") ? "\n" : ":";
  std::string joined;
  for (const auto &setting : settings)
    if (setting.tool == tool)
      joined += (joined.empty() ? "" : std::string(separator)) + setting.setting;
  return joined;
}

} // namespace fuzzer::worker
