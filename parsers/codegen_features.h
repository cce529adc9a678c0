#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace clang {
class ASTContext;
class Decl;
} // namespace clang

namespace parsers {

// What a generated TU is made of, as strings a person can read: the at::vec functions and types
// it uses ("vec:fmadd", "vec-type:VecMask<float,1>", "vec:loadu/2" for a masked load; and as
// instantiated, "vec-instance:Vectorized<c10::BFloat16>::exp"), the
// ATen, c10 and AOTI functions it calls ("aten:parallel_for", "aoti:aoti_torch_empty_strided"),
// its loop shapes ("loop:step-16", "loop:vectorized+tail", "loop:nest-4"), its pragmas
// ("omp:parallel num_threads(N)"), its reductions and the element types of its buffers
// ("buffer:bfloat16"). No names Inductor numbers (kernels, buffers), no sizes: a feature is
// what the code generator did, not which case it did it for. The campaign's coverage.
using CodegenFeatures = std::set<std::string>;

// The features visible in the text alone (pragmas; the templates' landmarks).
CodegenFeatures TextFeatures(std::string_view text);

// The features of the AST of a TU's main file, from the declarations the TU itself parsed (a
// precompiled prefix's are not its own). Needs the main file's templates instantiated, which a
// parse that reaches the end of the TU has done.
void CollectAstFeatures(clang::ASTContext &context, const std::vector<clang::Decl *> &parsed,
                        CodegenFeatures &features);

} // namespace parsers
