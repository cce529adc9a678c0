#include "fuzzer/case.h"

#include <fmt/format.h>

#include <set>

namespace fuzzer {
namespace {

using nlohmann::json;

const char *TypeName(const json &value) {
  if (value.is_number_integer())
    return "integer";
  return value.type_name();
}

// Reads one object's fields by name, rejecting missing, mistyped and unknown ones, so that a
// typo in a hand-written case fails loudly instead of running a different case.
class FieldReader {
public:
  FieldReader(const json &object, std::string where) : object_(object), where_(std::move(where)) {
    if (!object_.is_object())
      throw CaseError(fmt::format("{} must be a JSON object, got {}", Label(), TypeName(object_)));
  }

  const json &Required(const std::string &key) {
    seen_.insert(key);
    auto found = object_.find(key);
    if (found == object_.end())
      throw CaseError(fmt::format("{} is missing", Label(key)));
    return *found;
  }

  const json *Optional(const std::string &key) {
    seen_.insert(key);
    auto found = object_.find(key);
    return found == object_.end() ? nullptr : &*found;
  }

  std::int64_t Integer(const std::string &key, std::int64_t minimum) {
    return CheckInteger(key, Required(key), minimum);
  }

  std::optional<std::int64_t> IntegerOrNull(const std::string &key, std::int64_t minimum) {
    const json &value = Required(key);
    if (value.is_null())
      return std::nullopt;
    return CheckInteger(key, value, minimum);
  }

  std::int64_t CheckInteger(const std::string &key, const json &value, std::int64_t minimum) {
    if (!value.is_number_integer())
      throw CaseError(fmt::format("{} must be an integer, got {}", Label(key), TypeName(value)));
    const auto number = value.get<std::int64_t>();
    if (number < minimum)
      throw CaseError(fmt::format("{} must be at least {}, got {}", Label(key), minimum, number));
    return number;
  }

  std::string String(const std::string &key) {
    const json &value = Required(key);
    if (!value.is_string())
      throw CaseError(fmt::format("{} must be a string, got {}", Label(key), TypeName(value)));
    return value.get<std::string>();
  }

  bool Boolean(const std::string &key) {
    const json &value = Required(key);
    if (!value.is_boolean())
      throw CaseError(fmt::format("{} must be true or false, got {}", Label(key), TypeName(value)));
    return value.get<bool>();
  }

  void RejectUnknown() const {
    for (const auto &[key, value] : object_.items())
      if (!seen_.contains(key))
        throw CaseError(fmt::format("{} is not a known field (misspelt?)", Label(key)));
  }

  std::string Label(const std::string &key = "") const {
    if (key.empty())
      return where_.empty() ? "the case" : fmt::format("field '{}'", where_);
    return fmt::format("field '{}'", where_.empty() ? key : where_ + "." + key);
  }

private:
  const json &object_;
  std::string where_;
  std::set<std::string> seen_;
};

std::vector<std::int64_t> ReadBlockSize(FieldReader &reader) {
  const json &value = reader.Required("BLOCK_SIZE");
  if (value.is_number_integer())
    return {reader.CheckInteger("BLOCK_SIZE", value, 1)};
  if (value.is_array() && value.size() == 2)
    return {reader.CheckInteger("BLOCK_SIZE", value[0], 1),
            reader.CheckInteger("BLOCK_SIZE", value[1], 1)};
  throw CaseError(fmt::format("{} must be an integer or a list of two integers, got {}",
                              reader.Label("BLOCK_SIZE"), value.dump()));
}

} // namespace

Case CaseFromJson(const json &document) {
  FieldReader top(document, "");
  Case c;
  c.format_version = static_cast<int>(top.Integer("format_version", 1));
  if (c.format_version != kCaseFormatVersion)
    throw CaseError(fmt::format("format_version {} is not supported; this build reads version {}",
                                c.format_version, kCaseFormatVersion));
  c.name = top.String("name");

  FieldReader mask(top.Required("mask_mod"), "mask_mod");
  c.mask_mod.name = mask.String("name");
  c.mask_mod.source = mask.String("source");
  mask.RejectUnknown();

  FieldReader args(top.Required("create_block_mask"), "create_block_mask");
  c.create_block_mask.batch = args.IntegerOrNull("B", 1);
  c.create_block_mask.heads = args.IntegerOrNull("H", 1);
  c.create_block_mask.q_len = args.Integer("Q_LEN", 1);
  c.create_block_mask.kv_len = args.Integer("KV_LEN", 1);
  c.create_block_mask.block_size = ReadBlockSize(args);
  c.create_block_mask.device = args.String("device");
  if (c.create_block_mask.device != "cpu")
    throw CaseError(fmt::format("{} is '{}'; only \"cpu\" runs on this machine",
                                args.Label("device"), c.create_block_mask.device));
  args.RejectUnknown();

  FieldReader knobs(top.Required("inductor"), "inductor");
  c.inductor.cpp_threads = static_cast<int>(knobs.Integer("cpp.threads", 1));
  if (const auto simdlen = knobs.IntegerOrNull("cpp.simdlen", 0))
    c.inductor.cpp_simdlen = static_cast<int>(*simdlen);
  c.inductor.cpp_wrapper = knobs.Boolean("cpp_wrapper");
  c.inductor.dynamic = knobs.Boolean("dynamic");
  knobs.RejectUnknown();

  if (const json *provenance = top.Optional("provenance")) {
    if (!provenance->is_object())
      throw CaseError(
          fmt::format("field 'provenance' must be a JSON object, got {}", TypeName(*provenance)));
    c.provenance = *provenance;
  }
  top.RejectUnknown();
  return c;
}

json CaseToJson(const Case &c) {
  const auto &args = c.create_block_mask;
  json block_size = args.block_size.size() == 1 ? json(args.block_size[0]) : json(args.block_size);
  return json{
      {"format_version", c.format_version},
      {"name", c.name},
      {"mask_mod", {{"name", c.mask_mod.name}, {"source", c.mask_mod.source}}},
      {"create_block_mask",
       {{"B", args.batch ? json(*args.batch) : json(nullptr)},
        {"H", args.heads ? json(*args.heads) : json(nullptr)},
        {"Q_LEN", args.q_len},
        {"KV_LEN", args.kv_len},
        {"BLOCK_SIZE", block_size},
        {"device", args.device}}},
      {"inductor",
       {{"cpp.threads", c.inductor.cpp_threads},
        {"cpp.simdlen", c.inductor.cpp_simdlen ? json(*c.inductor.cpp_simdlen) : json(nullptr)},
        {"cpp_wrapper", c.inductor.cpp_wrapper},
        {"dynamic", c.inductor.dynamic}}},
      {"provenance", c.provenance},
  };
}

Case LoadCaseFile(const std::filesystem::path &path) {
  const std::string text = ReadTextFile(path, "case file", 16 << 20);
  json document;
  try {
    document = json::parse(text);
  } catch (const json::parse_error &error) {
    throw CaseError(fmt::format("{} is not valid JSON ({}); a case file is one JSON object "
                                "like corpus/seeds/causal-151290.json",
                                path.string(), error.what()));
  }
  try {
    return CaseFromJson(document);
  } catch (const CaseError &error) {
    throw CaseError(fmt::format("{}: {}", path.string(), error.what()));
  }
}

} // namespace fuzzer
