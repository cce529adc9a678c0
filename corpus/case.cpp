#include "corpus/case.h"

#include "corpus/field_reader.h"

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace corpus {
namespace {

using nlohmann::json;

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

std::optional<MaskFunction> ReadFunction(FieldReader &top, const std::string &key) {
  const json *value = top.Optional(key);
  if (!value || value->is_null())
    return std::nullopt;
  FieldReader reader(*value, key);
  MaskFunction function{reader.String("name"), reader.String("source")};
  reader.RejectUnknown();
  return function;
}

CapturedTensor ReadTensor(const json &value, const std::string &where) {
  FieldReader reader(value, where);
  CapturedTensor tensor;
  tensor.name = reader.String("name");
  tensor.dtype = reader.String("dtype");
  if (tensor.dtype != "int64" && tensor.dtype != "bool" && tensor.dtype != "float32")
    throw CaseError(
        fmt::format("{} is '{}'; use int64, bool or float32", reader.Label("dtype"), tensor.dtype));
  const json &shape = reader.Required("shape");
  if (!shape.is_array())
    throw CaseError(fmt::format("{} must be a list of integers", reader.Label("shape")));
  std::int64_t elements = 1;
  for (const auto &extent : shape)
    elements *= tensor.shape.emplace_back(reader.CheckInteger("shape", extent, 1));
  const json &values = reader.Required("values");
  if (!values.is_array() || static_cast<std::int64_t>(values.size()) != elements)
    throw CaseError(fmt::format("{} must be a list of {} numbers (the product of the shape)",
                                reader.Label("values"), elements));
  for (const auto &element : values) {
    if (tensor.dtype == "float32") {
      if (!element.is_number())
        throw CaseError(
            fmt::format("{} must hold numbers, got {}", reader.Label("values"), TypeName(element)));
      tensor.reals.push_back(element.get<double>());
    } else if (tensor.dtype == "bool") {
      if (!element.is_boolean() && !element.is_number_integer())
        throw CaseError(fmt::format("{} must hold true/false, got {}", reader.Label("values"),
                                    TypeName(element)));
      tensor.integers.push_back(element.is_boolean() ? element.get<bool>()
                                                     : element.get<std::int64_t>() != 0);
    } else {
      if (!element.is_number_integer() ||
          (element.is_number_unsigned() && element.get<std::uint64_t>() > INT64_MAX))
        throw CaseError(fmt::format("{} must hold int64 integers, got {}", reader.Label("values"),
                                    element.dump()));
      tensor.integers.push_back(element.get<std::int64_t>());
    }
  }
  reader.RejectUnknown();
  return tensor;
}

AttentionArguments ReadAttention(const json &value) {
  FieldReader reader(value, "attention");
  AttentionArguments a;
  a.batch = reader.Integer("B", 1);
  a.q_heads = reader.Integer("Hq", 1);
  a.kv_heads = reader.Integer("Hkv", 1);
  a.q_len = reader.Integer("Q_LEN", 1);
  a.kv_len = reader.Integer("KV_LEN", 1);
  a.head_dim = reader.Integer("E", 1);
  a.value_dim = reader.Integer("Ev", 1);
  a.dtype = reader.String("dtype");
  if (a.dtype != "float32" && a.dtype != "bfloat16" && a.dtype != "float16")
    throw CaseError(fmt::format("{} is '{}'; use float32, bfloat16 or float16",
                                reader.Label("dtype"), a.dtype));
  a.input_seed = reader.Integer("input_seed", 0);
  a.use_block_mask = reader.Boolean("use_block_mask");
  a.enable_gqa = reader.Boolean("enable_gqa");
  if (a.q_heads % a.kv_heads != 0)
    throw CaseError("field 'attention.Hq' must be a multiple of 'attention.Hkv'");
  reader.RejectUnknown();
  return a;
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
  if (top.Optional("api"))
    c.api = top.String("api");
  if (std::find(kApis.begin(), kApis.end(), c.api) == kApis.end())
    throw CaseError(
        fmt::format("field 'api' is '{}'; use one of {}", c.api, fmt::join(kApis, ", ")));

  c.mask_mod = ReadFunction(top, "mask_mod");
  c.score_mod = ReadFunction(top, "score_mod");
  if (!c.mask_mod && c.api != "flex_attention")
    throw CaseError(fmt::format("field 'mask_mod' is needed by {}", c.api));
  if (c.score_mod && c.api != "flex_attention")
    throw CaseError("field 'score_mod' is only used by flex_attention; remove it or change 'api'");

  if (const json *tensors = top.Optional("tensors")) {
    if (!tensors->is_array())
      throw CaseError(fmt::format("field 'tensors' must be a list, got {}", TypeName(*tensors)));
    for (std::size_t i = 0; i < tensors->size(); ++i)
      c.tensors.push_back(ReadTensor((*tensors)[i], fmt::format("tensors[{}]", i)));
  }

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

  if (const json *attention = top.Optional("attention"); attention && !attention->is_null())
    c.attention = ReadAttention(*attention);
  if (c.api == "flex_attention" && !c.attention)
    throw CaseError("field 'attention' (query/key/value shapes and dtype) is needed by "
                    "flex_attention");
  if (c.attention && c.api != "flex_attention")
    throw CaseError("field 'attention' is only used by flex_attention; set it to null");

  FieldReader knobs(top.Required("inductor"), "inductor");
  for (const auto &knob : InductorKnobTable()) {
    const std::string key(knob.name);
    if (!knob.required && !knobs.Optional(key))
      continue;
    switch (knob.type) {
    case KnobType::kBool:
      c.inductor.*knob.flag = knobs.Boolean(key);
      break;
    case KnobType::kInt:
      c.inductor.*knob.number = static_cast<int>(knobs.Integer(key, 1));
      break;
    case KnobType::kOptionalInt:
      if (const auto value = knobs.IntegerOrNull(key, 0))
        c.inductor.*knob.optional_number = static_cast<int>(*value);
      break;
    }
  }
  knobs.RejectUnknown();

  if (const json *expect = top.Optional("expect")) {
    FieldReader reader(*expect, "expect");
    if (const json *raises = reader.Optional("raises"); raises && !raises->is_null())
      c.expect_raises = reader.String("raises");
    reader.RejectUnknown();
  }

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
  auto function = [](const std::optional<MaskFunction> &f) {
    return f ? json{{"name", f->name}, {"source", f->source}} : json(nullptr);
  };
  json tensors = json::array();
  for (const auto &tensor : c.tensors) {
    json values = json::array();
    if (tensor.dtype == "float32")
      values = tensor.reals;
    else if (tensor.dtype == "bool")
      for (auto value : tensor.integers)
        values.push_back(value != 0);
    else
      values = tensor.integers;
    tensors.push_back({{"name", tensor.name},
                       {"dtype", tensor.dtype},
                       {"shape", tensor.shape},
                       {"values", values}});
  }
  json attention = nullptr;
  if (c.attention) {
    const auto &a = *c.attention;
    attention = {{"B", a.batch},
                 {"Hq", a.q_heads},
                 {"Hkv", a.kv_heads},
                 {"Q_LEN", a.q_len},
                 {"KV_LEN", a.kv_len},
                 {"E", a.head_dim},
                 {"Ev", a.value_dim},
                 {"dtype", a.dtype},
                 {"input_seed", a.input_seed},
                 {"use_block_mask", a.use_block_mask},
                 {"enable_gqa", a.enable_gqa}};
  }
  return json{
      {"format_version", c.format_version},
      {"name", c.name},
      {"api", c.api},
      {"mask_mod", function(c.mask_mod)},
      {"score_mod", function(c.score_mod)},
      {"tensors", tensors},
      {"create_block_mask",
       {{"B", args.batch ? json(*args.batch) : json(nullptr)},
        {"H", args.heads ? json(*args.heads) : json(nullptr)},
        {"Q_LEN", args.q_len},
        {"KV_LEN", args.kv_len},
        {"BLOCK_SIZE", block_size},
        {"device", args.device}}},
      {"attention", attention},
      {"inductor", KnobsToJson(c.inductor)},
      {"expect", {{"raises", c.expect_raises.empty() ? json(nullptr) : json(c.expect_raises)}}},
      {"provenance", c.provenance},
  };
}

Case LoadCaseFile(const std::filesystem::path &path) {
  const std::string text = fuzzer::support::ReadTextFile(path, "case file", 16 << 20);
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

} // namespace corpus
