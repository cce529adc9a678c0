#include "corpus/case.h"
#include "corpus/case_checks.h"
#include "corpus/case_tensors.h"

#include "corpus/field_reader.h"
#include "support/sha256.h"

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

// Reading a case: its JSON, checked field by field (CaseError names the field), and its file.
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

FromKvBlocks ReadFromKvBlocks(const json &value, const AttentionArguments &a) {
  FieldReader reader(value, "attention.from_kv_blocks");
  FromKvBlocks rebuilt;
  for (auto [key, field] : {std::pair{"partial", &rebuilt.partial}, {"full", &rebuilt.full}}) {
    if (!reader.Optional(key))
      continue;
    *field = reader.String(key);
    if (std::find(kBlockTensorLayouts.begin(), kBlockTensorLayouts.end(), *field) ==
        kBlockTensorLayouts.end())
      throw CaseError(fmt::format("{} is '{}'; use one of {}", reader.Label(key), *field,
                                  fmt::join(kBlockTensorLayouts, ", ")));
  }
  reader.RejectUnknown();
  if (!a.use_block_mask || !a.block_mask_tensors.empty())
    throw CaseError("field 'attention.from_kv_blocks' rebuilds the block mask create_block_mask "
                    "makes: it needs 'use_block_mask' true and no 'block_mask_tensors'");
  return rebuilt;
}

AttentionArguments ReadAttention(const json &value, const BlockMaskArguments &mask, int version) {
  FieldReader reader(value, "attention");
  AttentionArguments a;
  // Version 2 gives a shape once: B, Q_LEN and KV_LEN default to the block mask's.
  auto shared = [&](const std::string &key, std::optional<std::int64_t> from_mask) {
    if (version >= 2 && !reader.Optional(key) && from_mask)
      return *from_mask;
    return reader.Integer(key, 1);
  };
  a.batch = shared("B", mask.batch);
  a.q_heads = reader.Integer("Hq", 1);
  a.kv_heads = reader.Integer("Hkv", 1);
  a.q_len = shared("Q_LEN", mask.q_len);
  a.kv_len = shared("KV_LEN", mask.kv_len);
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
  if (const json *scale = reader.Optional("scale"); scale && !scale->is_null())
    a.scale = reader.Number("scale");
  if (reader.Optional("return_lse"))
    a.return_lse = reader.Boolean("return_lse");
  if (reader.Optional("layout")) {
    a.layout = reader.String("layout");
    if (std::find(kLayouts.begin(), kLayouts.end(), a.layout) == kLayouts.end())
      throw CaseError(fmt::format("{} is '{}'; use one of {}", reader.Label("layout"), a.layout,
                                  fmt::join(kLayouts, ", ")));
  }
  if (const json *options = reader.Optional("kernel_options"); options && !options->is_null()) {
    if (!options->is_object())
      throw CaseError(fmt::format("{} must be an object (flex_attention's kernel_options dict)",
                                  reader.Label("kernel_options")));
    a.kernel_options = *options;
  }
  a.qkv = ReadNames(reader, "qkv", 3, 3);
  a.block_mask_tensors = ReadNames(reader, "block_mask_tensors", 2, 4);
  if (const json *rebuilt = reader.Optional("from_kv_blocks"); rebuilt && !rebuilt->is_null())
    a.from_kv_blocks = ReadFromKvBlocks(*rebuilt, a);
  if (!a.qkv.empty() && a.layout != kContiguousLayout)
    throw CaseError("field 'attention.layout' applies to the inputs the worker makes, not to "
                    "'attention.qkv' tensors; remove one of the two");
  reader.RejectUnknown();
  return a;
}

CallChange ReadCall(const json &value, const std::string &where,
                    const std::optional<std::filesystem::path> &sidecar_dir) {
  FieldReader reader(value, where);
  CallChange call;
  call.constants = ReadConstants(reader, "constants");
  if (reader.Optional("B"))
    call.batch = reader.Integer("B", 1);
  if (reader.Optional("Q_LEN"))
    call.q_len = reader.Integer("Q_LEN", 1);
  if (reader.Optional("KV_LEN"))
    call.kv_len = reader.Integer("KV_LEN", 1);
  call.tensors = ReadTensors(reader, "tensors", sidecar_dir);
  if (reader.Optional("dtype")) {
    call.dtype = reader.String("dtype");
    if (call.dtype != "float32" && call.dtype != "bfloat16" && call.dtype != "float16")
      throw CaseError(fmt::format("{} is '{}'; use float32, bfloat16 or float16",
                                  reader.Label("dtype"), call.dtype));
  }
  reader.RejectUnknown();
  return call;
}

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

