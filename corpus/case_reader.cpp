#include "corpus/case.h"
#include "corpus/case_checks.h"
#include "corpus/case_tensors.h"
#include "corpus/case_values.h"

#include "corpus/field_reader.h"
#include "support/sha256.h"

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

// A case's values as its field lists read them (corpus/case_fields.cpp), each checked (CaseError
// names the field), and the case file.
namespace corpus {
namespace {

using nlohmann::json;

const std::set<std::string> kPythonKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
// What the functions and a compiled function of the case (compile_scope "function") already
// name: their arguments, the module the sources see and the program's own parameters.
const std::set<std::string> kReservedNames = {"torch", "and_masks",  "or_masks", "score", "b",
                                              "h",     "q_idx",      "kv_idx",   "q",     "k",
                                              "v",     "block_mask", "sizes",    "self"};

// An optional knob's value: of its type, and for a string knob one of the values it takes.
json ReadOptionalKnob(FieldReader &reader, const KnobSpec &knob, const json &value) {
  const std::string key(knob.name);
  switch (knob.type) {
  case KnobType::kBool:
    return reader.Boolean(key);
  case KnobType::kInt:
  case KnobType::kOptionalInt:
    return reader.CheckInteger(key, value, 0);
  case KnobType::kString:
    break;
  }
  std::vector<std::string> allowed;
  for (const auto &[option, weight] : knob.policy_weights)
    allowed.emplace_back(option);
  if (!value.is_string() ||
      std::find(allowed.begin(), allowed.end(), value.get<std::string>()) == allowed.end())
    throw CaseError(fmt::format("{} is {}; use one of {}", reader.Label(key), value.dump(),
                                fmt::join(allowed, ", ")));
  return value;
}

} // namespace

std::vector<std::int64_t> ReadBlockSize(FieldReader &reader, const std::string &key) {
  const json &value = reader.Required(key);
  if (value.is_number_integer())
    return {reader.CheckInteger(key, value, 1)};
  if (value.is_array() && value.size() == 2)
    return {reader.CheckInteger(key, value[0], 1), reader.CheckInteger(key, value[1], 1)};
  throw CaseError(fmt::format("{} must be an integer or a list of two integers, got {}",
                              reader.Label(key), value.dump()));
}

// A tensor's values: inline in "values", or in a sidecar file ("file", "sha256") read from
// `sidecar_dir`.
void ReadTensorValues(FieldReader &reader, CapturedTensor &tensor,
                      const std::optional<std::filesystem::path> &sidecar_dir) {
  const TensorDtype &dtype = *FindTensorDtype(tensor.dtype);
  const std::int64_t elements = tensor.Elements();
  if (reader.Optional("file")) {
    const std::string name = reader.String("file");
    const std::string expected_hash = reader.String("sha256");
    if (name.find('/') != std::string::npos || name.starts_with("."))
      throw CaseError(fmt::format("{} must name a file next to the case, got '{}'",
                                  reader.Label("file"), name));
    if (!sidecar_dir)
      throw CaseError(
          fmt::format("{} is kept in the sidecar file '{}'; load the case from its file",
                      reader.Label(), name));
    const std::filesystem::path path = *sidecar_dir / name;
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    if (error)
      throw CaseError(fmt::format("{} names '{}', which cannot be read ({}); keep the sidecar next "
                                  "to the case file",
                                  reader.Label("file"), path.string(), error.message()));
    if (size > kSidecarLimit)
      throw CaseError(fmt::format("{} is {} bytes, over the {} MiB a sidecar may hold",
                                  path.string(), size, kSidecarLimit >> 20));
    std::ifstream in(path, std::ios::binary);
    std::string bytes(size, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    if (support::Sha256Hex(bytes) != expected_hash)
      throw CaseError(fmt::format("{} does not match its sha256 in {}; the sidecar was changed or "
                                  "belongs to another case",
                                  path.string(), reader.Label("sha256")));
    DecodeTensorBytes(bytes, tensor, path.string());
    return;
  }
  const json &values = reader.Required("values");
  if (!values.is_array() || static_cast<std::int64_t>(values.size()) != elements)
    throw CaseError(fmt::format("{} must be a list of {} numbers (the product of the shape)",
                                reader.Label("values"), elements));
  for (const auto &element : values) {
    if (dtype.floating) {
      if (!element.is_number())
        throw CaseError(
            fmt::format("{} must hold numbers, got {}", reader.Label("values"), TypeName(element)));
      tensor.reals.push_back(element.get<double>());
    } else if (dtype.name == "bool") {
      if (!element.is_boolean() && !element.is_number_integer())
        throw CaseError(fmt::format("{} must hold true/false, got {}", reader.Label("values"),
                                    TypeName(element)));
      tensor.integers.push_back(element.is_boolean() ? element.get<bool>()
                                                     : element.get<std::int64_t>() != 0);
    } else {
      const bool fits =
          element.is_number_integer() &&
          !(element.is_number_unsigned() && element.get<std::uint64_t>() > INT64_MAX) &&
          element.get<std::int64_t>() >= dtype.min && element.get<std::int64_t>() <= dtype.max;
      if (!fits)
        throw CaseError(fmt::format("{} must hold {} integers, got {}", reader.Label("values"),
                                    dtype.name, element.dump()));
      tensor.integers.push_back(element.get<std::int64_t>());
    }
  }
}

std::vector<CapturedTensor> ReadTensors(FieldReader &top, const std::string &key,
                                        const std::optional<std::filesystem::path> &sidecar_dir) {
  std::vector<CapturedTensor> tensors;
  const json *list = top.Optional(key);
  if (!list)
    return tensors;
  if (!list->is_array())
    throw CaseError(fmt::format("{} must be a list, got {}", top.Label(key), TypeName(*list)));
  std::set<std::string> names;
  const std::string prefix = top.Label(key).substr(7, top.Label(key).size() - 8); // field '...'
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto tensor = ReadTensor((*list)[i], fmt::format("{}[{}]", prefix, i), sidecar_dir);
    if (!names.insert(tensor.name).second)
      throw CaseError(fmt::format("{} names the tensor '{}' twice", top.Label(key), tensor.name));
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

json ReadConstants(FieldReader &reader, const std::string &key) {
  const json *constants = reader.Optional(key);
  if (!constants)
    return json::object();
  if (!constants->is_object())
    throw CaseError(fmt::format("{} must be an object of names to numbers", reader.Label(key)));
  for (const auto &[name, value] : constants->items()) {
    const bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                            std::all_of(name.begin(), name.end(), [](char ch) {
                              return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
                            });
    if (!identifier || kPythonKeywords.contains(name))
      throw CaseError(fmt::format("{} has '{}', which is not a Python name; a constant is "
                                  "named like a variable (letters, digits, _)",
                                  reader.Label(key), name));
    if (kReservedNames.contains(name))
      throw CaseError(fmt::format("{} has '{}', a name the case's functions already use; "
                                  "rename the constant",
                                  reader.Label(key), name));
    if (!value.is_number() && !value.is_boolean())
      throw CaseError(fmt::format("{} must be an int, a float or a bool, got {}",
                                  reader.Label(key + "." + name), TypeName(value)));
  }
  return *constants;
}

std::vector<std::string> ReadNames(FieldReader &reader, const std::string &key, std::size_t minimum,
                                   std::size_t maximum) {
  const json *value = reader.Optional(key);
  if (!value || value->is_null())
    return {};
  std::vector<std::string> names = reader.Strings(key);
  if (names.size() < minimum || names.size() > maximum)
    throw CaseError(fmt::format("{} must name {} tensors", reader.Label(key),
                                minimum == maximum ? std::to_string(minimum)
                                                   : fmt::format("{} to {}", minimum, maximum)));
  return names;
}

// The Inductor knobs of the knob table: version 1 gives every knob it knew of, version 2 leaves
// out those at Inductor's default.
InductorKnobs ReadKnobs(FieldReader &reader, const std::string &key, std::int64_t version) {
  InductorKnobs inductor;
  FieldReader knobs = reader.Nested(reader.Required(key), key);
  for (const auto &knob : InductorKnobTable()) {
    const std::string key(knob.name);
    if (knob.optional) {
      if (const json *value = knobs.Optional(key))
        inductor.optional[key] = ReadOptionalKnob(knobs, knob, *value);
      continue;
    }
    if (!knobs.Optional(key)) {
      if (version >= 2)
        inductor.defaulted.insert(key);
      else if (knob.required)
        knobs.Required(key); // throws: version 1 gives every knob it knew of
      continue;
    }
    if (key == "dynamic" && knobs.Optional(key)->is_null() && version >= 2) {
      inductor.defaulted.insert(key);
      continue;
    }
    switch (knob.type) {
    case KnobType::kBool:
      inductor.*knob.flag = knobs.Boolean(key);
      break;
    case KnobType::kInt:
      inductor.*knob.number = static_cast<int>(knobs.Integer(key, 1));
      break;
    case KnobType::kOptionalInt:
      if (const auto value = knobs.IntegerOrNull(key, 0))
        inductor.*knob.optional_number = static_cast<int>(*value);
      break;
    case KnobType::kString: // only optional knobs are strings
      break;
    }
  }
  knobs.RejectUnknown();
  return inductor;
}

Case LoadCaseFile(const std::filesystem::path &path) {
  std::error_code error;
  if (const auto size = std::filesystem::file_size(path, error); !error && size > kCaseFileLimit)
    throw CaseError(
        fmt::format("{} is {:.1f} MiB, over the {} MiB a case file may hold; keep large "
                    "tensors in sidecars: `inductor-fuzz convert {} --out NEW.json`",
                    path.string(), size / 1048576.0, kCaseFileLimit >> 20, path.string()));
  const std::string text = support::ReadTextFile(path, "case file", kCaseFileLimit);
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception &error) { // a syntax error, or a number past double's range
    throw CaseError(fmt::format("{} is not valid JSON ({}); a case file is one JSON object "
                                "like corpus/seeds/causal-151290.json",
                                path.string(), error.what()));
  }
  try {
    return CaseFromJson(document, path.parent_path().empty() ? "." : path.parent_path());
  } catch (const CaseError &error) {
    throw CaseError(fmt::format("{}: {}", path.string(), error.what()));
  } catch (const json::exception &error) { // a field of a type the reader did not check
    throw CaseError(fmt::format("{}: a field has a value of the wrong type or range ({}); compare "
                                "with corpus/seeds/causal-151290.json",
                                path.string(), error.what()));
  }
}

} // namespace corpus
