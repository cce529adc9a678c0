#pragma once

// api "tensor_program"'s field of the case (corpus/case_program_fields.cpp), which its row
// (apis/tensor_program.cpp) lists: written only for a program; read with its checks (every input
// a view inside a tensor the case holds), after the tensors, the calls and the compile fields.

#include "corpus/api_row.h"

namespace corpus {

FieldJson WriteTensorProgram(const Case &c, const CaseReading &reading);
void ReadTensorProgram(FieldReader &reader, const std::string &key, Case &c,
                       const CaseReading &reading);

} // namespace corpus
