#include "corpus/sarif.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

namespace corpus {

using nlohmann::json;

std::string SarifUri(const std::string &path) {
  std::string uri = path.starts_with('/') ? "file://" : "";
  for (const unsigned char ch : path) {
    if (std::isalnum(ch) || (ch && std::strchr("-._~/", ch)))
      uri += static_cast<char>(ch);
    else
      uri += fmt::format("%{:02X}", ch);
  }
  return uri;
}

namespace {

json Location(const SarifLocation &where) {
  json physical = {{"artifactLocation", {{"uri", SarifUri(where.path)}}}};
  if (where.line) {
    json region = {{"startLine", where.line}};
    if (where.column)
      region["startColumn"] = where.column;
    if (!where.snippet.empty())
      region["snippet"] = {{"text", where.snippet}};
    physical["region"] = region;
  }
  json location = {{"physicalLocation", physical}};
  if (!where.message.empty())
    location["message"] = {{"text", where.message}};
  return location;
}

} // namespace

json SarifLog(const std::string &tool_version, const std::vector<SarifResult> &results) {
  json rules = json::array(), entries = json::array();
  std::set<std::string> seen;
  for (const auto &result : results) {
    if (seen.insert(result.rule).second)
      rules.push_back({{"id", result.rule}, {"shortDescription", {{"text", result.rule}}}});
    json locations = json::array(), related = json::array();
    for (const auto &where : result.locations)
      locations.push_back(Location(where));
    for (const auto &where : result.related) {
      json other = Location(where);
      other["id"] = related.size();
      related.push_back(other);
    }
    json fingerprints = {{"inductorFuzzSignature/v1", result.signature}};
    if (!result.bug_key.empty())
      fingerprints["inductorFuzzBug/v1"] = result.bug_key;
    json entry = {{"ruleId", result.rule},
                  {"level", result.level},
                  {"message", {{"text", result.message}}},
                  {"partialFingerprints", fingerprints},
                  {"locations", locations}};
    if (!related.empty())
      entry["relatedLocations"] = related;
    if (!result.properties.empty())
      entry["properties"] = result.properties;
    entries.push_back(entry);
  }
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs",
           {{{"tool",
              {{"driver",
                {{"name", "inductor-fuzz"},
                 {"version", tool_version},
                 {"informationUri", "https://github.com/pytorch/pytorch"},
                 {"rules", rules}}}}},
             {"results", entries}}}}};
}

} // namespace corpus
