#pragma once

// The case passes of a tensor program (api "tensor_program"): its inputs, each a strided view of
// one captured tensor's storage, made contiguous or smaller, its dynamic marks dropped and its
// storages made float32. Registered in CasePasses() (case_passes.cpp) beside the others.

#include "corpus/case.h"

#include <cstdint>
#include <vector>

namespace reducers::program {

// The elements a view reaches in its storage: one past the last it reads (its offset when it
// reads none).
std::int64_t Reach(const corpus::ProgramInput &input);
// The elements of the view itself (the product of its sizes).
std::int64_t ViewElements(const corpus::ProgramInput &input);
// The storage values the view reads, in its row-major order: what torch.as_strided(storage,
// size, stride, offset).flatten() holds.
corpus::CapturedTensor ViewValues(const corpus::CapturedTensor &storage,
                                  const corpus::ProgramInput &input);

// Each input made contiguous at offset 0, its storage exactly the values it read (one input at
// a time, then all).
std::vector<corpus::Case> ContiguousInputs(const corpus::Case &c);
// One dimension of one input smaller (1, then half), or every dimension of one extent across
// the inputs; each storage cut to what its views reach.
std::vector<corpus::Case> ShrinkInputs(const corpus::Case &c);
// The dynamic marks dropped: all, then one at a time.
std::vector<corpus::Case> DropDynamic(const corpus::Case &c);
// float16, bfloat16 and float64 storages as float32 (their values kept): all, then each.
std::vector<corpus::Case> SimplifyDtypes(const corpus::Case &c);

} // namespace reducers::program
