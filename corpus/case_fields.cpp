// A case's JSON, written and read from one field list per object (the case, its functions, its
// block mask's arguments, its later calls, its tensors; flex_attention's arguments in
// corpus/case_attention_fields.cpp). The values' own checks are corpus/case_values.h's; the checks
// across fields, corpus/case_checks.h's.
#include "corpus/case_fields.h"
#include "corpus/api_row.h"
#include "corpus/case.h"
#include "corpus/case_checks.h"
#include "corpus/case_tensors.h"
#include "corpus/case_values.h"
#include "corpus/record_fields.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace corpus {
namespace {

using nlohmann::json;

// A size of at least 1.
template <class Record>
RecordField<Record> SizeField(std::string_view name, std::int64_t Record::*member) {
  return CustomField<Record>(
      name, [member](const Record &record) { return FieldJson(record.*member); },
      [member](FieldReader &reader, const std::string &key, Record &record) {
        record.*member = reader.Integer(key, 1);
      });
}

// A size a record may leave out: written only when it is set.
template <class Record>
RecordField<Record> OptionalSizeField(std::string_view name,
                                      std::optional<std::int64_t> Record::*member) {
  return CustomField<Record>(
      name,
      [member](const Record &record) {
        return record.*member ? FieldJson(*(record.*member)) : AbsentField();
      },
      [member](FieldReader &reader, const std::string &key, Record &record) {
        if (reader.Optional(key))
          record.*member = reader.Integer(key, 1);
      });
}

// ---------------------------------------------------------------------------------------------
// A captured tensor: its values inline, or (SaveCaseFile) in a sidecar file it names.

FieldJson TensorValues(const CapturedTensor &tensor) {
  if (tensor.IsFloating())
    return FieldJson(tensor.reals);
  if (tensor.dtype != "bool")
    return FieldJson(tensor.integers);
  FieldJson values = FieldJson::array();
  for (auto value : tensor.integers)
    values.push_back(value != 0);
  return values;
}

RecordFields<CapturedTensor> TensorFields(const std::optional<std::filesystem::path> &sidecar_dir) {
  return {MemberField("name", &CapturedTensor::name),
          CustomField<CapturedTensor>(
              "dtype", [](const CapturedTensor &tensor) { return FieldJson(tensor.dtype); },
              [](FieldReader &reader, const std::string &key, CapturedTensor &tensor) {
                tensor.dtype = reader.String(key);
                if (!FindTensorDtype(tensor.dtype))
                  throw CaseError(fmt::format("{} is '{}'; use one of {}", reader.Label(key),
                                              tensor.dtype, TensorDtypeNames()));
              }),
          CustomField<CapturedTensor>(
              "shape", [](const CapturedTensor &tensor) { return FieldJson(tensor.shape); },
              [](FieldReader &reader, const std::string &key, CapturedTensor &tensor) {
                const json &shape = reader.Required(key);
                if (!shape.is_array())
                  throw CaseError(fmt::format("{} must be a list of integers", reader.Label(key)));
                for (const auto &extent : shape)
                  tensor.shape.push_back(reader.CheckInteger(key, extent, 1));
              }),
          // "values", or "file" and "sha256" where SaveCaseFile moved them to a sidecar.
          CustomField<CapturedTensor>(
              "values", &TensorValues,
              [sidecar_dir](FieldReader &reader, const std::string &, CapturedTensor &tensor) {
                ReadTensorValues(reader, tensor, sidecar_dir);
              })};
}

FieldJson TensorsJson(const std::vector<CapturedTensor> &tensors) {
  FieldJson list = FieldJson::array();
  for (const auto &tensor : tensors)
    list.push_back(WriteFields<FieldJson>(TensorFields(std::nullopt), tensor));
  return list;
}

// ---------------------------------------------------------------------------------------------
// mask_mod and score_mod: a Python function's name and source, or null.

const RecordFields<MaskFunction> &FunctionFields() {
  static const RecordFields<MaskFunction> fields = {MemberField("name", &MaskFunction::name),
                                                    MemberField("source", &MaskFunction::source)};
  return fields;
}

RecordField<Case> FunctionField(std::string_view name, std::optional<MaskFunction> Case::*member) {
  return CustomField<Case>(
      name,
      [member](const Case &c) {
        return c.*member ? WriteFields<FieldJson>(FunctionFields(), *(c.*member))
                         : FieldJson(nullptr);
      },
      [member](FieldReader &reader, const std::string &key, Case &c) {
        const json *value = reader.Optional(key);
        if (!value || value->is_null())
          return;
        FieldReader function = reader.Nested(*value, key);
        ReadFields(FunctionFields(), function, (c.*member).emplace());
      });
}

// ---------------------------------------------------------------------------------------------
// create_block_mask's arguments, which every case has (flex_attention's block mask too).

RecordField<BlockMaskArguments>
BroadcastField(std::string_view name, std::optional<std::int64_t> BlockMaskArguments::*member) {
  return CustomField<BlockMaskArguments>(
      name,
      [member](const BlockMaskArguments &args) {
        return args.*member ? FieldJson(*(args.*member)) : FieldJson(nullptr);
      },
      [member](FieldReader &reader, const std::string &key, BlockMaskArguments &args) {
        args.*member = reader.IntegerOrNull(key, 1);
      });
}

const RecordFields<BlockMaskArguments> &BlockMaskFields() {
  static const RecordFields<BlockMaskArguments> fields = {
      BroadcastField("B", &BlockMaskArguments::batch),
      BroadcastField("H", &BlockMaskArguments::heads),
      SizeField("Q_LEN", &BlockMaskArguments::q_len),
      SizeField("KV_LEN", &BlockMaskArguments::kv_len),
      CustomField<BlockMaskArguments>(
          "BLOCK_SIZE",
          [](const BlockMaskArguments &args) {
            return args.block_size.size() == 1 ? FieldJson(args.block_size[0])
                                               : FieldJson(args.block_size);
          },
          [](FieldReader &reader, const std::string &key, BlockMaskArguments &args) {
            args.block_size = ReadBlockSize(reader, key);
          }),
      CustomField<BlockMaskArguments>(
          "device", [](const BlockMaskArguments &args) { return FieldJson(args.device); },
          [](FieldReader &reader, const std::string &key, BlockMaskArguments &args) {
            args.device = reader.String(key);
            if (args.device != "cpu")
              throw CaseError(fmt::format("{} is '{}'; only \"cpu\" runs on this machine",
                                          reader.Label(key), args.device));
          }),
      CustomField<BlockMaskArguments>(
          "separate_full_blocks",
          [](const BlockMaskArguments &args) {
            return args.separate_full_blocks ? AbsentField() : FieldJson(false);
          },
          [](FieldReader &reader, const std::string &key, BlockMaskArguments &args) {
            if (reader.Optional(key))
              args.separate_full_blocks = reader.Boolean(key);
          })};
  return fields;
}

// ---------------------------------------------------------------------------------------------
// A call after the first: what it changes, each field only where it changes something.

RecordFields<CallChange> CallFields(const std::optional<std::filesystem::path> &sidecar_dir) {
  return {CustomField<CallChange>(
              "constants",
              [](const CallChange &call) {
                return call.constants.empty() ? AbsentField() : FieldJson(call.constants);
              },
              [](FieldReader &reader, const std::string &key, CallChange &call) {
                call.constants = ReadConstants(reader, key);
              }),
          OptionalSizeField("B", &CallChange::batch),
          OptionalSizeField("Q_LEN", &CallChange::q_len),
          OptionalSizeField("KV_LEN", &CallChange::kv_len),
          CustomField<CallChange>(
              "tensors",
              [](const CallChange &call) {
                return call.tensors.empty() ? AbsentField() : TensorsJson(call.tensors);
              },
              [sidecar_dir](FieldReader &reader, const std::string &key, CallChange &call) {
                call.tensors = ReadTensors(reader, key, sidecar_dir);
              }),
          CustomField<CallChange>(
              "dtype",
              [](const CallChange &call) {
                return call.dtype.empty() ? AbsentField() : FieldJson(call.dtype);
              },
              [](FieldReader &reader, const std::string &key, CallChange &call) {
                if (!reader.Optional(key))
                  return;
                call.dtype = reader.String(key);
                CheckInputDtype(reader, key, call.dtype);
              })};
}

// What a call changes must be the case's: its constants declared, its tensors held.
void CheckCallAgrees(const Case &c, const CallChange &call, std::size_t i) {
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
  if (!call.dtype.empty() && !CorpusApiOf(c.api).call_dtype)
    throw CaseError(fmt::format("field 'calls[{}].dtype' is only used by flex_attention", i));
}

// ---------------------------------------------------------------------------------------------
// The case. Its fields are read in this order: a field's checks may use those before it.

const RecordFields<Case> &ExpectFields() {
  static const RecordFields<Case> fields = {CustomField<Case>(
      "raises",
      [](const Case &c) {
        return c.expect_raises.empty() ? FieldJson(nullptr) : FieldJson(c.expect_raises);
      },
      [](FieldReader &reader, const std::string &key, Case &c) {
        if (const json *raises = reader.Optional(key); raises && !raises->is_null())
          c.expect_raises = reader.String(key);
      })};
  return fields;
}

// The case's readers that check more than their own value, each after the fields before it.

void ReadFormatVersion(FieldReader &reader, const std::string &key, Case &, CaseReading &reading) {
  reading.version = reader.Integer(key, 1);
  if (reading.version > kCaseFormatVersion)
    throw CaseError(fmt::format("format_version {} is not supported; this build reads versions 1 "
                                "to {}",
                                reading.version, kCaseFormatVersion));
}

// The functions are read before: whether the API takes them is checked first.
void ReadCaseTensors(FieldReader &reader, const std::string &key, Case &c, CaseReading &reading) {
  if (!c.mask_mod && !CorpusApiOf(c.api).mask_mod_optional)
    throw CaseError(fmt::format("field 'mask_mod' is needed by {}{}", c.api,
                                CorpusApiOf(c.api).mask_mod_is.empty()
                                    ? std::string()
                                    : fmt::format(" ({})", CorpusApiOf(c.api).mask_mod_is)));
  if (c.score_mod && !CorpusApiOf(c.api).score_mod)
    throw CaseError("field 'score_mod' is only used by flex_attention; remove it or change 'api'");
  c.tensors = ReadTensors(reader, key, reading.sidecar_dir);
  if (reading.version == 1 && UsesVersion2Dtypes(c.tensors))
    throw CaseError("a version 1 case holds int64, bool and float32 tensors only; set "
                    "format_version to 2 for other dtypes");
  if (reading.version < 3 && std::any_of(
                                 c.tensors.begin(), c.tensors.end(),
                                 [](const CapturedTensor &t) { return t.dtype == "uint8"; }))
    throw CaseError("uint8 tensors need format_version 3");
}

FieldJson WriteCalls(const Case &c, CaseReading &reading) {
  if (c.calls.empty())
    return AbsentField();
  FieldJson calls = FieldJson::array();
  for (const auto &call : c.calls)
    calls.push_back(WriteFields<FieldJson>(CallFields(reading.sidecar_dir), call));
  return calls;
}

void ReadCalls(FieldReader &reader, const std::string &key, Case &c, CaseReading &reading) {
  if (const json *calls = reader.Optional(key)) {
    if (!calls->is_array())
      throw CaseError(
          fmt::format("{} must be a list, got {}", reader.Label(key), TypeName(*calls)));
    for (std::size_t i = 0; i < calls->size(); ++i) {
      FieldReader fields = reader.Nested((*calls)[i], fmt::format("{}[{}]", key, i));
      CallChange call;
      ReadFields(CallFields(reading.sidecar_dir), fields, call);
      CheckCallAgrees(c, call, i);
      c.calls.push_back(std::move(call));
    }
  }
  if (reading.version == 1 && (!c.constants.empty() || !c.calls.empty()))
    throw CaseError("'constants' and 'calls' need format_version 2");
}

void ReadCompileWith(FieldReader &reader, const std::string &key, Case &c, CaseReading &reading) {
  if (!reader.Optional(key))
    return;
  c.compile_with = reader.String(key);
  CheckOneOf(reader, key, c.compile_with, kCompilePaths);
  if (reading.version == 1 && c.compile_with != kTorchCompile)
    throw CaseError("'compile_with' needs format_version 2");
  if (c.compile_with == kAoti && !c.calls.empty())
    throw CaseError("an aoti case compiles one call (an exported program has fixed shapes and "
                    "constants): remove 'calls' or set 'compile_with' to \"torch.compile\"");
}

void ReadCompileScope(FieldReader &reader, const std::string &key, Case &c, CaseReading &reading) {
  if (reader.Optional(key)) {
    c.compile_scope = reader.String(key);
    CheckOneOf(reader, key, c.compile_scope, kCompileScopes);
    if (reading.version == 1 && c.compile_scope != kCompileApi)
      throw CaseError("'compile_scope' needs format_version 2");
    if (c.compile_scope == kCompileFunction && c.compile_with == kAoti)
      throw CaseError("compile_scope \"function\" is torch.compile's: an aoti case exports the "
                      "API in a module; remove one of the two");
  }
  CheckConstantNames(c);
}

void ReadExpect(FieldReader &reader, const std::string &key, Case &c, CaseReading &) {
  if (const json *expect = reader.Optional(key)) {
    FieldReader fields = reader.Nested(*expect, key);
    ReadFields(ExpectFields(), fields, c);
  }
}

void ReadProvenance(FieldReader &reader, const std::string &key, Case &c, CaseReading &) {
  const json *provenance = reader.Optional(key);
  if (!provenance)
    return;
  if (!provenance->is_object())
    throw CaseError(
        fmt::format("field 'provenance' must be a JSON object, got {}", TypeName(*provenance)));
  c.provenance = *provenance;
}

using CaseReader = void (*)(FieldReader &reader, const std::string &key, Case &c,
                            CaseReading &reading);

// A field of the case whose reader is given what the reading knows.
RecordField<Case> ReadingField(std::string_view name, std::function<FieldJson(const Case &)> write,
                               CaseReader read, CaseReading &reading) {
  return CustomField<Case>(name, std::move(write),
                           [read, &reading](FieldReader &reader, const std::string &key, Case &c) {
                             read(reader, key, c, reading);
                           });
}

RecordFields<Case> CaseFields(CaseReading &reading) {
  const auto with_reading = [&reading](FieldJson (*write)(const Case &, CaseReading &)) {
    return [write, &reading](const Case &c) { return write(c, reading); };
  };
  const auto unless = [](auto empty, auto value) {
    return [empty, value](const Case &c) { return empty(c) ? AbsentField() : value(c); };
  };
  RecordFields<Case> fields = {
      ReadingField(
          "format_version", [](const Case &c) { return FieldJson(FormatVersionOf(c)); },
          &ReadFormatVersion, reading),
      MemberField("name", &Case::name),
      CustomField<Case>(
          "api", [](const Case &c) { return FieldJson(c.api); },
          [](FieldReader &reader, const std::string &key, Case &c) {
            if (reader.Optional(key))
              c.api = reader.String(key);
            CheckOneOf(reader, key, c.api, ApiNames());
          }),
      FunctionField("mask_mod", &Case::mask_mod), FunctionField("score_mod", &Case::score_mod),
      ReadingField(
          "tensors", [](const Case &c) { return TensorsJson(c.tensors); }, &ReadCaseTensors,
          reading),
      // Every API's whose row has a block mask (a tensor program's has none).
      CustomField<Case>("create_block_mask",
                        unless([](const Case &c) { return !CorpusApiOf(c.api).block_mask; },
                               [](const Case &c) {
                                 return WriteFields<FieldJson>(BlockMaskFields(),
                                                               c.create_block_mask);
                               }),
                        [](FieldReader &reader, const std::string &key, Case &c) {
                          const json *value = reader.Optional(key);
                          const bool used = CorpusApiOf(c.api).block_mask;
                          if (!used && !value)
                            return;
                          if (!used)
                            throw CaseError(fmt::format("field 'create_block_mask' is not used "
                                                        "by api \"{}\"; remove it",
                                                        c.api));
                          FieldReader fields = reader.Nested(reader.Required(key), key);
                          ReadFields(BlockMaskFields(), fields, c.create_block_mask);
                        }),
      CustomField<Case>("constants",
                        unless([](const Case &c) { return c.constants.empty(); },
                               [](const Case &c) { return FieldJson(c.constants); }),
                        [](FieldReader &reader, const std::string &key, Case &c) {
                          c.constants = ReadConstants(reader, key);
                        }),
      ReadingField("calls", with_reading(&WriteCalls), &ReadCalls, reading),
      CustomField<Case>(
          "inductor", [](const Case &c) { return FieldJson(KnobsToJson(c.inductor)); },
          [&reading](FieldReader &reader, const std::string &key, Case &c) {
            c.inductor = ReadKnobs(reader, key, reading.version);
          }),
      ReadingField(
          "expect", [](const Case &c) { return WriteFields<FieldJson>(ExpectFields(), c); },
          &ReadExpect, reading),
      ReadingField("compile_with",
                   unless([](const Case &c) { return c.compile_with == kTorchCompile; },
                          [](const Case &c) { return FieldJson(c.compile_with); }),
                   &ReadCompileWith, reading),
      ReadingField("compile_scope",
                   unless([](const Case &c) { return c.compile_scope == kCompileApi; },
                          [](const Case &c) { return FieldJson(c.compile_scope); }),
                   &ReadCompileScope, reading)};
  // Each API's own fields (corpus/api_row.h), in the rows' order, each after the common field it
  // names or after all of them, then the provenance last.
  const auto api_field = [&reading](const ApiField &field) {
    return CustomField<Case>(
        field.name, [write = field.write, &reading](const Case &c) { return write(c, reading); },
        [read = field.read, &reading](FieldReader &reader, const std::string &key, Case &c) {
          read(reader, key, c, reading);
        });
  };
  const auto following = [&](std::string_view after) {
    RecordFields<Case> own;
    for (const CorpusApi &api : CorpusApis())
      for (const ApiField &field : api.fields)
        if (field.after == after)
          own.push_back(api_field(field));
    return own;
  };
  RecordFields<Case> all;
  for (RecordField<Case> &field : fields) {
    const std::string_view name = field.name;
    all.push_back(std::move(field));
    for (RecordField<Case> &own : following(name))
      all.push_back(std::move(own));
  }
  for (RecordField<Case> &own : following(""))
    all.push_back(std::move(own));
  fields = std::move(all);
  fields.push_back(ReadingField(
      "provenance", [](const Case &c) { return FieldJson(c.provenance); }, &ReadProvenance,
      reading));
  return fields;
}

} // namespace

