#pragma once

#include "corpus/case.h"
#include "fuzzer/generate/policy.h"
#include "fuzzer/generate/random.h"

#include <map>
#include <string>

namespace fuzzer::generate {

// An op program: an index program (api "index_program") whose mask_mod is a straight-line
// program of typed values, for Inductor's C++ op surface (docs/op-surface.md). Values of every
// dtype (bool, int8, uint8, int16, int32, int64, float16, bfloat16, float32, float64) come from
// the indices or from captured tables of the dtype's edge values (0, -1, min, max, shift counts
// at and past the width; NaN, infinities, -0.0, subnormals through bit patterns viewed as the
// float dtype), and flow through the elementwise ops eager has for them, casts between every
// pair, bitcasts, where and clamp on mixed dtypes; lengths sit around the vector widths so
// that both the vector body and the tail run.
//
// Rewrites `c` (drawn by the rest of the generator: its knobs stay) into the op program; the
// features it used are counted into `features`. Every draw comes from `random`.
void DrawOpProgram(Random &random, const GenerationPolicy &policy, corpus::Case &c,
                   std::map<std::string, int> &features);

// The dtypes op programs draw values of, in the order tables list them.
const std::vector<std::string> &OpProgramDtypes();

} // namespace fuzzer::generate
