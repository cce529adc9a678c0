#pragma once

#include "support/text_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace corpus {

// A stored file that cannot be used: the message names the file, the field and the fix.
class FormatError : public support::InputError {
public:
  using InputError::InputError;
};

inline const char *TypeName(const nlohmann::json &value) {
  if (value.is_number_integer())
    return "integer";
  return value.type_name();
}

// Reads one object's fields by name, rejecting missing, mistyped and unknown ones, so that a
// typo in a hand-written case fails loudly instead of running a different case.
class FieldReader {
public:
  using Error = FormatError;

  // `where` is the path of this object in its document ("" for the top); `document` names the
  // document in messages about the top object ("the case", "commands.json").
  FieldReader(const nlohmann::json &object, std::string where, std::string document = "the case")
      : object_(object), where_(std::move(where)), document_(std::move(document)) {
    if (!object_.is_object())
      throw FormatError(
          fmt::format("{} must be a JSON object, got {}", Label(), TypeName(object_)));
  }

  const nlohmann::json &Required(const std::string &key) {
    seen_.insert(key);
    auto found = object_.find(key);
    if (found == object_.end())
      throw FormatError(fmt::format("{} is missing", Label(key)));
    return *found;
  }

  const nlohmann::json *Optional(const std::string &key) {
    seen_.insert(key);
    auto found = object_.find(key);
    return found == object_.end() ? nullptr : &*found;
  }

  std::int64_t Integer(const std::string &key, std::int64_t minimum) {
    return CheckInteger(key, Required(key), minimum);
  }

  std::optional<std::int64_t> IntegerOrNull(const std::string &key, std::int64_t minimum) {
    const nlohmann::json &value = Required(key);
    if (value.is_null())
      return std::nullopt;
    return CheckInteger(key, value, minimum);
  }

  std::int64_t CheckInteger(const std::string &key, const nlohmann::json &value,
                            std::int64_t minimum) {
    if (!value.is_number_integer())
      throw FormatError(fmt::format("{} must be an integer, got {}", Label(key), TypeName(value)));
    const auto number = value.get<std::int64_t>();
    if (number < minimum)
      throw FormatError(fmt::format("{} must be at least {}, got {}", Label(key), minimum, number));
    return number;
  }

  std::string String(const std::string &key) {
    const nlohmann::json &value = Required(key);
    if (!value.is_string())
      throw FormatError(fmt::format("{} must be a string, got {}", Label(key), TypeName(value)));
    return value.get<std::string>();
  }

  double Number(const std::string &key) {
    const nlohmann::json &value = Required(key);
    if (!value.is_number())
      throw FormatError(fmt::format("{} must be a number, got {}", Label(key), TypeName(value)));
    return value.get<double>();
  }

  std::vector<std::string> Strings(const std::string &key) {
    const nlohmann::json &value = Required(key);
    std::vector<std::string> strings;
    if (!value.is_array())
      throw FormatError(fmt::format("{} must be a list of strings", Label(key)));
    for (const auto &item : value) {
      if (!item.is_string())
        throw FormatError(fmt::format("{} must be a list of strings", Label(key)));
      strings.push_back(item.get<std::string>());
    }
    return strings;
  }

  std::map<std::string, std::string> StringMap(const std::string &key) {
    const nlohmann::json &value = Required(key);
    std::map<std::string, std::string> strings;
    if (!value.is_object())
      throw FormatError(fmt::format("{} must be an object of strings", Label(key)));
    for (const auto &[name, item] : value.items()) {
      if (!item.is_string())
        throw FormatError(fmt::format("{} must be an object of strings", Label(key)));
      strings.emplace(name, item.get<std::string>());
    }
    return strings;
  }

  bool Boolean(const std::string &key) {
    const nlohmann::json &value = Required(key);
    if (!value.is_boolean())
      throw FormatError(
          fmt::format("{} must be true or false, got {}", Label(key), TypeName(value)));
    return value.get<bool>();
  }

  // A reader of an object inside this one, its fields named from this one's path.
  FieldReader Nested(const nlohmann::json &object, const std::string &key) const {
    return FieldReader(object, where_.empty() ? key : where_ + "." + key, document_);
  }

  void RejectUnknown() const {
    for (const auto &[key, value] : object_.items())
      if (!seen_.contains(key))
        throw FormatError(fmt::format("{} is not a known field (misspelt?)", Label(key)));
  }

  std::string Label(const std::string &key = "") const {
    if (key.empty())
      return where_.empty() ? document_ : fmt::format("field '{}'", where_);
    return fmt::format("field '{}'", where_.empty() ? key : where_ + "." + key);
  }

private:
  const nlohmann::json &object_;
  std::string where_;
  std::string document_;
  std::set<std::string> seen_;
};

// A stored JSON document, parsed; a file that is missing, too large, binary or not JSON is a
// FormatError that names it and ends with `fix`.
nlohmann::json ReadJsonDocument(const std::filesystem::path &path, const std::string &what,
                                const std::string &fix);

} // namespace corpus
