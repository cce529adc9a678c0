#include "workflows/matrix.h"

#include "fuzzer/matrix/records.h"
#include "fuzzer/matrix/runtime_differential.h"
#include "fuzzer/matrix/sanitizer_column.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "workflows/matrix_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <map>
#include <set>

namespace workflows {

using nlohmann::json;

int Matrix(const MatrixCommandOptions &options, const support::ToolPaths &paths,
           std::ostream &out) {
  if (options.json_out)
    support::CheckOutputFile(*options.json_out, "--json");
  const auto tus = fuzzer::matrix::LoadCapturedTus(options.inputs);
  if (tus.empty())
    throw support::InputError("no captured TU found (no commands.json under the given folders); "
                              "run `inductor-fuzz run-case` first");
  const support::ScratchDir scratch("matrix");
  fuzzer::matrix::MatrixOptions matrix_options{
      .compilers = fuzzer::matrix::DiscoverCompilers(options.compilers),
      .jobs = options.jobs,
      .timeout = std::chrono::seconds(options.timeout_seconds),
      .work_dir = scratch / "objects",
      .kernel_probes = options.kernel_probes};
  std::optional<fuzzer::worker::SanitizerOptions> sanitizer;
  if (!options.sanitize.empty()) {
    sanitizer = fuzzer::worker::ParseSanitizerOptions(options.sanitize, options.sanitize_compiler);
    matrix_options.compilers.push_back(fuzzer::matrix::SanitizerColumn(*sanitizer));
  }
  const fuzzer::matrix::Progress progress = [](const std::string &line) {
    std::cerr << line << "\n";
  };
  auto matrix = fuzzer::matrix::BuildMatrix(tus, matrix_options, progress);
  json provenance;
  {
    fuzzer::worker::Worker worker = MakeWorker(paths, scratch.path());
    provenance = Provenance(options.command_line, worker.Ready(), matrix_options.compilers);
    fuzzer::matrix::CheckLoads(matrix, worker);
    fuzzer::matrix::ReplayRecordedCalls(matrix, worker, {}, progress);
  }
  double sanitized_worker_start = 0;
  if (sanitizer) {
    // One toolchain's runtime per process: the sanitized builds get a worker of their own.
    const auto work = scratch / "sanitizer";
    fuzzer::worker::Worker sanitized(fuzzer::worker::WorkerOptions{
        .worker_executable = paths.worker_executable,
        .venv = paths.venv,
        .confine = paths.confine_workers,
        .scratch_dir = work / "process",
        .log_file = work / "worker.log",
        .environment = fuzzer::worker::SanitizerEnvironment(*sanitizer, work)});
    provenance["sanitizer"] = {{"checks", sanitizer->checks},
                               {"compiler", sanitizer->compiler},
                               {"flags", fuzzer::worker::SanitizerFlags(*sanitizer)}};
    const auto started = std::chrono::steady_clock::now();
    sanitized.Ready(); // started apart, so that the replays' time is the replays'
    sanitized_worker_start =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    fuzzer::matrix::ReplaySanitizedBuilds(matrix, sanitized, work, {}, progress);
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
    if (auto finding = fuzzer::matrix::DivergenceFinding(row)) {
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
    for (const auto &finding : fuzzer::matrix::LoadErrorFindings(row)) {
      ++findings;
      out << "load-error: " << finding.summary << "\n";
    }
    if (auto finding = fuzzer::matrix::RuntimeDivergenceFinding(row)) {
      ++findings;
      out << RuntimeFindingLine(*finding);
    }
    for (const auto &finding : fuzzer::matrix::MemoryErrorFindings(row)) {
      ++findings;
      out << fmt::format("memory-error: {} on {}: {}\n  signature: {}\n", row.tu.label,
                         finding.compilers.front(), finding.summary, corpus::Signature(finding));
    }
  }
  std::size_t built = 0;
  for (const auto &row : matrix)
    for (const auto &build : row.builds)
      built += build.built;
  out << fmt::format("{} TU(s) x {} compiler(s): {} built, {} finding(s)\n", tus.size(),
                     matrix_options.compilers.size(), built, findings);
  out << RuntimeSummary(matrix);
  if (sanitizer) {
    const auto cost = fuzzer::matrix::MeasureSanitizerCost(matrix, matrix_options.compilers);
    out << fmt::format("sanitizer column {}: {} build(s) in {:.1f} s ({} cached), {} replay(s) in "
                       "{:.1f} s, its worker started in {:.1f} s",
                       cost.column, cost.builds, cost.build_seconds, cost.cached, cost.replays,
                       cost.replay_seconds, sanitized_worker_start);
    if (!cost.plain_column.empty())
      out << fmt::format("; {} plain: builds {:.1f} s, replays {:.1f} s: the sanitizers add "
                         "{:.1f} s",
                         cost.plain_column, cost.plain_build_seconds, cost.plain_replay_seconds,
                         cost.build_seconds + cost.replay_seconds + sanitized_worker_start -
                             cost.plain_build_seconds - cost.plain_replay_seconds);
    out << "\n";
  }
  if (options.json_out)
    corpus::WriteMatrixRecord(*options.json_out,
                              fuzzer::matrix::ToMatrixRecord(matrix, provenance));
  if (built == 0)
    throw support::InputError(fmt::format("no compiler rebuilt any TU (first error: {}); check the "
                                          "compilers with `inductor-fuzz doctor`",
                                          matrix.front().builds.front().first_error));
  return findings ? 1 : 0;
}

} // namespace workflows
