#include "fuzzer/matrix/sanitizer_column.h"

#include "fuzzer/matrix/bad_access.h"
#include "fuzzer/worker/worker_client.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>

namespace fuzzer::matrix {
namespace {

// Names the kernel argument the bad address lies in, from the call journal the replay left.
void LocateInArguments(corpus::Finding &finding, const std::filesystem::path &call_journal,
                       const CapturedTu &tu) {
  const auto bad = BadAddressOf(finding.detail);
  if (!bad || !std::filesystem::exists(call_journal))
    return;
  const auto call = nlohmann::json::parse(std::ifstream(call_journal), nullptr, false);
  const auto located = LocateBadAccess(*bad, call, tu.entry,
                                       support::ReadTextFile(tu.source, "captured TU", 64u << 20));
  if (!located)
    return;
  finding.detail["argument"] = *located;
  finding.summary += ": " + DescribeBadAccess(*located);
}

} // namespace

Compiler SanitizerColumn(const worker::SanitizerOptions &options) {
  Compiler column = DescribeCompiler(options.compiler);
  std::string name = options.compiler;
  for (const auto &check : options.checks)
    name += check == "address" ? "+asan" : "+ubsan";
  column.name = name;
  column.sanitizers = options.checks;
  return column;
}

void ReplaySanitizedBuilds(std::vector<TuMatrix> &matrix, worker::Worker &worker,
                           const std::filesystem::path &work_dir, const RuntimeOptions &options,
                           const Progress &progress) {
  for (auto &row : matrix) {
    for (auto &build : row.builds) {
      if (!build.sanitized || !build.built)
        continue;
      if (row.tu.recording.empty() || !std::filesystem::exists(row.tu.recording))
        continue; // nothing to run it on; RuntimeSummary says why
      worker::ClearSanitizerReports(work_dir);
      const auto call_journal = work_dir / "call.json";
      std::filesystem::remove(call_journal);
      const Replay replay =
          ReplayModule(worker, build.output, row.tu, options, {.call_journal = call_journal});
      build.runtime = replay.status;
      build.runtime_detail = replay.detail;
      build.runtime_seconds = replay.seconds;
      // The TU's folder: a report whose stack passes through no frame there is not the
      // kernel's (the worker's Python, torch).
      auto errors = worker::CollectMemoryErrors(
          work_dir, std::filesystem::absolute(row.tu.source).parent_path());
      if (!errors.empty()) {
        LocateInArguments(errors.front(), call_journal, row.tu);
        build.memory_error = std::move(errors.front());
        build.runtime = "memory-error";
      }
      if (progress)
        progress(
            fmt::format("sanitized runtime {} on {}: {}", row.tu.label, build.compiler,
                        build.memory_error ? build.memory_error->summary : DescribeReplay(replay)));
    }
  }
  worker::ClearSanitizerReports(work_dir);
}

std::vector<corpus::Finding> MemoryErrorFindings(const TuMatrix &row) {
  std::vector<corpus::Finding> findings;
  for (const auto &build : row.builds) {
    if (!build.memory_error)
      continue;
    corpus::Finding finding = *build.memory_error;
    finding.subject = row.tu.label;
    finding.compilers = {build.compiler};
    finding.detail["tu"] = row.tu.label;
    finding.detail["compiler"] = build.compiler;
    finding.detail["argv"] = build.argv;
    findings.push_back(std::move(finding));
  }
  return findings;
}

SanitizerCost MeasureSanitizerCost(const std::vector<TuMatrix> &matrix,
                                   const std::vector<Compiler> &compilers) {
  SanitizerCost cost;
  std::optional<std::size_t> sanitized, plain;
  for (std::size_t i = 0; i < compilers.size(); ++i)
    if (!compilers[i].sanitizers.empty())
      sanitized = i;
  if (!sanitized)
    return cost;
  cost.column = compilers[*sanitized].name;
  for (std::size_t i = 0; i < compilers.size(); ++i)
    if (compilers[i].sanitizers.empty() && compilers[i].path == compilers[*sanitized].path)
      plain = i;
  if (plain)
    cost.plain_column = compilers[*plain].name;
  for (const auto &row : matrix) {
    const TuBuild &build = row.builds.at(*sanitized);
    cost.builds += build.built;
    cost.cached += build.from_cache;
    if (!build.from_cache)
      cost.build_seconds += build.seconds;
    if (!build.runtime.empty()) {
      ++cost.replays;
      cost.replay_seconds += build.runtime_seconds;
    }
    if (plain) {
      const TuBuild &other = row.builds.at(*plain);
      if (!other.from_cache)
        cost.plain_build_seconds += other.seconds;
      cost.plain_replay_seconds += other.runtime_seconds;
    }
  }
  return cost;
}

} // namespace fuzzer::matrix
