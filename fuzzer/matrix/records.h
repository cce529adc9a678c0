#pragma once

#include "corpus/matrix_record.h"
#include "fuzzer/matrix/compiler_matrix.h"
#include "fuzzer/matrix/warnings.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace fuzzer::matrix {

// One build as the matrix record and the build cache store it.
corpus::BuildRecord ToBuildRecord(const TuBuild &build);

// The matrix as `matrix --json` stores it, with every finding of every row.
corpus::MatrixRecord ToMatrixRecord(const std::vector<TuMatrix> &matrix,
                                    const nlohmann::json &provenance);

// A two-compiler matrix row (baseline first, candidate second) judged as an upgrade. Warnings are
// compared by identity; the candidate's new ones that `known` explains do not change the verdict.
corpus::CompareRow CompareBuilds(const TuMatrix &row, const KnownWarnings &known);

} // namespace fuzzer::matrix
