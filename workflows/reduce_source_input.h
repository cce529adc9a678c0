#pragma once

#include "reducers/source/interestingness.h"
#include "support/tool_paths.h"
#include "workflows/reduce_case.h"
#include "workflows/source_origin.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace workflows {

// What a source reduction reduces and the test that says a candidate still fails.
struct SourceInput {
  std::filesystem::path source;
  std::string text;
  std::unique_ptr<reducers::InterestingnessTest> test;
  std::vector<std::string> clang_args;           // for the syntax passes; empty: none known
  SourceOrigin origin = SourceOrigin::kAnalysis; // how the failure was found
  std::string expected_signature; // from a log or a matrix record, to compare with the test's
};

// The source `reduce` was given (--cpp, --from-log, --script or --matrix-record) and its test:
// InputError for one that does not fail, or whose failure is not the source's. A script runs
// first, its output and Inductor cache kept in `out_dir`; tests work in `scratch`.
SourceInput ReadSourceInput(const ReduceOptions &options, const std::filesystem::path &out_dir,
                            const std::filesystem::path &scratch, const support::ToolPaths &paths);

} // namespace workflows
