#include "corpus/field_reader.h"

namespace corpus {

nlohmann::json ReadJsonDocument(const std::filesystem::path &path, const std::string &what,
                                const std::string &fix) {
  constexpr std::size_t kLargestDocument = 64 << 20;
  const std::string text = support::ReadTextFile(path, what, kLargestDocument);
  nlohmann::json document = nlohmann::json::parse(text, nullptr, false);
  if (document.is_discarded())
    throw FormatError(fmt::format("{} is not valid JSON; {}", path.string(), fix));
  return document;
}

} // namespace corpus
