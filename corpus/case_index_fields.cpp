// api "index_program"'s own field: its reduction, and nothing an index program does not use.
#include "corpus/case_api_fields.h"
#include "corpus/case_fields.h"
#include "corpus/record_fields.h"

namespace corpus {
namespace {

using nlohmann::json;

const RecordFields<Case> &IndexProgramFields() {
  static const RecordFields<Case> fields = {CustomField<Case>(
      "reduction", [](const Case &c) { return FieldJson(c.index_reduction); },
      [](FieldReader &reader, const std::string &key, Case &c) {
        c.index_reduction = reader.String(key);
        CheckOneOf(reader, key, c.index_reduction, kIndexReductions);
      })};
  return fields;
}

} // namespace

FieldJson WriteIndexProgram(const Case &c, const CaseReading &) {
  return OwnsField(c, "index_program") ? WriteFields<FieldJson>(IndexProgramFields(), c)
                                       : AbsentField();
}

void ReadIndexProgram(FieldReader &reader, const std::string &key, Case &c,
                      const CaseReading &reading) {
  const json *program = reader.Optional(key);
  if (!OwnsField(c, key)) {
    if (program && !program->is_null())
      throw CaseError("field 'index_program' is only used by api \"index_program\"; remove it");
    return;
  }
  if (reading.version == 1)
    throw CaseError("api \"index_program\" needs format_version 2");
  if (!program || program->is_null())
    throw CaseError("field 'index_program' ({\"reduction\": \"none\"}) is needed by api "
                    "\"index_program\"");
  FieldReader fields = reader.Nested(*program, key);
  ReadFields(IndexProgramFields(), fields, c);
  if (!c.calls.empty() || !c.constants.empty() || c.compile_with != kTorchCompile ||
      c.compile_scope != kCompileApi)
    throw CaseError("an index_program case is one torch.compile call of the program itself: "
                    "remove 'calls', 'constants', 'compile_with' and 'compile_scope'");
}

} // namespace corpus