CapturedTensor ReadTensor(const json &value, const std::string &where,
                          const std::optional<std::filesystem::path> &sidecar_dir) {
  FieldReader reader(value, where);
  CapturedTensor tensor;
  tensor.name = reader.String("name");
  tensor.dtype = reader.String("dtype");
  if (!FindTensorDtype(tensor.dtype))
    throw CaseError(fmt::format("{} is '{}'; use one of {}", reader.Label("dtype"), tensor.dtype,
                                TensorDtypeNames()));
  const json &shape = reader.Required("shape");
  if (!shape.is_array())
    throw CaseError(fmt::format("{} must be a list of integers", reader.Label("shape")));
  for (const auto &extent : shape)
    tensor.shape.push_back(reader.CheckInteger("shape", extent, 1));
  ReadTensorValues(reader, tensor, sidecar_dir);
  reader.RejectUnknown();
  return tensor;
}

namespace {

// The create_block_mask arguments every case has (flex_attention's block mask too).
BlockMaskArguments ReadCreateBlockMask(FieldReader &top) {
  BlockMaskArguments mask;
  FieldReader args(top.Required("create_block_mask"), "create_block_mask");
  mask.batch = args.IntegerOrNull("B", 1);
  mask.heads = args.IntegerOrNull("H", 1);
  mask.q_len = args.Integer("Q_LEN", 1);
  mask.kv_len = args.Integer("KV_LEN", 1);
  mask.block_size = ReadBlockSize(args);
  mask.device = args.String("device");
  if (args.Optional("separate_full_blocks"))
    mask.separate_full_blocks = args.Boolean("separate_full_blocks");
  if (mask.device != "cpu")
    throw CaseError(fmt::format("{} is '{}'; only \"cpu\" runs on this machine",
                                args.Label("device"), mask.device));
  args.RejectUnknown();
  return mask;
}

// api "index_program": its reduction, and nothing an index program does not use.
void ReadIndexProgram(FieldReader &top, Case &c, int version) {
  const json *program = top.Optional("index_program");
  if (c.api != kIndexProgram) {
    if (program && !program->is_null())
      throw CaseError("field 'index_program' is only used by api \"index_program\"; remove it");
    return;
  }
  if (version == 1)
    throw CaseError("api \"index_program\" needs format_version 2");
  if (!program || program->is_null())
    throw CaseError("field 'index_program' ({\"reduction\": \"none\"}) is needed by api "
                    "\"index_program\"");
  FieldReader reader(*program, "index_program");
  c.index_reduction = reader.String("reduction");
  if (std::find(kIndexReductions.begin(), kIndexReductions.end(), c.index_reduction) ==
      kIndexReductions.end())
    throw CaseError(fmt::format("{} is '{}'; use one of {}", reader.Label("reduction"),
                                c.index_reduction, fmt::join(kIndexReductions, ", ")));
  reader.RejectUnknown();
  if (!c.calls.empty() || !c.constants.empty() || c.compile_with != kTorchCompile ||
      c.compile_scope != kCompileApi)
    throw CaseError("an index_program case is one torch.compile call of the program itself: "
                    "remove 'calls', 'constants', 'compile_with' and 'compile_scope'");
}

// The calls after the first: what each changes of the case (constants, tensors, dtype).
std::vector<CallChange> ReadCalls(FieldReader &top, const Case &c,
                                  const std::optional<std::filesystem::path> &sidecar_dir) {
  std::vector<CallChange> changes;
  if (const json *calls = top.Optional("calls")) {
    if (!calls->is_array())
      throw CaseError(fmt::format("field 'calls' must be a list, got {}", TypeName(*calls)));
    for (std::size_t i = 0; i < calls->size(); ++i) {
      CallChange call = ReadCall((*calls)[i], fmt::format("calls[{}]", i), sidecar_dir);
      for (const auto &[name, value] : call.constants.items())
        if (!c.constants.contains(name))
          throw CaseError(fmt::format("field 'calls[{}].constants' changes '{}', which the case's "
                                      "'constants' does not declare",
                                      i, name));
      for (const auto &tensor : call.tensors)
        if (std::none_of(c.tensors.begin(), c.tensors.end(),
                         [&](const CapturedTensor &t) { return t.name == tensor.name; }))
          throw CaseError(fmt::format("field 'calls[{}].tensors' replaces '{}', which the case's "
                                      "'tensors' does not hold",
                                      i, tensor.name));
      if (!call.dtype.empty() && c.api != "flex_attention")
        throw CaseError(fmt::format("field 'calls[{}].dtype' is only used by flex_attention", i));
      changes.push_back(std::move(call));
    }
  }
  return changes;
}

// The Inductor knobs of the knob table: version 1 gives every knob it knew of, version 2 leaves
// out those at Inductor's default.
InductorKnobs ReadKnobs(FieldReader &top, std::int64_t version) {
  InductorKnobs inductor;
  FieldReader knobs(top.Required("inductor"), "inductor");
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

} // namespace

Case CaseFromJson(const json &document, const std::optional<std::filesystem::path> &sidecar_dir) {
  FieldReader top(document, "");
  Case c;
  const auto version = top.Integer("format_version", 1);
  if (version > kCaseFormatVersion)
    throw CaseError(fmt::format("format_version {} is not supported; this build reads versions 1 "
                                "to {}",
                                version, kCaseFormatVersion));
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

  c.tensors = ReadTensors(top, "tensors", sidecar_dir);
  if (version == 1 && UsesVersion2Dtypes(c.tensors))
    throw CaseError("a version 1 case holds int64, bool and float32 tensors only; set "
                    "format_version to 2 for other dtypes");

  c.create_block_mask = ReadCreateBlockMask(top);

  if (const json *attention = top.Optional("attention"); attention && !attention->is_null())
    c.attention = ReadAttention(*attention, c.create_block_mask, static_cast<int>(version));
  if (c.api == "flex_attention" && !c.attention)
    throw CaseError("field 'attention' (query/key/value shapes and dtype) is needed by "
                    "flex_attention");
  if (c.attention && c.api != "flex_attention")
    throw CaseError("field 'attention' is only used by flex_attention; set it to null");
  if (c.attention)
    CheckAttentionAgrees(c);

  c.constants = ReadConstants(top, "constants");
  c.calls = ReadCalls(top, c, sidecar_dir);
  if (version == 1 && (!c.constants.empty() || !c.calls.empty()))
    throw CaseError("'constants' and 'calls' need format_version 2");

  c.inductor = ReadKnobs(top, version);

  if (const json *expect = top.Optional("expect")) {
    FieldReader reader(*expect, "expect");
    if (const json *raises = reader.Optional("raises"); raises && !raises->is_null())
      c.expect_raises = reader.String("raises");
    reader.RejectUnknown();
  }

  if (top.Optional("compile_with")) {
    c.compile_with = top.String("compile_with");
    if (std::find(kCompilePaths.begin(), kCompilePaths.end(), c.compile_with) ==
        kCompilePaths.end())
      throw CaseError(fmt::format("field 'compile_with' is '{}'; use one of {}", c.compile_with,
                                  fmt::join(kCompilePaths, ", ")));
    if (version == 1 && c.compile_with != kTorchCompile)
      throw CaseError("'compile_with' needs format_version 2");
    if (c.compile_with == kAoti && !c.calls.empty())
      throw CaseError("an aoti case compiles one call (an exported program has fixed shapes and "
                      "constants): remove 'calls' or set 'compile_with' to \"torch.compile\"");
  }

  if (top.Optional("compile_scope")) {
    c.compile_scope = top.String("compile_scope");
    if (std::find(kCompileScopes.begin(), kCompileScopes.end(), c.compile_scope) ==
        kCompileScopes.end())
      throw CaseError(fmt::format("field 'compile_scope' is '{}'; use one of {}", c.compile_scope,
                                  fmt::join(kCompileScopes, ", ")));
    if (version == 1 && c.compile_scope != kCompileApi)
      throw CaseError("'compile_scope' needs format_version 2");
    if (c.compile_scope == kCompileFunction && c.compile_with == kAoti)
      throw CaseError("compile_scope \"function\" is torch.compile's: an aoti case exports the "
                      "API in a module; remove one of the two");
  }
  CheckConstantNames(c);
  ReadIndexProgram(top, c, static_cast<int>(version));

  if (const json *provenance = top.Optional("provenance")) {
    if (!provenance->is_object())
      throw CaseError(
          fmt::format("field 'provenance' must be a JSON object, got {}", TypeName(*provenance)));
    c.provenance = *provenance;
  }
  top.RejectUnknown();
  return c;
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