void CheckOneOf(const FieldReader &reader, const std::string &key, const std::string &value,
                const std::vector<std::string> &allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    throw CaseError(fmt::format("{} is '{}'; use one of {}", reader.Label(key), value,
                                fmt::join(allowed, ", ")));
}

void CheckInputDtype(const FieldReader &reader, const std::string &key, const std::string &dtype) {
  if (dtype != "float32" && dtype != "bfloat16" && dtype != "float16")
    throw CaseError(
        fmt::format("{} is '{}'; use float32, bfloat16 or float16", reader.Label(key), dtype));
}

CapturedTensor ReadTensor(const json &value, const std::string &where,
                          const std::optional<std::filesystem::path> &sidecar_dir) {
  FieldReader reader(value, where);
  CapturedTensor tensor;
  ReadFields(TensorFields(sidecar_dir), reader, tensor);
  return tensor;
}

json CaseToJson(const Case &c) {
  CaseReading unused;
  return WriteFields(CaseFields(unused), c);
}

Case CaseFromJson(const json &document, const std::optional<std::filesystem::path> &sidecar_dir) {
  FieldReader top(document, "");
  CaseReading reading{.sidecar_dir = sidecar_dir};
  Case c;
  ReadFields(CaseFields(reading), top, c);
  return c;
}

} // namespace corpus
