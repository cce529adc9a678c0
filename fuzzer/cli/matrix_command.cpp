#include "fuzzer/cli/matrix_command.h"

#include "corpus/case.h"
#include "corpus/run_record.h"
#include "fuzzer/matrix/compiler_matrix.h"
#include "fuzzer/matrix/runtime_differential.h"
#include "fuzzer/support/text_file.h"
#include "fuzzer/support/version.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <map>
#include <set>
#include <unistd.h>

namespace fuzzer::cli {
namespace {

using nlohmann::json;

std::filesystem::path ScratchFolder(const std::string &what) {
  return std::filesystem::temp_directory_path() /
         fmt::format("inductor-fuzz-{}-{}", what, ::getpid());
}

worker::Worker MakeWorker(const support::ToolPaths &paths, const std::filesystem::path &scratch) {
  return worker::Worker(worker::WorkerOptions{.worker_executable = paths.worker_executable,
                                              .venv = paths.venv,
                                              .scratch_dir = scratch / "worker",
                                              .log_file = scratch / "worker.log"});
}

std::string Cell(const matrix::TuBuild &build) {
  if (build.compiler_crashed)
    return "CRASH";
  if (!build.built)
    return build.timed_out ? "TIMEOUT" : "FAIL";
  if (!build.load_error.empty())
    return "LOAD-ERR";
  if (build.runtime == "differs")
    return "DIFFERS";
  if (build.runtime == "crashed" || build.runtime == "timeout")
    return "RUN-" + std::string(build.runtime == "crashed" ? "CRASH" : "TIMEOUT");
  return fmt::format("{} {:.1f}s", build.runtime == "same" ? "same" : "ok", build.seconds);
}

std::string XmlEscape(const std::string &text) {
  std::string escaped;
  for (char ch : text) {
    switch (ch) {
    case '&':
      escaped += "&amp;";
      break;
    case '<':
      escaped += "&lt;";
      break;
    case '>':
      escaped += "&gt;";
      break;
    case '"':
      escaped += "&quot;";
      break;
    default:
      escaped += ch;
    }
  }
  return escaped;
}

std::string Shorten(const std::string &label, std::size_t width) {
  return label.size() <= width ? label : label.substr(0, width - 3) + "...";
}

std::string RuntimeFindingLine(const corpus::Finding &runtime_finding) {
  const json &finding = runtime_finding.detail;
  std::string line =
      fmt::format("runtime-divergence: {}: differs on {} (same as Inductor's build on {})",
                  finding.value("tu", ""),
                  fmt::join(finding["differs_on"].get<std::vector<std::string>>(), ", "),
                  fmt::join(finding["same_as_inductor"].get<std::vector<std::string>>(), ", "));
  if (finding.contains("max_abs_error"))
    line += fmt::format(
        "; worst on {}: {} ({}) at {}: {} instead of {}, max abs error {}, max "
        "rel error {}",
        finding.value("compiler", ""), finding.value("argument", ""), finding.value("dtype", ""),
        finding.value("index", json()).dump(), finding.value("actual", json()).dump(),
        finding.value("expected", json()).dump(), finding.value("max_abs_error", json()).dump(),
        finding.value("max_rel_error", json()).dump());
  else
    line += fmt::format("; {} {}", finding.value("compiler", ""), finding.value("how", ""));
  return line + "\n";
}

json RuntimeFindingJson(const matrix::TuMatrix &row) {
  const auto finding = matrix::RuntimeDivergenceFinding(row);
  return finding ? corpus::FindingToJson(*finding) : json(nullptr);
}

// How much of the matrix ran on recorded inputs, and why the rest did not.
std::string RuntimeSummary(const std::vector<matrix::TuMatrix> &matrix) {
  std::map<std::string, int> reference;
  std::size_t replays = 0;
  for (const auto &row : matrix) {
    ++reference[row.reference_runtime.empty() ? "no recording" : row.reference_runtime];
    for (const auto &build : row.builds)
      replays += !build.runtime.empty();
  }
  std::string parts;
  for (const auto &[what, n] : reference)
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", n,
                         what == "same"           ? "reproduced by Inductor's build"
                         : what == "differs"      ? "nondeterministic (not compared)"
                         : what == "missing"      ? "compared with the recording only"
                         : what == "no recording" ? "without recorded calls"
                                                  : "Inductor's build " + what);
  return fmt::format("runtime: {} build(s) replayed on recorded kernel calls; TUs: {}\n", replays,
                     parts);
}

// What makes a report reproducible: who made it, with which torch and compilers, how.
json Provenance(const std::string &command_line, const json &worker_ready,
                const std::vector<matrix::Compiler> &compilers) {
  json described = json::array();
  for (const auto &compiler : compilers)
    described.push_back({{"name", compiler.name},
                         {"path", compiler.path.string()},
                         {"family", parsers::FamilyName(compiler.family)},
                         {"version", compiler.version}});
  return {{"tool_version", support::ToolVersion()},
          {"torch_version", worker_ready.value("torch_version", "")},
          {"command_line", command_line},
          {"compilers", described}};
}

// Case files in the corpus are run once through a worker to capture their TUs.
std::vector<std::filesystem::path> CaptureCases(const std::vector<std::filesystem::path> &corpus,
                                                const support::ToolPaths &paths,
                                                const std::filesystem::path &scratch) {
  std::vector<std::filesystem::path> folders;
  std::vector<std::filesystem::path> case_files;
  for (const auto &entry : corpus) {
    if (!std::filesystem::exists(entry))
      throw support::InputError(fmt::format("corpus {} does not exist", entry.string()));
    if (std::filesystem::is_regular_file(entry)) {
      case_files.push_back(entry);
      continue;
    }
    folders.push_back(entry);
    // Run records (folders with commands.json) are replayed as they are; every other .json
    // file is a case, and one that is not fails with its reader's message.
    for (auto it = std::filesystem::recursive_directory_iterator(entry);
         it != std::filesystem::recursive_directory_iterator(); ++it) {
      if (it->is_directory() && std::filesystem::exists(it->path() / "commands.json")) {
        it.disable_recursion_pending();
        continue;
      }
      if (it->path().extension() == ".json" &&
          !std::filesystem::exists(it->path().parent_path() / "commands.json"))
        case_files.push_back(it->path());
    }
  }
  if (case_files.empty())
    return folders;
  worker::Worker worker = MakeWorker(paths, scratch);
  for (const auto &file : case_files) {
    const corpus::Case c = corpus::LoadCaseFile(file);
    const auto out = scratch / "captured" / c.name;
    std::filesystem::create_directories(out);
    std::cerr << fmt::format("capturing {} ({})\n", c.name, file.string());
    const auto outcome =
        worker::RunCaseOnWorker(worker, c, out / "inductor-cache", std::chrono::minutes(10),
                                {.record_dir = out / "recordings"});
    corpus::WriteRunRecord(out, c, {outcome.status, outcome.finding, outcome.result},
                           {{"tool_version", support::ToolVersion()}});
    folders.push_back(out);
  }
  return folders;
}

} // namespace

