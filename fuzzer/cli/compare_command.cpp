#include "fuzzer/cli/compare_command.h"

#include "fuzzer/cli/matrix_report.h"
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

int CompareCommand(const CompareOptions &options, const support::ToolPaths &paths,
                   std::ostream &out) {
  const auto baseline = matrix::DescribeCompiler(options.baseline);
  const auto candidate = matrix::DescribeCompiler(options.candidate);
  const support::ScratchDir scratch("compare");
  const auto folders = CaptureCases(options.corpus, paths, scratch.path());
  const auto tus = matrix::LoadCapturedTus(folders);
  if (tus.empty())
    throw support::InputError("the corpus holds no captured TU and no case file");
  const matrix::Progress progress = [](const std::string &line) { std::cerr << line << "\n"; };
  auto matrix = matrix::BuildMatrix(tus,
                                    {.compilers = {baseline, candidate},
                                     .jobs = options.jobs,
                                     .timeout = std::chrono::seconds(options.timeout_seconds),
                                     .work_dir = scratch / "objects"},
                                    progress);
  json provenance;
  {
    worker::Worker worker = MakeWorker(paths, scratch.path());
    provenance = Provenance(options.command_line, worker.Ready(), {baseline, candidate});
    matrix::CheckLoads(matrix, worker);
    matrix::ReplayRecordedCalls(matrix, worker, {}, progress);
  }

  json rows = json::array();
  std::map<std::string, int> counts;
  for (const auto &row : matrix) {
    const matrix::TuBuild &old_build = row.builds[0], &new_build = row.builds[1];
    std::string verdict;
    if (old_build.built && !new_build.built)
      verdict = "regression";
    else if (!old_build.built && new_build.built)
      verdict = "fixed";
    else if (!old_build.built)
      verdict = "both-fail";
    else if (old_build.load_error.empty() && !new_build.load_error.empty())
      verdict = "load-regression";
    else if (old_build.runtime != new_build.runtime &&
             (old_build.runtime == "same" || new_build.runtime == "same"))
      verdict = "runtime-differs";
    else {
      const std::set<std::string> before(old_build.warnings.begin(), old_build.warnings.end());
      verdict = "same";
      for (const auto &warning : new_build.warnings)
        if (!before.contains(warning))
          verdict = "new-warnings";
    }
    ++counts[verdict];
    rows.push_back({{"tu", row.tu.label},
                    {"verdict", verdict},
                    {"baseline",
                     {{"built", old_build.built},
                      {"seconds", old_build.seconds},
                      {"object_size", old_build.object_size},
                      {"first_error", old_build.first_error},
                      {"warnings", old_build.warnings.size()},
                      {"load_error", old_build.load_error},
                      {"runtime", old_build.runtime}}},
                    {"candidate",
                     {{"built", new_build.built},
                      {"seconds", new_build.seconds},
                      {"object_size", new_build.object_size},
                      {"first_error", new_build.first_error},
                      {"warnings", new_build.warnings.size()},
                      {"load_error", new_build.load_error},
                      {"runtime", new_build.runtime}}},
                    {"reference_runtime", row.reference_runtime},
                    {"runtime_finding", RuntimeFindingJson(row)},
                    {"compile_seconds_delta", new_build.seconds - old_build.seconds},
                    {"object_size_delta", static_cast<long long>(new_build.object_size) -
                                              static_cast<long long>(old_build.object_size)}});
  }
  auto count = [&counts](const char *verdict) {
    const auto found = counts.find(verdict);
    return found == counts.end() ? 0 : found->second;
  };
  const int regressions = count("regression") + count("load-regression") + count("runtime-differs");

  out << fmt::format("compare: baseline {} ({}), candidate {} ({})\n", baseline.name,
                     baseline.version, candidate.name, candidate.version);
  out << fmt::format("{:<50} {:<16} {:>10} {:>12}\n", "TU", "verdict", "time delta", "size delta");
  for (const auto &row : rows)
    out << fmt::format("{:<50} {:<16} {:>+9.2f}s {:>+12}\n",
                       Shorten(row["tu"].get<std::string>(), 50), row["verdict"].get<std::string>(),
                       row["compile_seconds_delta"].get<double>(),
                       row["object_size_delta"].get<long long>());
  std::string summary;
  for (const auto &[verdict, n] : counts)
    summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, verdict);
  out << fmt::format("{} TU(s): {}\n", rows.size(), summary);
  out << RuntimeSummary(matrix);
  for (const auto &row : rows)
    if (!row["runtime_finding"].is_null())
      out << RuntimeFindingLine(corpus::FindingFromJson(row["runtime_finding"]));

  if (options.report_dir) {
    std::filesystem::create_directories(*options.report_dir);
    const json report = {{"provenance", provenance},
                         {"baseline", {{"name", baseline.name}, {"version", baseline.version}}},
                         {"candidate", {{"name", candidate.name}, {"version", candidate.version}}},
                         {"counts", counts},
                         {"tus", rows}};
    support::WriteFileAtomically(*options.report_dir / "compare.json", report.dump(2) + "\n");
    std::string junit = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"compare {} to {}\" "
        "tests=\"{}\" failures=\"{}\">\n",
        XmlEscape(baseline.name), XmlEscape(candidate.name), rows.size(), regressions);
    std::string markdown = fmt::format(
        "# Compiler upgrade: {} -> {}\n\n{}\n\n| TU | verdict | compile time delta (s) | object "
        "size delta (bytes) |\n|---|---|---|---|\n",
        baseline.name, candidate.name, summary);
    for (const auto &row : rows) {
      const std::string verdict = row["verdict"];
      const std::string tu = row["tu"];
      junit += fmt::format("  <testcase classname=\"compare\" name=\"{}\" time=\"{:.3f}\">",
                           XmlEscape(tu), row["candidate"]["seconds"].get<double>());
      if (verdict == "runtime-differs")
        junit += fmt::format(
            "<failure message=\"{}\">{}</failure>", verdict,
            XmlEscape(RuntimeFindingLine(corpus::FindingFromJson(row["runtime_finding"]))));
      else if (verdict == "regression" || verdict == "load-regression")
        junit += fmt::format("<failure message=\"{}\">{}</failure>", verdict,
                             XmlEscape(row["candidate"]["first_error"].get<std::string>() +
                                       row["candidate"]["load_error"].get<std::string>()));
      junit += "</testcase>\n";
      markdown += fmt::format("| `{}` | {} | {:+.2f} | {:+} |\n", tu, verdict,
                              row["compile_seconds_delta"].get<double>(),
                              row["object_size_delta"].get<long long>());
    }
    junit += "</testsuite>\n";
    std::string runtime_findings;
    for (const auto &row : rows)
      if (!row["runtime_finding"].is_null())
        runtime_findings +=
            "- " + RuntimeFindingLine(corpus::FindingFromJson(row["runtime_finding"]));
    markdown +=
        fmt::format("\n## Runtime\n\n{}\n{}", RuntimeSummary(matrix),
                    runtime_findings.empty() ? "No runtime difference.\n" : runtime_findings);
    support::WriteFileAtomically(*options.report_dir / "compare.junit.xml", junit);
    support::WriteFileAtomically(*options.report_dir / "compare.md", markdown);
    out << fmt::format("reports: {}/compare.json, compare.junit.xml, compare.md\n",
                       options.report_dir->string());
  }
  return regressions ? 1 : 0;
}

} // namespace fuzzer::cli
