#include "workflows/compare_releases.h"
#include "workflows/matrix_report.h"

#include "corpus/junit.h"
#include "fuzzer/generate/generator.h"
#include "fuzzer/generate/policy.h"
#include "support/errors.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/torch_environments.h"
#include "support/version.h"
#include "workflows/release_compare.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>

namespace workflows {
namespace {

using nlohmann::json;
using workflows::ReleaseVerdict;

// A .json file is a case when it says what API it runs; other JSON (reports, records) in a
// corpus folder is passed over, and a case file that does not load is a one-line error.
bool LooksLikeCase(const std::filesystem::path &file) {
  const auto document =
      json::parse(support::ReadTextFile(file, "case file", 64 << 20), nullptr, false);
  return document.is_object() && (document.contains("api") || document.contains("mask_mod"));
}

std::vector<workflows::ReleaseCase> CollectCases(const CompareReleasesOptions &options) {
  std::vector<workflows::ReleaseCase> cases;
  for (const auto &entry : options.corpus) {
    if (!std::filesystem::exists(entry))
      throw support::InputError(fmt::format("corpus {} does not exist", entry.string()));
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_regular_file(entry)) {
      files.push_back(entry);
    } else {
      for (const auto &file : std::filesystem::recursive_directory_iterator(entry))
        if (file.path().extension() == ".json" && LooksLikeCase(file.path()))
          files.push_back(file.path());
      std::ranges::sort(files);
    }
    for (const auto &file : files)
      cases.push_back({corpus::LoadCaseFile(file), file.string()});
  }
  if (options.cases) {
    const auto policy = fuzzer::generate::GenerationPolicy::Default();
    for (std::uint64_t i = 0; i < *options.cases; ++i)
      cases.push_back(
          {fuzzer::generate::GenerateCase({options.seed, i, options.command_line}, policy).c,
           fmt::format("gen --seed {} case {}", options.seed, i)});
  }
  if (cases.empty())
    throw support::InputError("no case to compare: pass --corpus DIR (case files) or --cases N");
  return cases;
}

std::string Codegen(const fuzzer::matrix::CodegenDelta &codegen) {
  if (codegen.Same())
    return "same";
  std::string text =
      fmt::format("{} -> {} kernels", codegen.baseline_kernels, codegen.candidate_kernels);
  if (!codegen.changed_kernels.empty())
    text += fmt::format(", {} changed", codegen.changed_kernels.size());
  if (!codegen.added_declarations.empty() || !codegen.removed_declarations.empty())
    text += fmt::format(", decls +{} -{}", codegen.added_declarations.size(),
                        codegen.removed_declarations.size());
  return text;
}

std::string Outcome(const workflows::ReleaseRun &run) {
  if (run.Failed())
    return run.signature;
  return run.Invalid() ? "invalid-case: " + run.summary : run.status;
}

// The line a regression, a fix or a changed failure gets above the table.
std::string NotableLine(const workflows::ReleaseComparison &row) {
  switch (row.verdict) {
  case ReleaseVerdict::kRegressed:
    return fmt::format("REGRESSED {} ({}): passes on {}, fails on {}: {}\n", row.case_name,
                       row.origin, row.baseline.torch_version, row.candidate.torch_version,
                       row.candidate.signature);
  case ReleaseVerdict::kFailingDifferently:
    return fmt::format("FAILING DIFFERENTLY {} ({}): {} on {}, {} on {}\n", row.case_name,
                       row.origin, row.baseline.signature, row.baseline.torch_version,
                       row.candidate.signature, row.candidate.torch_version);
  case ReleaseVerdict::kFixed:
    return fmt::format("FIXED {} ({}): {} on {} only\n", row.case_name, row.origin,
                       row.baseline.signature, row.baseline.torch_version);
  case ReleaseVerdict::kNotComparable:
    return fmt::format("NOT COMPARABLE {} ({}): baseline {}, candidate {}\n", row.case_name,
                       row.origin, Outcome(row.baseline), Outcome(row.candidate));
  default:
    return "";
  }
}

} // namespace

