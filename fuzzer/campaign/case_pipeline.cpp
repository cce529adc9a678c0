#include "fuzzer/campaign/case_pipeline.h"

#include "corpus/finding_kinds.h"
#include "corpus/run_record.h"
#include "corpus/surface_table.h"
#include "fuzzer/matrix/build_cache.h"
#include "fuzzer/matrix/compiler_matrix.h"
#include "fuzzer/matrix/records.h"
#include "fuzzer/matrix/runtime_differential.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"
#include "parsers/clang_analysis.h"
#include "parsers/conflict.h"
#include "parsers/flag_translation.h"
#include "support/errors.h"
#include "support/text_file.h"
#include "support/tool_paths.h"

#include <fmt/format.h>

namespace fuzzer::campaign {

using nlohmann::json;
namespace fs = std::filesystem;

bool IsMatrixKind(corpus::FindingKind kind) {
  return corpus::RowOf(kind).detector == corpus::Detector::kMatrix;
}

std::vector<matrix::Compiler> MatrixCompilersOf(const std::vector<std::string> &names,
                                                const fs::path &smallest, const std::string &id) {
  if (!names.empty())
    return matrix::DiscoverCompilers(names);
  std::vector<std::string> stored;
  const auto file = smallest / "matrix.json";
  if (fs::exists(file))
    for (const auto &compiler :
         corpus::ReadMatrixRecord(file).provenance.value("compilers", json::array()))
      stored.push_back(compiler.value("name", ""));
  if (stored.empty())
    throw support::InputError(
        fmt::format("{} stores no matrix.json naming its compilers: give --compilers", id));
  return matrix::DiscoverCompilers(stored);
}

void AddSurfaceCells(const nlohmann::json &result, std::set<std::string> &features) {
  if (!result.is_object() || !result.contains("surface") || !result["surface"].is_array())
    return;
  for (const auto &cell : result["surface"])
    if (cell.is_array() && cell.size() == 3 && cell[0].is_string() && cell[1].is_string() &&
        cell[2].is_string())
      features.insert(corpus::SurfaceFeature(cell[0].get<std::string>(), cell[1].get<std::string>(),
                                             cell[2].get<std::string>()));
}

nlohmann::json AskSurfaceUniverse(worker::Worker &worker, const fs::path &corpus,
                                  std::string &problem) {
  // The worker keeps its universe per release and machine (surface.py's cache): a request
  // costs half a minute once, then nothing.
  const auto reply = worker.Request({{"op", "surface_universe"}}, std::chrono::seconds(300));
  if (reply.status != worker::ReplyStatus::kOk || !reply.message.contains("surface_universe")) {
    problem = fmt::format("no op-surface universe from the worker ({}); the table lists reached "
                          "cells only",
                          reply.status == worker::ReplyStatus::kOk
                              ? reply.message.value("error", std::string("no reply"))
                              : reply.detail);
    return nullptr;
  }
  try {
    const auto universe = corpus::SurfaceUniverseFromJson(reply.message["surface_universe"]);
    corpus::WriteSurfaceUniverse(corpus, universe);
    return corpus::SurfaceUniverseToJson(universe);
  } catch (const std::exception &error) { // a reply of another shape, or a full disk
    problem = fmt::format("the worker's op-surface universe is unusable ({})", error.what());
    return nullptr;
  }
}

bool CapturedAnyBuild(const worker::CaseOutcome &outcome) {
  for (const auto &build : outcome.result.value("builds", json::array()))
    if (!build.value("argv", json::array()).empty())
      return true;
  return false;
}

std::set<std::string> AnalyseCapturedTus(parsers::Analyzer &analyzer,
                                         const worker::CaseOutcome &outcome,
                                         const fs::path &case_dir,
                                         std::vector<corpus::Finding> &findings) {
  std::set<std::string> features;
  for (const auto &build : outcome.result.value("builds", json::array())) {
    const auto argv = build.value("argv", std::vector<std::string>{});
    if (argv.empty())
      continue;
    const auto clang_args = parsers::TranslateForClang(argv).clang_args;
    for (const auto &source : build.value("sources", json::array())) {
      fs::path path = source.value("path", "");
      if (!parsers::IsCppSource(path.string()))
        continue;
      if (!fs::exists(path)) {
        path = case_dir / "analysed" / path.filename();
        fs::create_directories(path.parent_path());
        support::WriteFileAtomically(path, source.value("text", ""));
      }
      const auto report = analyzer.Analyze(
          {.path = path, .display_name = path.filename().string(), .clang_args = clang_args});
      for (const auto &conflict : report.findings)
        if (conflict.severity == "error")
          findings.push_back(parsers::ToFinding(conflict));
      features.insert(report.features.begin(), report.features.end());
    }
  }
  return features;
}

fs::path MatrixBuildsIn(const fs::path &corpus) { return corpus / ".cache" / "builds"; }

fs::path SharedMatrixPrefixes() { return support::UserCacheDir("matrix-prefixes"); }

fs::path SharedAnalysisPrefixes() { return support::UserCacheDir("prefixes"); }

MatrixRun RunMatrixOnCase(worker::Worker &worker, const corpus::Case &c,
                          const worker::CaseOutcome &outcome, const fs::path &case_dir,
                          const std::vector<matrix::Compiler> &compilers,
                          const MatrixCaches &caches, std::chrono::seconds timeout,
                          std::vector<corpus::Finding> &findings) {
  const fs::path run_dir = case_dir / "run";
  corpus::WriteRunRecord(run_dir, c, {outcome.status, outcome.finding, outcome.result}, {});
  auto built = matrix::BuildMatrix(matrix::LoadCapturedTus({run_dir}),
                                   {.compilers = compilers,
                                    .jobs = 1,
                                    .timeout = timeout,
                                    .work_dir = case_dir / "matrix",
                                    .cache = caches.builds,
                                    .prefix_cache = caches.prefixes},
                                   nullptr);
  matrix::CheckLoads(built, worker);
  matrix::ReplayRecordedCalls(built, worker, {.timeout = timeout}, nullptr);
  json names = json::array();
  for (const auto &compiler : compilers)
    names.push_back({{"name", compiler.name}, {"version", compiler.version}});
  MatrixRun run{.record = matrix::ToMatrixRecord(built, {{"compilers", names}})};
  for (const auto &row : built)
    for (const auto &build : row.builds) {
      ++run.builds;
      run.cached += build.from_cache;
      run.replayed += !build.runtime.empty();
    }
  for (const auto &row : run.record.rows)
    for (auto &finding : row.Findings())
      findings.push_back(std::move(finding));
  return run;
}

} // namespace fuzzer::campaign
