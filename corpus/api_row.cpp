#include "corpus/api_row.h"

namespace corpus {

const CorpusApi &CorpusApiOf(std::string_view name) {
  static const CorpusApi defaults{};
  for (const CorpusApi &api : CorpusApis())
    if (api.name == name)
      return api;
  return defaults;
}

bool OwnsField(const Case &c, std::string_view field) {
  for (const ApiField &own : CorpusApiOf(c.api).fields)
    if (own.name == field)
      return true;
  return false;
}

const std::vector<std::string> &ApiNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const CorpusApi &api : CorpusApis())
      all.emplace_back(api.name);
    return all;
  }();
  return names;
}

} // namespace corpus