int CompareTorchReleases(const CompareReleasesOptions &options, const support::ToolPaths &paths,
                         std::ostream &out) {
  if (options.report_dir)
    support::CheckOutputFolder(*options.report_dir, "--report");
  const auto baseline =
      support::ResolveTorchEnvironment(options.baseline_torch, paths.project_root);
  const auto candidate =
      support::ResolveTorchEnvironment(options.candidate_torch, paths.project_root);
  const auto cases = CollectCases(options);
  const support::ScratchDir scratch("compare-torch");
  std::cerr << fmt::format("compare: {} case(s) on torch {} ({}) and torch {} ({})\n", cases.size(),
                           baseline.torch_version, baseline.venv.string(), candidate.torch_version,
                           candidate.venv.string());
  const auto started = std::chrono::steady_clock::now();
  const auto rows = workflows::CompareReleases(
      cases,
      {.baseline = baseline,
       .candidate = candidate,
       .worker_executable = paths.worker_executable,
       .confine_workers = paths.confine_workers,
       .scratch = scratch.path(),
       .case_timeout = std::chrono::seconds(options.case_timeout_seconds)},
      [&](std::size_t index, const workflows::ReleaseComparison &row) {
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::cerr << fmt::format("[{}/{}] {:<24} {:<20} codegen {} ({:.0f} s)\n", index + 1,
                                 cases.size(), Shorten(row.case_name, 24),
                                 workflows::ReleaseVerdictName(row.verdict), Codegen(row.codegen),
                                 elapsed);
      });

  std::map<std::string, std::size_t> counts;
  std::size_t codegen_changed = 0, kernels_changed = 0, regressions = 0;
  std::string notable;
  for (const auto &row : rows) {
    ++counts[std::string(workflows::ReleaseVerdictName(row.verdict))];
    codegen_changed += !row.codegen.Same();
    kernels_changed += row.codegen.changed_kernels.size();
    regressions += row.verdict == ReleaseVerdict::kRegressed;
    notable += NotableLine(row);
  }
  std::string summary;
  for (const auto verdict : {ReleaseVerdict::kSame, ReleaseVerdict::kRegressed,
                             ReleaseVerdict::kFixed, ReleaseVerdict::kFailingDifferently,
                             ReleaseVerdict::kBothFailing, ReleaseVerdict::kNotComparable})
    summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ",
                           counts[std::string(workflows::ReleaseVerdictName(verdict))],
                           workflows::ReleaseVerdictName(verdict));
  const std::string headline = fmt::format(
      "compare: torch {} -> torch {}, {} case(s): {}\ncodegen changed in {} case(s), {} "
      "kernel(s) changed\n",
      baseline.torch_version, candidate.torch_version, rows.size(), summary, codegen_changed,
      kernels_changed);
  out << headline << notable;
  out << fmt::format("\n{:<28} {:<20} {:<34} {}\n", "case", "verdict", "codegen",
                     "candidate outcome");
  for (const auto &row : rows)
    out << fmt::format("{:<28} {:<20} {:<34} {}\n", Shorten(row.case_name, 28),
                       workflows::ReleaseVerdictName(row.verdict), Codegen(row.codegen),
                       Shorten(Outcome(row.candidate), 100));

  if (options.report_dir) {
    std::filesystem::create_directories(*options.report_dir);
    json document = {
        {"format", "inductor-fuzz compare-torch 1"},
        {"provenance",
         {{"tool_version", support::ToolVersion()}, {"command_line", options.command_line}}},
        {"baseline", {{"torch", baseline.torch_version}, {"venv", baseline.venv}}},
        {"candidate", {{"torch", candidate.torch_version}, {"venv", candidate.venv}}},
        {"counts", counts},
        {"codegen_changed_cases", codegen_changed},
        {"changed_kernels", kernels_changed},
        {"cases", json::array()}};
    corpus::JunitSuite junit{.name = fmt::format("compare torch {} to {}", baseline.torch_version,
                                                 candidate.torch_version)};
    std::string markdown = fmt::format(
        "# torch {} -> {}\n\n```\n{}{}```\n\n| case | verdict | codegen | baseline | candidate "
        "|\n|---|---|---|---|---|\n",
        baseline.torch_version, candidate.torch_version, headline, notable);
    for (const auto &row : rows) {
      document["cases"].push_back(workflows::ReleaseComparisonToJson(row));
      const std::string verdict(workflows::ReleaseVerdictName(row.verdict));
      auto &testcase = junit.cases.emplace_back(corpus::JunitCase{
          .classname = "compare-torch", .name = row.case_name, .seconds = row.candidate.seconds});
      if (row.verdict == ReleaseVerdict::kRegressed)
        testcase.failure = corpus::JunitFailure{.message = verdict, .text = NotableLine(row)};
      markdown += fmt::format("| `{}` | {} | {} | `{}` | `{}` |\n", row.case_name, verdict,
                              Codegen(row.codegen), Outcome(row.baseline), Outcome(row.candidate));
    }
    support::WriteFileAtomically(*options.report_dir / "compare-torch.json", document.dump(2));
    support::WriteFileAtomically(*options.report_dir / "compare-torch.junit.xml",
                                 corpus::JunitXml(junit));
    support::WriteFileAtomically(*options.report_dir / "compare-torch.md", markdown);
    out << fmt::format(
        "reports: {}/compare-torch.json, compare-torch.junit.xml, compare-torch.md\n",
        options.report_dir->string());
  }
  return regressions ? 1 : 0;
}

} // namespace workflows
