#pragma once

#include "corpus/case.h"
#include "fuzzer/generate/policy.h"
#include "fuzzer/generate/random.h"

#include <map>
#include <string>
#include <vector>

namespace fuzzer::generate {

// A tensor program (api "tensor_program", corpus/case.h): a straight-line program of typed torch
// operations over 1 to 3 strided inputs (more when a weight, a bias or an index needs one),
// drawn in three phases. Structure: each input's dtype, rank, sizes (at and around the vector
// widths, the inner dimension most), layout (TensorProgramLayouts) and 2 to
// program_max_statements statements, each a row of the policy's categories (elementwise,
// reductions, scans, indexing, views, data movement, matmul, convolution, normalisation,
// pooling, in-place updates of an input) on values whose dtype and shape are tracked so that
// every statement is valid in eager torch 2.6. Values: the storages' values, small ordinary ones
// or the dtype's finite edge values. Emission: the Python source, the dimensions marked dynamic
// (only those no statement specialises) and max_autotune for programs with a matmul.
//
// Rewrites `c` (drawn by the rest of the generator: its knobs stay) into the tensor program;
// the features it used are counted into `features`. Every draw comes from `random`.
void DrawTensorProgram(Random &random, const GenerationPolicy &policy, corpus::Case &c,
                       std::map<std::string, int> &features);

// Its entries of the default policy (tensor_program_policy.cpp), which its row adds.
void AddTensorProgramPolicy(GenerationPolicy &policy);

// The layouts of a tensor program's inputs, as their feature "program_layout:<kind>" names them.
const std::vector<std::string> &TensorProgramLayouts();

} // namespace fuzzer::generate
