#include "workflows/compare_compilers.h"

#include "corpus/junit.h"
#include "corpus/matrix_record.h"
#include "fuzzer/matrix/fp_pinning.h"
#include "fuzzer/matrix/records.h"
#include "fuzzer/matrix/runtime_differential.h"
#include "fuzzer/matrix/tolerances.h"
#include "fuzzer/matrix/warnings.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "workflows/matrix_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>

namespace workflows {

using nlohmann::json;

namespace {

struct Delta {
  double median = 0;
  double worst = 0;
  std::string worst_tu;
};

// The median of the deltas and the largest increase (or the smallest decrease, when none grew).
template <typename Value> Delta DeltaOf(const corpus::CompareRecord &record, Value value) {
  std::vector<std::pair<double, std::string>> deltas;
  for (const auto &row : record.rows)
    if (row.baseline.built && row.candidate.built)
      deltas.emplace_back(value(row), row.tu);
  if (deltas.empty())
    return {};
  std::sort(deltas.begin(), deltas.end());
  const std::size_t middle = deltas.size() / 2;
  const double median = deltas.size() % 2 ? deltas[middle].first
                                          : (deltas[middle - 1].first + deltas[middle].first) / 2;
  return {median, deltas.back().first, deltas.back().second};
}

// Each warning identity's option and how many TUs it appears in, most first.
std::vector<std::pair<std::string, std::set<std::string>>>
GroupByOption(const corpus::CompareRecord &record,
              std::vector<std::string> corpus::CompareSide::*warnings) {
  std::map<std::string, std::set<std::string>> tus;
  for (const auto &row : record.rows)
    for (const auto &warning : row.candidate.*warnings)
      tus[fuzzer::matrix::WarningIdentity::FromKey(warning).option].insert(row.tu);
  std::vector<std::pair<std::string, std::set<std::string>>> groups(tus.begin(), tus.end());
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto &a, const auto &b) { return a.second.size() > b.second.size(); });
  return groups;
}

// Each build's error against the case's float64 reference, or why there is none to judge by.
std::string AgainstReference(const corpus::CompareRow &row) {
  const auto &baseline = row.baseline.float64_reference,
             &candidate = row.candidate.float64_reference;
  if (!baseline.is_object() || !candidate.is_object())
    return "no float64 reference to judge by (no tensor this TU wrote is an output the case "
           "or the captured program's compiled graph returned, with its reference kept)";
  const std::string field = candidate.value("field", "output");
  return fmt::format("against the float64 reference of {} {}: candidate {:.3g}, "
                     "baseline {:.3g}, limit {:.3g} (Inductor's build {:.3g})",
                     field.starts_with("graph") ? "the program's" : "the case's", field,
                     candidate.value("build_error", 0.0), baseline.value("build_error", 0.0),
                     candidate.value("limit", 0.0), candidate.value("recorded_error", 0.0));
}

} // namespace

