#include "fuzzer/cli/compare_command.h"

#include "corpus/matrix_record.h"
#include "fuzzer/cli/matrix_report.h"
#include "fuzzer/matrix/records.h"
#include "fuzzer/matrix/runtime_differential.h"
#include "fuzzer/support/scratch_dir.h"
#include "fuzzer/support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

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

  corpus::CompareRecord record{.provenance = provenance,
                               .baseline = {baseline.name, baseline.version},
                               .candidate = {candidate.name, candidate.version},
                               .rows = {}};
  for (const auto &row : matrix)
    record.rows.push_back(matrix::CompareBuilds(row));
  const auto counts = record.Counts();
  const int regressions = record.Regressions();

  out << fmt::format("compare: baseline {} ({}), candidate {} ({})\n", baseline.name,
                     baseline.version, candidate.name, candidate.version);
  out << fmt::format("{:<50} {:<16} {:>10} {:>12}\n", "TU", "verdict", "time delta", "size delta");
  for (const auto &row : record.rows)
    out << fmt::format("{:<50} {:<16} {:>+9.2f}s {:>+12}\n", Shorten(row.tu, 50),
                       corpus::VerdictName(row.verdict), row.CompileSecondsDelta(),
                       row.ObjectSizeDelta());
  std::string summary;
  for (const auto &[verdict, n] : counts)
    summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, verdict);
  out << fmt::format("{} TU(s): {}\n", record.rows.size(), summary);
  out << RuntimeSummary(matrix);
  for (const auto &row : record.rows)
    if (row.runtime_finding)
      out << RuntimeFindingLine(*row.runtime_finding);

  if (options.report_dir) {
    std::filesystem::create_directories(*options.report_dir);
    corpus::WriteCompareRecord(*options.report_dir / "compare.json", record);
    std::string junit = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"compare {} to {}\" "
        "tests=\"{}\" failures=\"{}\">\n",
        support::EscapeMarkup(baseline.name), support::EscapeMarkup(candidate.name),
        record.rows.size(), regressions);
    std::string markdown = fmt::format(
        "# Compiler upgrade: {} -> {}\n\n{}\n\n| TU | verdict | compile time delta (s) | object "
        "size delta (bytes) |\n|---|---|---|---|\n",
        baseline.name, candidate.name, summary);
    for (const auto &row : record.rows) {
      const std::string verdict(corpus::VerdictName(row.verdict));
      junit += fmt::format("  <testcase classname=\"compare\" name=\"{}\" time=\"{:.3f}\">",
                           support::EscapeMarkup(row.tu), row.candidate.seconds);
      if (row.verdict == corpus::CompareVerdict::kRuntimeDiffers && row.runtime_finding)
        junit += fmt::format("<failure message=\"{}\">{}</failure>", verdict,
                             support::EscapeMarkup(RuntimeFindingLine(*row.runtime_finding)));
      else if (corpus::IsRegression(row.verdict))
        junit += fmt::format(
            "<failure message=\"{}\">{}</failure>", verdict,
            support::EscapeMarkup(row.candidate.first_error + row.candidate.load_error));
      junit += "</testcase>\n";
      markdown += fmt::format("| `{}` | {} | {:+.2f} | {:+} |\n", row.tu, verdict,
                              row.CompileSecondsDelta(), row.ObjectSizeDelta());
    }
    junit += "</testsuite>\n";
    std::string runtime_findings;
    for (const auto &row : record.rows)
      if (row.runtime_finding)
        runtime_findings += "- " + RuntimeFindingLine(*row.runtime_finding);
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
