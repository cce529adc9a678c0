#pragma once

// The own fields of the case that the rows of flex_attention (apis/flex_attention.cpp) and
// index_program (apis/index_program.cpp) list, as tensor_program's are
// corpus/case_program_fields.h: flex_attention's arguments, "attention"
// (corpus/case_attention_fields.cpp), written null for a case without them, read after the block
// mask; an index program's reduction, "index_program" (corpus/case_index_fields.cpp), read after
// the compile fields. Each refuses the field in another API's case and wants it in its own.

#include "corpus/api_row.h"

namespace corpus {

FieldJson WriteAttention(const Case &c, const CaseReading &reading);
void ReadAttention(FieldReader &reader, const std::string &key, Case &c,
                   const CaseReading &reading);

FieldJson WriteIndexProgram(const Case &c, const CaseReading &reading);
void ReadIndexProgram(FieldReader &reader, const std::string &key, Case &c,
                      const CaseReading &reading);

} // namespace corpus
