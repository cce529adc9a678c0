#include "workflows/matrix_report.h"

#include "corpus/case.h"
#include "corpus/run_record.h"
#include "fuzzer/matrix/compiler_matrix.h"
#include "fuzzer/matrix/runtime_differential.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"
#include "support/text_file.h"
#include "support/version.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <map>
#include <set>
#include <unistd.h>

namespace workflows {

using nlohmann::json;

fuzzer::worker::Worker MakeWorker(const support::ToolPaths &paths,
                                  const std::filesystem::path &scratch) {
  return fuzzer::worker::Worker(
      fuzzer::worker::WorkerOptions{.worker_executable = paths.worker_executable,
                                    .venv = paths.venv,
                                    .confine = paths.confine_workers,
                                    .scratch_dir = scratch / "worker",
                                    .log_file = scratch / "worker.log"});
}

std::string Cell(const fuzzer::matrix::TuBuild &build) {
  if (build.compiler_crashed)
    return "CRASH";
  if (!build.built)
    return build.timed_out ? "TIMEOUT" : "FAIL";
  if (!build.load_error.empty())
    return "LOAD-ERR";
  if (build.runtime == "memory-error")
    return "MEM-ERROR";
  if (build.runtime == "differs")
    return "DIFFERS";
  if (build.runtime == "crashed" || build.runtime == "timeout")
    return "RUN-" + std::string(build.runtime == "crashed" ? "CRASH" : "TIMEOUT");
  return fmt::format("{} {:.1f}s", build.runtime == "same" ? "same" : "ok", build.seconds);
}

std::string Shorten(const std::string &label, std::size_t width) {
  return label.size() <= width ? label : label.substr(0, width - 3) + "...";
}

std::string RuntimeFindingLine(const corpus::Finding &runtime_finding) {
  const json &finding = runtime_finding.detail;
  if (finding.value("inside", false))
    return fmt::format(
        "runtime-divergence: {}: kernel {} (call {} of the module, kernel call {}) writes "
        "argument {} ({}, {}) differently on {} than on {}, though the module returns the same: "
        "at {}: {} instead of {}, {} of {} elements, max abs error {}\n",
        finding.value("tu", ""), finding.value("kernel", ""), finding.value("call", json()).dump(),
        finding.value("site", json()).dump(), finding.value("kernel_argument", json()).dump(),
        finding.value("buffer", ""), finding.value("dtype", ""),
        fmt::join(finding["differs_on"].get<std::vector<std::string>>(), ", "),
        finding.value("reference", ""), finding.value("index", json()).dump(),
        finding.value("actual", json()).dump(), finding.value("expected", json()).dump(),
        finding.value("mismatched_elements", json()).dump(),
        finding.value("elements", json()).dump(), finding.value("max_abs_error", json()).dump());
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

// How much of the matrix ran on recorded inputs, and why the rest did not.
std::string RuntimeSummary(const std::vector<fuzzer::matrix::TuMatrix> &matrix) {
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
  std::string text = fmt::format(
      "runtime: {} build(s) replayed on recorded kernel calls; TUs: {}\n", replays, parts);
  // Kernel probes: how many cpp_wrapper TUs had every kernel compared, and why not the others.
  std::size_t probed = 0, unbuilt = 0;
  std::string first_reason;
  for (const auto &row : matrix) {
    bool any = false;
    for (const auto &build : row.builds) {
      any = any || !build.probe_dir.empty();
      if (!build.probe_error.empty() && first_reason.empty())
        first_reason = build.probe_error;
      unbuilt += !build.probe_error.empty();
    }
    probed += any;
  }
  if (probed || unbuilt)
    text += fmt::format(
        "kernel probes: every kernel call compared in {} cpp_wrapper TU(s){}\n", probed,
        unbuilt ? fmt::format("; {} probed build(s) failed, first: {}", unbuilt, first_reason)
                : "");
  return text;
}

// What makes a report reproducible: who made it, with which torch and compilers, how.
json Provenance(const std::string &command_line, const json &worker_ready,
                const std::vector<fuzzer::matrix::Compiler> &compilers) {
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
  fuzzer::worker::Worker worker = MakeWorker(paths, scratch);
  for (const auto &file : case_files) {
    const corpus::Case c = corpus::LoadCaseFile(file);
    const auto out = scratch / "captured" / c.name;
    std::filesystem::create_directories(out);
    std::cerr << fmt::format("capturing {} ({})\n", c.name, file.string());
    const auto outcome =
        fuzzer::worker::RunCaseOnWorker(worker, c, out / "inductor-cache", std::chrono::minutes(10),
                                        {.record_dir = out / "recordings"});
    corpus::WriteRunRecord(out, c, {outcome.status, outcome.finding, outcome.result},
                           {{"tool_version", support::ToolVersion()}});
    folders.push_back(out);
  }
  return folders;
}

} // namespace workflows
