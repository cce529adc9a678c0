#pragma once

#include "corpus/field_reader.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace corpus {

// A stored record's fields as one list: each row names its field once and both writes it and
// reads it back, so that a record's writer and its reader cannot disagree on a name or a type.
// Reading still refuses a missing, mistyped or unknown field (FieldReader), in the list's order.
// What a field's writer returns: ordered, so that a record written as nlohmann::ordered_json keeps
// the list's order all the way down.
using FieldJson = nlohmann::ordered_json;

template <class Record> struct RecordField {
  std::string_view name;
  std::function<FieldJson(const Record &record)> write;
  std::function<void(FieldReader &reader, const std::string &name, Record &record)> read;
};

template <class Record> using RecordFields = std::vector<RecordField<Record>>;

namespace record_fields_detail {
template <class> inline constexpr bool kUnsupported = false;
} // namespace record_fields_detail

// A member of a plain type: a string, a bool, a number, an integer (at least 0), a list of
// strings, or JSON kept as it is.
template <class Record, class Type>
RecordField<Record> MemberField(std::string_view name, Type Record::*member) {
  return {name, [member](const Record &record) { return FieldJson(record.*member); },
          [member](FieldReader &reader, const std::string &key, Record &record) {
            if constexpr (std::is_same_v<Type, std::string>)
              record.*member = reader.String(key);
            else if constexpr (std::is_same_v<Type, bool>)
              record.*member = reader.Boolean(key);
            else if constexpr (std::is_floating_point_v<Type>)
              record.*member = reader.Number(key);
            else if constexpr (std::is_integral_v<Type>)
              record.*member = static_cast<Type>(reader.Integer(key, 0));
            else if constexpr (std::is_same_v<Type, std::vector<std::string>>)
              record.*member = reader.Strings(key);
            else if constexpr (std::is_same_v<Type, std::map<std::string, std::string>>)
              record.*member = reader.StringMap(key);
            else if constexpr (std::is_same_v<Type, nlohmann::json>)
              record.*member = reader.Required(key);
            else
              static_assert(record_fields_detail::kUnsupported<Type>,
                            "a member of this type needs a CustomField");
          }};
}

// A member a record may leave out: written always, read when it is there (else it keeps the
// value the record was made with).
template <class Record, class Type>
RecordField<Record> OptionalMemberField(std::string_view name, Type Record::*member) {
  RecordField<Record> field = MemberField(name, member);
  return {
      name, std::move(field.write),
      [read = std::move(field.read)](FieldReader &reader, const std::string &key, Record &record) {
        if (reader.Optional(key))
          read(reader, key, record);
      }};
}

// A member another program writes too (commands.json, which the capture's Python also writes):
// written always, read only when it is there with a value of its type, else passed over.
template <class Record, class Type>
RecordField<Record> LenientMemberField(std::string_view name, Type Record::*member) {
  return {name, [member](const Record &record) { return FieldJson(record.*member); },
          [member](FieldReader &reader, const std::string &key, Record &record) {
            const nlohmann::json *value = reader.Optional(key);
            if (!value)
              return;
            if constexpr (std::is_same_v<Type, std::string>) {
              if (value->is_string())
                record.*member = value->get<std::string>();
            } else if constexpr (std::is_integral_v<Type>) {
              if (value->is_number_integer())
                record.*member = value->get<Type>();
            } else if constexpr (std::is_floating_point_v<Type>) {
              if (value->is_number())
                record.*member = value->get<Type>();
            } else if constexpr (std::is_same_v<Type, std::vector<std::string>>) {
              if (value->is_array() &&
                  std::all_of(value->begin(), value->end(),
                              [](const nlohmann::json &item) { return item.is_string(); }))
                record.*member = value->get<Type>();
            } else if constexpr (std::is_same_v<Type, nlohmann::json>) {
              record.*member = *value;
            } else {
              static_assert(record_fields_detail::kUnsupported<Type>,
                            "a member of this type needs a CustomField");
            }
          }};
}

// A field with a writer and a reader of its own (an enum by name, a checked version).
template <class Record>
RecordField<Record>
CustomField(std::string_view name, std::function<FieldJson(const Record &)> write,
            std::function<void(FieldReader &, const std::string &, Record &)> read) {
  return {name, std::move(write), std::move(read)};
}

// A field's writer that returns this leaves the field out (an optional field at its default).
inline FieldJson AbsentField() { return FieldJson(FieldJson::value_t::discarded); }

// The record as a JSON object; nlohmann::ordered_json keeps the list's order (a file people edit).
template <class Json = nlohmann::json, class Record>
Json WriteFields(const RecordFields<Record> &fields, const Record &record) {
  Json object = Json::object();
  for (const auto &field : fields)
    if (FieldJson value = field.write(record); !value.is_discarded())
      object[std::string(field.name)] = Json(std::move(value));
  return object;
}

// What a reader does with a field its list does not name: refuse it (a stored record, a file
// people edit), or pass over it (what another program writes, as the worker's replies, which
// may carry more than the tool reads).
enum class UnknownFields { kRefused, kIgnored };

// Reads every field of the list and refuses any other (or passes over it).
template <class Record>
void ReadFields(const RecordFields<Record> &fields, FieldReader &reader, Record &record,
                UnknownFields unknown = UnknownFields::kRefused) {
  for (const auto &field : fields)
    field.read(reader, std::string(field.name), record);
  if (unknown == UnknownFields::kRefused)
    reader.RejectUnknown();
}

// An object of its own field list (`fields` returns it).
template <class Record, class Item>
RecordField<Record> ObjectField(std::string_view name, Item Record::*member,
                                const RecordFields<Item> &(*fields)()) {
  return {name,
          [member, fields](const Record &record) {
            return WriteFields<FieldJson>(fields(), record.*member);
          },
          [member, fields](FieldReader &reader, const std::string &key, Record &record) {
            FieldReader item_reader = reader.Nested(reader.Required(key), key);
            ReadFields(fields(), item_reader, record.*member);
          }};
}

// A list of records of their own field list (`fields` returns it).
template <class Record, class Item>
RecordField<Record> ListField(std::string_view name, std::vector<Item> Record::*member,
                              const RecordFields<Item> &(*fields)(),
                              UnknownFields unknown = UnknownFields::kRefused) {
  return {name,
          [member, fields](const Record &record) {
            FieldJson items = FieldJson::array();
            for (const auto &item : record.*member)
              items.push_back(WriteFields<FieldJson>(fields(), item));
            return items;
          },
          [member, fields, unknown](FieldReader &reader, const std::string &key, Record &record) {
            const nlohmann::json &items = reader.Required(key);
            if (!items.is_array())
              throw FormatError(fmt::format("{} must be a list", reader.Label(key)));
            (record.*member).clear();
            for (std::size_t i = 0; i < items.size(); ++i) {
              FieldReader item_reader = reader.Nested(items[i], fmt::format("{}[{}]", key, i));
              Item item;
              ReadFields(fields(), item_reader, item, unknown);
              (record.*member).push_back(std::move(item));
            }
          }};
}

} // namespace corpus