// What a team reads first: what broke (regressions, load regressions, runtime differences),
// then the new warnings by kind, then what the known-warnings file explained, then the cost.
std::string LeadingSummary(const corpus::CompareRecord &record,
                           const fuzzer::matrix::KnownWarnings &known, bool show_known) {
  std::string text;
  std::size_t broken = 0;
  for (const auto &row : record.rows) {
    if (row.verdict == corpus::CompareVerdict::kRegression) {
      text += fmt::format("REGRESSION {}: {}\n", row.tu, row.candidate.first_error);
      ++broken;
    } else if (row.verdict == corpus::CompareVerdict::kLoadRegression) {
      text += fmt::format("LOAD REGRESSION {}: {}\n", row.tu, row.candidate.load_error);
      ++broken;
    } else if (row.verdict == corpus::CompareVerdict::kRuntimeDiffers) {
      text += row.runtime_finding
                  ? "RUNTIME " + RuntimeFindingLine(*row.runtime_finding)
                  : fmt::format("RUNTIME {}: {} on the baseline, {} on the "
                                "candidate\n",
                                row.tu, row.baseline.runtime, row.candidate.runtime);
      text += "  " + AgainstReference(row) + "\n";
      if (!row.fp_pinning.is_null())
        text += "  " + fuzzer::matrix::DescribePinning(row.fp_pinning) + "\n";
      ++broken;
    } else if (row.verdict == corpus::CompareVerdict::kRounding) {
      text +=
          fmt::format("ROUNDING {}: the builds differ ({} on the baseline, {} on the "
                      "candidate); {}: not counted\n",
                      row.tu, row.baseline.runtime, row.candidate.runtime, AgainstReference(row));
      if (!row.fp_pinning.is_null())
        text += "  " + fuzzer::matrix::DescribePinning(row.fp_pinning) + "\n";
    }
  }
  if (!broken)
    text += "no regression, no load regression, no runtime difference\n";
  const auto fresh = GroupByOption(record, &corpus::CompareSide::new_warnings);
  if (fresh.empty())
    text += "new warnings: none\n";
  else
    for (const auto &[option, tus] : fresh)
      text += fmt::format("new warning {}: {} TU(s), first {}\n", option, tus.size(), *tus.begin());
  std::map<std::string, std::set<std::string>> explained; // identity -> TUs
  for (const auto &row : record.rows)
    for (const auto &warning : row.candidate.known_warnings)
      explained[warning].insert(row.tu);
  if (!explained.empty()) {
    std::set<std::string> tus;
    for (const auto &[warning, in] : explained)
      tus.insert(in.begin(), in.end());
    text += fmt::format("known warnings: {} kind(s) in {} TU(s), not counted ({}{})\n",
                        explained.size(), tus.size(), known.Origin(),
                        show_known ? "" : "; --show-known-warnings lists them");
    if (show_known)
      for (const auto &[warning, in] : explained) {
        const fuzzer::matrix::KnownWarning *entry = known.Match(record.candidate.name, warning);
        text += fmt::format("  known {}: {} TU(s): {}\n", warning, in.size(),
                            entry ? entry->reason : "");
      }
  }
  const Delta time = DeltaOf(record, [](const auto &row) { return row.CompileSecondsDelta(); });
  const Delta size =
      DeltaOf(record, [](const auto &row) { return static_cast<double>(row.ObjectSizeDelta()); });
  if (!time.worst_tu.empty()) {
    text += fmt::format("compile time delta: median {:+.2f}s, worst {:+.2f}s ({})\n", time.median,
                        time.worst, time.worst_tu);
    text += fmt::format("object size delta: median {:+.0f} bytes, worst {:+.0f} bytes ({})\n",
                        size.median, size.worst, size.worst_tu);
  }
  return text;
}

