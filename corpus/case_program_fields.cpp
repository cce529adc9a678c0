// api "tensor_program"'s own field: the program's inputs, each a strided view of one of the
// case's tensors, and the dimensions marked dynamic; with the checks that make a stored program
// one the worker can call (every view inside its storage, every name held).
#include "corpus/case_program_fields.h"
#include "corpus/case_fields.h"
#include "corpus/record_fields.h"

#include <fmt/format.h>

#include <algorithm>

namespace corpus {
namespace {

using nlohmann::json;

// Views of more dimensions than this are refused: no torch program of a fuzz case needs them.
constexpr std::size_t kMaxRank = 8;
constexpr std::size_t kMaxInputs = 16;

std::vector<std::int64_t> ReadExtents(FieldReader &reader, const std::string &key) {
  const json &value = reader.Required(key);
  if (!value.is_array() || value.size() > kMaxRank)
    throw CaseError(
        fmt::format("{} must be a list of at most {} integers", reader.Label(key), kMaxRank));
  std::vector<std::int64_t> extents;
  for (const auto &extent : value)
    extents.push_back(reader.CheckInteger(key, extent, 0));
  return extents;
}

RecordField<ProgramInput> ExtentsField(std::string_view name,
                                       std::vector<std::int64_t> ProgramInput::*member) {
  return CustomField<ProgramInput>(
      name, [member](const ProgramInput &input) { return FieldJson(input.*member); },
      [member](FieldReader &reader, const std::string &key, ProgramInput &input) {
        input.*member = ReadExtents(reader, key);
      });
}

const RecordFields<ProgramInput> &InputFields() {
  static const RecordFields<ProgramInput> fields = {
      MemberField("tensor", &ProgramInput::tensor), ExtentsField("size", &ProgramInput::size),
      ExtentsField("stride", &ProgramInput::stride),
      CustomField<ProgramInput>(
          "offset",
          [](const ProgramInput &input) {
            return input.offset == 0 ? AbsentField() : FieldJson(input.offset);
          },
          [](FieldReader &reader, const std::string &key, ProgramInput &input) {
            if (reader.Optional(key))
              input.offset = reader.Integer(key, 0);
          })};
  return fields;
}

// The input's view must lie inside its tensor: the last element it reaches is within it.
void CheckInputFits(const Case &c, const ProgramInput &input, const std::string &label) {
  const auto tensor = std::find_if(c.tensors.begin(), c.tensors.end(),
                                   [&](const CapturedTensor &t) { return t.name == input.tensor; });
  if (tensor == c.tensors.end())
    throw CaseError(fmt::format("field '{}.tensor' is '{}', which the case's 'tensors' does not "
                                "hold; name one of them",
                                label, input.tensor));
  if (input.size.size() != input.stride.size())
    throw CaseError(fmt::format("field '{}' has {} sizes and {} strides; give one stride per size",
                                label, input.size.size(), input.stride.size()));
  const std::int64_t elements = tensor->Elements();
  const bool empty = std::find(input.size.begin(), input.size.end(), 0) != input.size.end();
  std::int64_t last = input.offset;
  for (std::size_t d = 0; d < input.size.size() && !empty; ++d) {
    if (input.stride[d] > elements || input.size[d] > (std::int64_t{1} << 32))
      throw CaseError(fmt::format("field '{}' has size {} and stride {} in dimension {}, beyond "
                                  "tensor '{}' of {} elements",
                                  label, input.size[d], input.stride[d], d, input.tensor,
                                  elements));
    last += (input.size[d] - 1) * input.stride[d];
  }
  if (empty ? input.offset > elements : last >= elements)
    throw CaseError(fmt::format("field '{}' reaches element {} of tensor '{}', which holds {}; fix "
                                "its 'size', 'stride' or 'offset'",
                                label, empty ? input.offset : last, input.tensor, elements));
}

void ReadDynamic(FieldReader &reader, const std::string &key, TensorProgram &program) {
  const json *value = reader.Optional(key);
  if (!value)
    return;
  if (!value->is_array())
    throw CaseError(
        fmt::format("{} must be a list of [input, dimension] pairs", reader.Label(key)));
  for (const auto &pair : *value) {
    if (!pair.is_array() || pair.size() != 2)
      throw CaseError(
          fmt::format("{} must be a list of [input, dimension] pairs", reader.Label(key)));
    const std::int64_t input = reader.CheckInteger(key, pair[0], 0);
    const std::int64_t dim = reader.CheckInteger(key, pair[1], 0);
    if (input >= static_cast<std::int64_t>(program.inputs.size()) ||
        dim >= static_cast<std::int64_t>(program.inputs[input].size.size()))
      throw CaseError(fmt::format("{} marks dimension {} of input {}, which the program's "
                                  "'inputs' does not have",
                                  reader.Label(key), dim, input));
    program.dynamic.push_back({input, dim});
  }
}

const RecordFields<TensorProgram> &ProgramFields() {
  static const RecordFields<TensorProgram> fields = {
      CustomField<TensorProgram>(
          "inputs",
          [](const TensorProgram &program) {
            FieldJson inputs = FieldJson::array();
            for (const auto &input : program.inputs)
              inputs.push_back(WriteFields<FieldJson>(InputFields(), input));
            return inputs;
          },
          [](FieldReader &reader, const std::string &key, TensorProgram &program) {
            const json &inputs = reader.Required(key);
            if (!inputs.is_array() || inputs.empty() || inputs.size() > kMaxInputs)
              throw CaseError(fmt::format("{} must be a list of 1 to {} inputs", reader.Label(key),
                                          kMaxInputs));
            for (std::size_t i = 0; i < inputs.size(); ++i) {
              FieldReader fields = reader.Nested(inputs[i], fmt::format("{}[{}]", key, i));
              ReadFields(InputFields(), fields, program.inputs.emplace_back());
            }
          }),
      CustomField<TensorProgram>(
          "dynamic",
          [](const TensorProgram &program) {
            return program.dynamic.empty() ? AbsentField() : FieldJson(program.dynamic);
          },
          &ReadDynamic)};
  return fields;
}

} // namespace

FieldJson WriteTensorProgram(const Case &c, const CaseReading &) {
  return c.tensor_program ? WriteFields<FieldJson>(ProgramFields(), *c.tensor_program)
                          : AbsentField();
}

void ReadTensorProgram(FieldReader &reader, const std::string &key, Case &c,
                       const CaseReading &reading) {
  const json *program = reader.Optional(key);
  if (c.api != kTensorProgram) {
    if (program && !program->is_null())
      throw CaseError("field 'tensor_program' is only used by api \"tensor_program\"; remove it");
    return;
  }
  if (reading.version < 3)
    throw CaseError("api \"tensor_program\" needs format_version 3");
  if (!program || program->is_null())
    throw CaseError("field 'tensor_program' ({\"inputs\": [{\"tensor\": ..., \"size\": [...], "
                    "\"stride\": [...]}]}) is needed by api \"tensor_program\"");
  FieldReader fields = reader.Nested(*program, key);
  ReadFields(ProgramFields(), fields, c.tensor_program.emplace());
  for (std::size_t i = 0; i < c.tensor_program->inputs.size(); ++i)
    CheckInputFits(c, c.tensor_program->inputs[i], fmt::format("{}.inputs[{}]", key, i));
  if (!c.calls.empty() || !c.constants.empty() || c.compile_with != kTorchCompile ||
      c.compile_scope != kCompileApi)
    throw CaseError("a tensor_program case is one torch.compile call of the program itself: "
                    "remove 'calls', 'constants', 'compile_with' and 'compile_scope'");
}

} // namespace corpus
