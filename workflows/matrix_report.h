#pragma once

#include "corpus/finding.h"
#include "fuzzer/matrix/compiler_matrix.h"
#include "fuzzer/worker/worker_client.h"
#include "support/tool_paths.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

// What `matrix` and `compare` share: their worker, their table cells and their report lines.
namespace workflows {

fuzzer::worker::Worker MakeWorker(const support::ToolPaths &paths,
                                  const std::filesystem::path &scratch);
std::string Cell(const fuzzer::matrix::TuBuild &build);
std::string Shorten(const std::string &label, std::size_t width);
std::string RuntimeFindingLine(const corpus::Finding &runtime_finding);
// How much of the matrix ran on recorded inputs, and why the rest did not.
std::string RuntimeSummary(const std::vector<fuzzer::matrix::TuMatrix> &matrix);
// What makes a report reproducible: who made it, with which torch and compilers, how.
nlohmann::json Provenance(const std::string &command_line, const nlohmann::json &worker_ready,
                          const std::vector<fuzzer::matrix::Compiler> &compilers);
// Case files in the corpus are run once through a worker to capture their TUs; run records
// are used as they are. Returns the run record folders.
std::vector<std::filesystem::path> CaptureCases(const std::vector<std::filesystem::path> &corpus,
                                                const support::ToolPaths &paths,
                                                const std::filesystem::path &scratch);

} // namespace workflows