int MatrixCommand(const MatrixCommandOptions &options, const support::ToolPaths &paths,
                  std::ostream &out) {
  const auto tus = matrix::LoadCapturedTus(options.inputs);
  if (tus.empty())
    throw support::InputError("no captured TU found (no commands.json under the given folders); "
                              "run `inductor-fuzz run-case` first");
  const auto scratch = ScratchFolder("matrix");
  matrix::MatrixOptions matrix_options{.compilers = matrix::DiscoverCompilers(options.compilers),
                                       .jobs = options.jobs,
                                       .timeout = std::chrono::seconds(options.timeout_seconds),
                                       .work_dir = scratch / "objects"};
  const matrix::Progress progress = [](const std::string &line) { std::cerr << line << "\n"; };
  auto matrix = matrix::BuildMatrix(tus, matrix_options, progress);
  json provenance;
  {
    worker::Worker worker = MakeWorker(paths, scratch);
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
    support::WriteFileAtomically(
        *options.json_out,
        json{{"provenance", provenance}, {"tus", matrix::MatrixToJson(matrix)}}.dump(2) + "\n");
  std::error_code ignored;
  std::filesystem::remove_all(scratch, ignored);
  if (built == 0)
    throw support::InputError(fmt::format("no compiler rebuilt any TU (first error: {}); check the "
                                          "compilers with `inductor-fuzz doctor`",
                                          matrix.front().builds.front().first_error));
  return findings ? 1 : 0;
}

int CompareCommand(const CompareOptions &options, const support::ToolPaths &paths,
                   std::ostream &out) {
  const auto baseline = matrix::DescribeCompiler(options.baseline);
  const auto candidate = matrix::DescribeCompiler(options.candidate);
  const auto scratch = ScratchFolder("compare");
  const auto folders = CaptureCases(options.corpus, paths, scratch);
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
    worker::Worker worker = MakeWorker(paths, scratch);
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
  std::error_code ignored;
  std::filesystem::remove_all(scratch, ignored);
  return regressions ? 1 : 0;
}

} // namespace fuzzer::cli
