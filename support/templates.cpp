#include "support/templates.h"

#include <regex>
#include <stdexcept>

namespace support {

std::string_view FindTemplate(std::span<const TemplateFile> table, std::string_view name) {
  for (const auto &file : table)
    if (file.name == name)
      return file.text;
  throw std::invalid_argument("no template " + std::string(name));
}

std::string FillTemplate(std::string_view text, const std::map<std::string, std::string> &values) {
  static const std::regex hole("@([A-Z_]+)@");
  const std::string source(text);
  std::string filled;
  std::map<std::string, bool> used;
  auto last = source.cbegin();
  for (std::sregex_iterator it(source.begin(), source.end(), hole), end; it != end; ++it) {
    const auto found = values.find((*it)[1].str());
    if (found == values.end())
      throw std::logic_error("the template's hole " + it->str() + " is not filled");
    filled.append(last, (*it)[0].first).append(found->second);
    used[found->first] = true;
    last = (*it)[0].second;
  }
  filled.append(last, source.cend());
  for (const auto &[name, value] : values)
    if (!used.contains(name))
      throw std::logic_error("the template has no hole @" + name + "@");
  return filled;
}

} // namespace support
