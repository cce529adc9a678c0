#pragma once

#include "corpus/matrix_record.h"
#include "support/tool_paths.h"
#include "workflows/reduce_case.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace workflows {

// `inductor-fuzz reduce --cpp | --from-log | --script | --matrix-record`: a failing TU to
// reduced.cpp and repro.sh. Exit 0: reduced, and repro.sh shows the same failure; 1: it does
// not; 2: the tool failed or the source does not fail.
int ReduceSource(const ReduceOptions &options, const support::ToolPaths &paths, std::ostream &out);

// A build's command as the matrix ran it, without the matrix's own shared prefix (its
// precompiled header lives in the matrix's work folder, which is gone); none for a sanitizer
// column's build (never part of a divergence).
std::optional<std::vector<std::string>> CommandOfBuild(const corpus::BuildRecord &build);

} // namespace workflows
