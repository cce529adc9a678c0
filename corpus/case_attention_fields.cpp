// flex_attention's arguments on one field list (corpus/case_fields.h), and the case's field that
// holds them (corpus/case_api_fields.h).
#include "corpus/case_api_fields.h"
#include "corpus/case_checks.h"
#include "corpus/case_fields.h"
#include "corpus/case_values.h"

#include <fmt/format.h>

namespace corpus {
namespace {

using nlohmann::json;

const RecordFields<FromKvBlocks> &FromKvBlocksFields() {
  const auto layout = [](std::string FromKvBlocks::*member) {
    return [member](FieldReader &reader, const std::string &key, FromKvBlocks &rebuilt) {
      if (!reader.Optional(key))
        return;
      rebuilt.*member = reader.String(key);
      CheckOneOf(reader, key, rebuilt.*member, kBlockTensorLayouts);
    };
  };
  static const RecordFields<FromKvBlocks> fields = {
      CustomField<FromKvBlocks>(
          "partial", [](const FromKvBlocks &rebuilt) { return FieldJson(rebuilt.partial); },
          layout(&FromKvBlocks::partial)),
      CustomField<FromKvBlocks>(
          "full", [](const FromKvBlocks &rebuilt) { return FieldJson(rebuilt.full); },
          layout(&FromKvBlocks::full))};
  return fields;
}

// A field of the case's attention arguments; `write` returns AbsentField() to leave it out.
template <class Write, class Read>
RecordField<Case> AttentionField(std::string_view name, Write write, Read read) {
  return CustomField<Case>(
      name, [write](const Case &c) { return FieldJson(write(*c.attention)); },
      [read](FieldReader &reader, const std::string &key, Case &c) {
        read(reader, key, *c.attention);
      });
}

template <class Type>
RecordField<Case> AttentionMember(std::string_view name, Type AttentionArguments::*member) {
  RecordField<AttentionArguments> field = MemberField(name, member);
  return AttentionField(
      name, [write = field.write](const AttentionArguments &a) { return write(a); },
      [read = field.read](FieldReader &reader, const std::string &key, AttentionArguments &a) {
        read(reader, key, a);
      });
}

// B, Q_LEN or KV_LEN: in version 2 left out where the block mask gives the same.
RecordField<Case>
SharedShapeField(std::string_view name, std::int64_t AttentionArguments::*member,
                 std::optional<std::int64_t> (*of_mask)(const BlockMaskArguments &),
                 const CaseReading &reading) {
  return CustomField<Case>(
      name,
      [member, of_mask](const Case &c) {
        const bool shared = FormatVersionOf(c) >= 2 && c.attention->use_block_mask;
        const auto from_mask = of_mask(c.create_block_mask);
        return shared && from_mask == (*c.attention).*member ? AbsentField()
                                                             : FieldJson((*c.attention).*member);
      },
      [member, of_mask, &reading](FieldReader &reader, const std::string &key, Case &c) {
        const auto from_mask = of_mask(c.create_block_mask);
        (*c.attention).*member = reading.version >= 2 && !reader.Optional(key) && from_mask
                                     ? *from_mask
                                     : reader.Integer(key, 1);
      });
}

} // namespace

RecordFields<Case> AttentionFields(const CaseReading &reading) {
  using A = AttentionArguments;
  // qkv (three names) and block_mask_tensors (two to four): the case's tensors used as they are.
  const auto names = [](std::string_view name, std::vector<std::string> A::*member,
                        std::size_t minimum, std::size_t maximum) {
    return AttentionField(
        name,
        [member](const A &a) { return (a.*member).empty() ? AbsentField() : FieldJson(a.*member); },
        [member, minimum, maximum](FieldReader &reader, const std::string &key, A &a) {
          a.*member = ReadNames(reader, key, minimum, maximum);
        });
  };
  return {SharedShapeField(
              "B", &A::batch, [](const BlockMaskArguments &m) { return m.batch; }, reading),
          AttentionField(
              "Hq", [](const A &a) { return FieldJson(a.q_heads); },
              [](FieldReader &reader, const std::string &key, A &a) {
                a.q_heads = reader.Integer(key, 1);
              }),
          AttentionField(
              "Hkv", [](const A &a) { return FieldJson(a.kv_heads); },
              [](FieldReader &reader, const std::string &key, A &a) {
                a.kv_heads = reader.Integer(key, 1);
                if (a.q_heads % a.kv_heads != 0)
                  throw CaseError("field 'attention.Hq' must be a multiple of 'attention.Hkv'");
              }),
          SharedShapeField(
              "Q_LEN", &A::q_len,
              [](const BlockMaskArguments &m) { return std::optional<std::int64_t>(m.q_len); },
              reading),
          SharedShapeField(
              "KV_LEN", &A::kv_len,
              [](const BlockMaskArguments &m) { return std::optional<std::int64_t>(m.kv_len); },
              reading),
          AttentionField(
              "E", [](const A &a) { return FieldJson(a.head_dim); },
              [](FieldReader &reader, const std::string &key, A &a) {
                a.head_dim = reader.Integer(key, 1);
              }),
          AttentionField(
              "Ev", [](const A &a) { return FieldJson(a.value_dim); },
              [](FieldReader &reader, const std::string &key, A &a) {
                a.value_dim = reader.Integer(key, 1);
              }),
          AttentionField(
              "dtype", [](const A &a) { return FieldJson(a.dtype); },
              [](FieldReader &reader, const std::string &key, A &a) {
                a.dtype = reader.String(key);
                CheckInputDtype(reader, key, a.dtype);
              }),
          AttentionMember("input_seed", &A::input_seed),
          AttentionMember("use_block_mask", &A::use_block_mask),
          AttentionMember("enable_gqa", &A::enable_gqa),
          AttentionField(
              "scale", [](const A &a) { return a.scale ? FieldJson(*a.scale) : AbsentField(); },
              [](FieldReader &reader, const std::string &key, A &a) {
                if (const json *scale = reader.Optional(key); scale && !scale->is_null())
                  a.scale = reader.Number(key);
              }),
          AttentionField(
              "return_lse",
              [](const A &a) { return a.return_lse ? FieldJson(true) : AbsentField(); },
              [](FieldReader &reader, const std::string &key, A &a) {
                if (reader.Optional(key))
                  a.return_lse = reader.Boolean(key);
              }),
          AttentionField(
              "kernel_options",
              [](const A &a) {
                return a.kernel_options.is_null() ? AbsentField() : FieldJson(a.kernel_options);
              },
              [](FieldReader &reader, const std::string &key, A &a) {
                const json *options = reader.Optional(key);
                if (!options || options->is_null())
                  return;
                if (!options->is_object())
                  throw CaseError(
                      fmt::format("{} must be an object (flex_attention's kernel_options dict)",
                                  reader.Label(key)));
                a.kernel_options = *options;
              }),
          AttentionField(
              "layout",
              [](const A &a) {
                return a.layout == kContiguousLayout ? AbsentField() : FieldJson(a.layout);
              },
              [](FieldReader &reader, const std::string &key, A &a) {
                if (!reader.Optional(key))
                  return;
                a.layout = reader.String(key);
                CheckOneOf(reader, key, a.layout, kLayouts);
              }),
          names("qkv", &A::qkv, 3, 3),
          names("block_mask_tensors", &A::block_mask_tensors, 2, 4),
          AttentionField(
              "from_kv_blocks",
              [](const A &a) {
                return a.from_kv_blocks
                           ? WriteFields<FieldJson>(FromKvBlocksFields(), *a.from_kv_blocks)
                           : AbsentField();
              },
              [](FieldReader &reader, const std::string &key, A &a) {
                const json *rebuilt = reader.Optional(key);
                if (!rebuilt || rebuilt->is_null())
                  return;
                FieldReader fields = reader.Nested(*rebuilt, key);
                ReadFields(FromKvBlocksFields(), fields, a.from_kv_blocks.emplace());
                if (!a.use_block_mask || !a.block_mask_tensors.empty())
                  throw CaseError("field 'attention.from_kv_blocks' rebuilds the block mask "
                                  "create_block_mask makes: it needs 'use_block_mask' true and no "
                                  "'block_mask_tensors'");
              })};
}

FieldJson WriteAttention(const Case &c, const CaseReading &reading) {
  return c.attention ? WriteFields<FieldJson>(AttentionFields(reading), c) : FieldJson(nullptr);
}

void ReadAttention(FieldReader &reader, const std::string &key, Case &c,
                   const CaseReading &reading) {
  if (const json *attention = reader.Optional(key); attention && !attention->is_null()) {
    FieldReader fields = reader.Nested(*attention, key);
    c.attention.emplace();
    ReadFields(AttentionFields(reading), fields, c);
    if (!c.attention->qkv.empty() && c.attention->layout != kContiguousLayout)
      throw CaseError("field 'attention.layout' applies to the inputs the worker makes, not to "
                      "'attention.qkv' tensors; remove one of the two");
  }
  const bool owned = OwnsField(c, key);
  if (owned && !c.attention)
    throw CaseError(
        "field 'attention' (query/key/value shapes and dtype) is needed by flex_attention");
  if (c.attention && !owned)
    throw CaseError("field 'attention' is only used by flex_attention; set it to null");
  if (c.attention)
    CheckAttentionAgrees(c);
}

} // namespace corpus