int CompareCompilers(const CompareOptions &options, const support::ToolPaths &paths,
                     std::ostream &out) {
  if (options.report_dir)
    support::CheckOutputFolder(*options.report_dir, "--report");
  const fuzzer::matrix::KnownWarnings known =
      options.known_warnings ? fuzzer::matrix::KnownWarnings::Read(*options.known_warnings)
                             : fuzzer::matrix::KnownWarnings::CheckedIn();
  // Read first: a malformed table is a one-line error before anything is built.
  const fuzzer::matrix::ToleranceTable tolerances =
      options.tolerances ? fuzzer::matrix::ToleranceTable::Read(*options.tolerances)
                         : fuzzer::matrix::ToleranceTable::CheckedIn();
  const auto baseline = fuzzer::matrix::DescribeCompiler(options.baseline);
  const auto candidate = fuzzer::matrix::DescribeCompiler(options.candidate);
  const auto started = std::chrono::steady_clock::now();
  const support::ScratchDir scratch("compare");
  const auto folders = CaptureCases(options.corpus, paths, scratch.path());
  const auto tus = fuzzer::matrix::LoadCapturedTus(folders);
  if (tus.empty())
    throw support::InputError("the corpus holds no captured TU and no case file");
  const fuzzer::matrix::Progress progress = [](const std::string &line) {
    std::cerr << line << "\n";
  };
  auto matrix =
      fuzzer::matrix::BuildMatrix(tus,
                                  {.compilers = {baseline, candidate},
                                   .jobs = options.jobs,
                                   .timeout = std::chrono::seconds(options.timeout_seconds),
                                   .work_dir = scratch / "objects",
                                   .kernel_probes = options.kernel_probes},
                                  progress);
  corpus::CompareRecord record{.provenance = {},
                               .baseline = {baseline.name, baseline.version},
                               .candidate = {candidate.name, candidate.version},
                               .rows = {}};
  {
    fuzzer::worker::Worker worker = MakeWorker(paths, scratch.path());
    record.provenance = Provenance(options.command_line, worker.Ready(), {baseline, candidate});
    fuzzer::matrix::CheckLoads(matrix, worker);
    const fuzzer::matrix::RuntimeOptions runtime{.tolerances = tolerances.ToJson()};
    fuzzer::matrix::ReplayRecordedCalls(matrix, worker, runtime, progress);
    // The pins may cost at most half of what the compare took so far: explaining a difference
    // must not make the upgrade check much slower than it is.
    const auto pinning_budget = (std::chrono::steady_clock::now() - started) / 2;
    const auto pinning_started = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < matrix.size(); ++i) {
      auto row = fuzzer::matrix::CompareBuilds(matrix[i], known);
      // Values that differ, not a build that crashed or hung: no pin explains those.
      const auto computed = [](const std::string &runtime) {
        return runtime == "same" || runtime == "differs";
      };
      const bool differs = (row.verdict == corpus::CompareVerdict::kRuntimeDiffers ||
                            row.verdict == corpus::CompareVerdict::kRounding) &&
                           computed(row.baseline.runtime) && computed(row.candidate.runtime);
      if (options.fp_pinning && differs &&
          std::chrono::steady_clock::now() > pinning_started + pinning_budget)
        row.fp_pinning = {{"skipped", "the pins' time (half of the compare's own) was spent on "
                                      "the TUs before"}};
      else if (options.fp_pinning && differs)
        row.fp_pinning = fuzzer::matrix::ExplainDifference(
            matrix[i],
            {.baseline = baseline,
             .candidate = candidate,
             .work_dir = scratch / "fp-pinning" / std::to_string(i),
             .jobs = options.jobs,
             .build_timeout = std::chrono::seconds(options.timeout_seconds),
             .runtime = runtime,
             .deadline = pinning_started + pinning_budget},
            worker, progress);
      record.rows.push_back(std::move(row));
    }
  }
  const auto counts = record.Counts();
  const int regressions = record.Regressions();

  std::string summary;
  for (const auto &[verdict, n] : counts)
    summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, verdict);
  const std::string what_matters =
      LeadingSummary(record, known, options.show_known_warnings) + RuntimeSummary(matrix);
  out << fmt::format("compare: baseline {} ({}), candidate {} ({}), {} TU(s): {}\n", baseline.name,
                     baseline.version, candidate.name, candidate.version, record.rows.size(),
                     summary);
  out << what_matters;
  out << fmt::format("\n{:<50} {:<16} {:>10} {:>12}\n", "TU", "verdict", "time delta",
                     "size delta");
  for (const auto &row : record.rows)
    out << fmt::format("{:<50} {:<16} {:>+9.2f}s {:>+12}\n", Shorten(row.tu, 50),
                       corpus::VerdictName(row.verdict), row.CompileSecondsDelta(),
                       row.ObjectSizeDelta());

  if (options.report_dir) {
    std::filesystem::create_directories(*options.report_dir);
    corpus::WriteCompareRecord(*options.report_dir / "compare.json", record);
    corpus::JunitSuite junit{.name =
                                 fmt::format("compare {} to {}", baseline.name, candidate.name)};
    std::string markdown = fmt::format(
        "# Compiler upgrade: {} -> {}\n\n{} TU(s): {}\n\n```\n{}```\n\n| TU | verdict | "
        "compile time delta (s) | object size delta (bytes) |\n|---|---|---|---|\n",
        baseline.name, candidate.name, record.rows.size(), summary, what_matters);
    for (const auto &row : record.rows) {
      const std::string verdict(corpus::VerdictName(row.verdict));
      auto &testcase = junit.cases.emplace_back(corpus::JunitCase{
          .classname = "compare", .name = row.tu, .seconds = row.candidate.seconds});
      if (row.verdict == corpus::CompareVerdict::kRuntimeDiffers && row.runtime_finding)
        testcase.failure = corpus::JunitFailure{.message = verdict,
                                                .text = RuntimeFindingLine(*row.runtime_finding)};
      else if (corpus::IsRegression(row.verdict))
        testcase.failure = corpus::JunitFailure{
            .message = verdict, .text = row.candidate.first_error + row.candidate.load_error};
      markdown += fmt::format("| `{}` | {} | {:+.2f} | {:+} |\n", row.tu, verdict,
                              row.CompileSecondsDelta(), row.ObjectSizeDelta());
    }
    support::WriteFileAtomically(*options.report_dir / "compare.junit.xml",
                                 corpus::JunitXml(junit));
    support::WriteFileAtomically(*options.report_dir / "compare.md", markdown);
    out << fmt::format("reports: {}/compare.json, compare.junit.xml, compare.md\n",
                       options.report_dir->string());
  }
  return regressions ? 1 : 0;
}

} // namespace workflows
