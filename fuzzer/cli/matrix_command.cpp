#include "fuzzer/cli/matrix_command.h"

#include "fuzzer/cli/matrix_report.h"
#include "fuzzer/matrix/records.h"
#include "fuzzer/matrix/runtime_differential.h"
#include "fuzzer/support/scratch_dir.h"
#include "fuzzer/support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <map>
#include <set>

namespace fuzzer::cli {

using nlohmann::json;

int MatrixCommand(const MatrixCommandOptions &options, const support::ToolPaths &paths,
                  std::ostream &out) {
  const auto tus = matrix::LoadCapturedTus(options.inputs);
  if (tus.empty())
    throw support::InputError("no captured TU found (no commands.json under the given folders); "
                              "run `inductor-fuzz run-case` first");
  const support::ScratchDir scratch("matrix");
  matrix::MatrixOptions matrix_options{.compilers = matrix::DiscoverCompilers(options.compilers),
                                       .jobs = options.jobs,
                                       .timeout = std::chrono::seconds(options.timeout_seconds),
                                       .work_dir = scratch / "objects"};
  const matrix::Progress progress = [](const std::string &line) { std::cerr << line << "\n"; };
  auto matrix = matrix::BuildMatrix(tus, matrix_options, progress);
  json provenance;
  {
    worker::Worker worker = MakeWorker(paths, scratch.path());
    provenance = Provenance(options.command_line, worker.Ready(), matrix_options.compilers);
    matrix::CheckLoads(matrix, worker);
    matrix::ReplayRecordedCalls(matrix, worker, {}, progress);
  }
  out << fmt::format("{:<50}", "TU");
  for (const auto &compiler : matrix_options.compilers)
    out << fmt::format(" {:>12}", Shorten(compiler.name, 12));
  out << "\n";
  std::size_t findings = 0;
  for (const auto &row : matrix) {
    out << fmt::format("{:<50}", Shorten(row.tu.label, 50));
    for (const auto &build : row.builds)
      out << fmt::format(" {:>12}", Cell(build));
    out << "\n";
  }
  for (const auto &row : matrix) {
    if (auto finding = matrix::DivergenceFinding(row)) {
      ++findings;
      const json &detail = finding->detail;
      out << fmt::format("compiler-divergence: {}: builds with {}, fails with {}{}\n", row.tu.label,
                         fmt::join(detail["built_by"].get<std::vector<std::string>>(), ", "),
                         fmt::join(detail["failed_on"].get<std::vector<std::string>>(), ", "),
                         detail["crashed"].empty() ? "" : " (compiler crashed)");
      for (const auto &build : row.builds)
        if (!build.built)
          out << fmt::format("  {}: {}\n", build.compiler, build.first_error);
    }
    for (const auto &finding : matrix::LoadErrorFindings(row)) {
      ++findings;
      out << "load-error: " << finding.summary << "\n";
    }
    if (auto finding = matrix::RuntimeDivergenceFinding(row)) {
      ++findings;
      out << RuntimeFindingLine(*finding);
    }
  }
  std::size_t built = 0;
  for (const auto &row : matrix)
    for (const auto &build : row.builds)
      built += build.built;
  out << fmt::format("{} TU(s) x {} compiler(s): {} built, {} finding(s)\n", tus.size(),
                     matrix_options.compilers.size(), built, findings);
  out << RuntimeSummary(matrix);
  if (options.json_out)
    corpus::WriteMatrixRecord(*options.json_out, matrix::ToMatrixRecord(matrix, provenance));
  if (built == 0)
    throw support::InputError(fmt::format("no compiler rebuilt any TU (first error: {}); check the "
                                          "compilers with `inductor-fuzz doctor`",
                                          matrix.front().builds.front().first_error));
  return findings ? 1 : 0;
}

} // namespace fuzzer::cli
