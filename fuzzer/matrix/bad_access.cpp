#include "fuzzer/matrix/bad_access.h"

#include <fmt/format.h>

#include <regex>
#include <sstream>
#include <vector>

namespace fuzzer::matrix {
namespace {

using nlohmann::json;

// The parameter names of `entry`'s first declaration in the TU: `extern "C" void kernel(const
// float* in_ptr0, bool* out_ptr0)` gives in_ptr0, out_ptr0.
std::vector<std::string> ParameterNames(const std::string &entry, const std::string &source) {
  const std::regex declaration("\\bvoid\\s+" + entry + "\\s*\\(([^)]*)\\)");
  std::smatch match;
  if (entry.empty() || !std::regex_search(source, match, declaration))
    return {};
  std::vector<std::string> names;
  std::stringstream parameters(match[1].str());
  static const std::regex last_identifier(R"(([A-Za-z_]\w*)\s*$)");
  for (std::string parameter; std::getline(parameters, parameter, ',');) {
    std::smatch name;
    names.push_back(std::regex_search(parameter, name, last_identifier) ? name[1].str() : "");
  }
  return names;
}

bool Holds(const json &argument, std::uint64_t address) {
  const auto start = argument.value("storage_ptr", std::uint64_t{0});
  return address >= start && address < start + argument.value("storage_bytes", std::uint64_t{0});
}

bool IsRegion(const json &argument, const BadAddress &bad) {
  return bad.region_start && bad.region_bytes &&
         argument.value("storage_ptr", std::uint64_t{0}) == *bad.region_start &&
         argument.value("storage_bytes", std::uint64_t{0}) == *bad.region_bytes;
}

} // namespace

std::optional<json> LocateBadAccess(const BadAddress &bad, const json &call,
                                    const std::string &entry, const std::string &source_text) {
  if (!call.is_object() || !call.contains("arguments"))
    return std::nullopt;
  const json *found = nullptr;
  for (const auto &argument : call["arguments"])
    if (IsRegion(argument, bad)) {
      found = &argument;
      break;
    }
  if (!found)
    for (const auto &argument : call["arguments"])
      if (Holds(argument, bad.address)) {
        found = &argument;
        break;
      }
  if (!found)
    return std::nullopt;
  const json &argument = *found;
  const auto itemsize = std::max<long long>(1, argument.value("itemsize", 1LL));
  const auto address = static_cast<long long>(bad.address);
  const auto data = argument.value("data_ptr", 0LL);
  const auto storage_end =
      argument.value("storage_ptr", 0LL) + argument.value("storage_bytes", 0LL);
  const int position = argument.value("position", -1);
  const auto names = ParameterNames(entry, source_text);
  json located = {
      {"call", call.value("call", 0)},
      {"position", position},
      {"name", position >= 0 && position < static_cast<int>(names.size()) ? names[position] : ""},
      {"dtype", argument.value("dtype", "")},
      {"elements", argument.value("elements", 0LL)},
      {"element", (address - data) / itemsize}};
  if (address >= storage_end)
    located["elements_past_end"] = (address - storage_end) / itemsize;
  return located;
}

std::optional<BadAddress> BadAddressOf(const json &detail) {
  if (!detail.contains("address") || !detail["address"].is_string())
    return std::nullopt;
  BadAddress bad{.address = std::stoull(detail["address"].get<std::string>(), nullptr, 16)};
  const auto past = detail.value("bytes_past_region", json(nullptr));
  const auto size = detail.value("region_size", json(nullptr));
  if (past.is_number_integer() && size.is_number_integer() && past.get<long long>() >= 0) {
    bad.region_bytes = size.get<std::uint64_t>();
    bad.region_start = bad.address - past.get<std::uint64_t>() - *bad.region_bytes;
  }
  return bad;
}

std::string DescribeBadAccess(const json &located) {
  const std::string name = located.value("name", "");
  const auto element = located.value("element", 0LL);
  const int position = located.value("position", -1);
  const std::string shape =
      fmt::format("{} x {}", located.value("elements", 0LL), located.value("dtype", "?"));
  std::string text =
      name.empty()
          ? fmt::format("element {} of argument {} ({})", element, position, shape)
          : fmt::format("element {} of {} (argument {}, {})", element, name, position, shape);
  if (located.contains("elements_past_end"))
    text += fmt::format(", {} past its end", located["elements_past_end"].get<long long>());
  return text;
}

} // namespace fuzzer::matrix
