#pragma once

#include "reducers/source/source_passes.h"

#include <cstddef>
#include <string>
#include <vector>

namespace clang {
class ASTUnit;
}

namespace reducers {

// The candidates of the slice-to-error pass, from one Clang parse of `text` and the offsets in
// it where Clang reported errors (the first two statements they stand in are used).
//
// A compile error needs declarations, not what the code did before it. So for the statement an
// error stands in, the enclosing function's body becomes that statement alone, after the local
// declarations it needs, transitively (its variables, the variables and type aliases their
// declarations name; a lambda's parameter as a plain local), in their order in the text; and the
// top-level declarations nothing kept refers to go. Three candidates per statement, biggest cut
// first: both, the body alone, the top-level declarations alone. One test can take a 1,600-line
// flex kernel to a few dozen lines, where delta debugging spends hundreds of tests.
std::vector<SourceEdit> ErrorSliceEdits(clang::ASTUnit &unit, const std::string &text,
                                        const std::vector<std::size_t> &error_offsets);

} // namespace reducers
