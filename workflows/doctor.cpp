#include "workflows/doctor.h"

#include "fuzzer/worker/worker_client.h"
#include "parsers/clang_version.h"
#include "support/child_process.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"
#include "support/torch_environments.h"
#include "support/version.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <future>
#include <iostream>
#include <ostream>
#include <sstream>
#include <unistd.h>

namespace workflows {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char *kProbeSource = "inductor_fuzz_probe.cpp";

std::string LastNonEmptyLine(const std::string &text) {
  std::istringstream lines(text);
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty())
      last = line;
  return last;
}

// The compiler's first "error:" line says more than its closing "1 error generated.".
std::string FirstErrorLine(const std::string &text) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.find("error:") != std::string::npos)
      return line;
  return LastNonEmptyLine(text);
}

std::string CpuVectorIsa() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (!line.starts_with("flags"))
      continue;
    std::istringstream words(line);
    std::vector<std::string> flags{std::istream_iterator<std::string>(words), {}};
    auto has = [&](const char *flag) { return std::ranges::count(flags, flag) > 0; };
    if (has("avx512f") && has("avx512bw") && has("avx512vl") && has("avx512dq"))
      return "avx512";
    if (has("avx2"))
      return "avx2";
    return "none";
  }
  return "unknown";
}

// Builds a TU that includes Inductor's prefix header with the command Inductor itself would
// use for `compiler`, in a scratch folder.
json ProbeCompiler(fuzzer::worker::Worker &worker, const std::string &compiler,
                   const std::filesystem::path &scratch) {
  json entry = {{"name", compiler}, {"builds_inductor_tu", false}};
  const auto path = support::FindOnPath(compiler);
  if (!path) {
    entry["found"] = false;
    return entry;
  }
  entry["found"] = true;
  entry["path"] = path->string();
  const auto version = support::RunCommand({path->string(), "--version"}, {}, 30s);
  entry["version"] = support::FirstLine(version.output);
  const auto reply = worker.Request({{"op", "compile_command"}, {"compiler", compiler}}, 120s);
  if (reply.status != fuzzer::worker::ReplyStatus::kOk || !reply.message.contains("argv")) {
    entry["error"] = fmt::format("the worker could not form Inductor's command for it: {}",
                                 reply.status == fuzzer::worker::ReplyStatus::kOk
                                     ? reply.message.value("error", "no argv in the reply")
                                     : reply.detail);
    return entry;
  }
  const auto folder = scratch / compiler;
  std::filesystem::create_directories(folder / "inductor_fuzz_out");
  support::WriteFileAtomically(
      folder / kProbeSource,
      reply.message.value("prefix_include", "#include <torch/csrc/inductor/cpp_prefix.h>") +
          "\n"
          "extern \"C\" void inductor_fuzz_probe(float *out) { out[0] = 1.0f; }\n");
  const auto argv = reply.message["argv"].get<std::vector<std::string>>();
  entry["argv"] = argv;
  return entry;
}

json BuildProbe(json entry, const std::filesystem::path &scratch) {
  if (!entry.contains("argv"))
    return entry;
  const auto argv = entry["argv"].get<std::vector<std::string>>();
  support::SpawnOptions spawn;
  spawn.working_directory = scratch / entry["name"].get<std::string>();
  const auto result = support::RunCommand(argv, spawn, 300s);
  entry["builds_inductor_tu"] = result.status.Succeeded() && !result.timed_out;
  entry["build_seconds"] = result.seconds;
  if (!entry["builds_inductor_tu"].get<bool>())
    entry["build_error"] = result.timed_out ? "timed out" : FirstErrorLine(result.output);
  return entry;
}

json NvccVersion() {
  auto nvcc = support::FindOnPath("nvcc");
  if (!nvcc && ::access("/usr/local/cuda/bin/nvcc", X_OK) == 0)
    nvcc = "/usr/local/cuda/bin/nvcc";
  if (!nvcc)
    return nullptr;
  const auto result = support::RunCommand({nvcc->string(), "--version"}, {}, 30s);
  return LastNonEmptyLine(result.output);
}

// Starts a worker in one more environment and asks which torch it runs: each environment's
// worker maps its own libtorch only.
json CheckEnvironment(const support::TorchEnvironment &environment, const support::ToolPaths &paths,
                      const std::filesystem::path &scratch) {
  json entry = {{"venv", environment.venv.string()},
                {"installed_torch", environment.torch_version}};
  const auto folder = scratch / ("environment-" + environment.venv.filename().string());
  try {
    fuzzer::worker::Worker worker(
        fuzzer::worker::WorkerOptions{.worker_executable = paths.worker_executable,
                                      .venv = environment.venv,
                                      .confine = paths.confine_workers,
                                      .scratch_dir = folder / "worker",
                                      .log_file = folder / "worker.log"});
    const auto reply = worker.Request({{"op", "info"}}, 180s);
    if (reply.status != fuzzer::worker::ReplyStatus::kOk)
      throw support::WorkerStartError(reply.detail);
    const json &info = reply.message.at("info");
    entry["torch_version"] = info.value("torch_version", "");
    entry["libtorch_copies"] = info["libtorch_cpu_copies"].size();
    entry["libtorch_cpu"] = info["libtorch_cpu_copies"];
    entry["runs_worker"] = info["libtorch_cpu_copies"].size() == 1;
    worker.Shutdown();
  } catch (const support::WorkerStartError &error) {
    entry["runs_worker"] = false;
    entry["error"] = error.what();
  }
  return entry;
}

// The report that `--json` prints whole, and the problems that make the exit code 2.
struct Diagnosis {
  json report;
  std::vector<std::string> problems;
};

json FirstFacts(const support::ToolPaths &paths) {
  return {{"tool_version", support::ToolVersion()},
          {"venv", paths.venv.string()},
          {"worker_executable", paths.worker_executable.string()},
          {"clang_analysis_version", parsers::LinkedClangVersion()},
          {"nvcc_version", NvccVersion()},
          {"cpu_vector_isa", CpuVectorIsa()},
          {"compilers", json::array()}};
}

void RecordWorkerInfo(const json &info, Diagnosis &diagnosis) {
  diagnosis.report.update(info);
  diagnosis.report["libtorch_copies"] = info["libtorch_cpu_copies"].size();
  if (diagnosis.report["libtorch_copies"] != 1)
    diagnosis.problems.push_back(fmt::format(
        "the worker maps {} copies of libtorch_cpu.so ({}); anything that links libtorch must "
        "use the wheel's torch/lib",
        info["libtorch_cpu_copies"].size(), info["libtorch_cpu_copies"].dump()));
  if (!info.value("sys_executable_runs_python", false))
    diagnosis.problems.push_back(fmt::format("sys.executable ({}) does not start Python; torch's "
                                             "helper processes would fail",
                                             info.value("sys_executable", "?")));
}

// The worker forms each compiler's command one at a time; the builds then run side by side
// once it has shut down.
void CheckWorkerAndCompilers(const DoctorOptions &options, const support::ToolPaths &paths,
                             const std::filesystem::path &scratch, Diagnosis &diagnosis) {
  try {
    fuzzer::worker::Worker worker(
        fuzzer::worker::WorkerOptions{.worker_executable = paths.worker_executable,
                                      .venv = paths.venv,
                                      .confine = paths.confine_workers,
                                      .scratch_dir = scratch / "worker",
                                      .log_file = scratch / "worker.log"});
    const auto reply = worker.Request({{"op", "info"}}, 120s);
    if (reply.status != fuzzer::worker::ReplyStatus::kOk)
      throw support::WorkerStartError(reply.detail);
    RecordWorkerInfo(reply.message.at("info"), diagnosis);
    diagnosis.report["worker_confinement"] = worker.Ready().value("confinement", json::object());
    std::vector<json> probes;
    for (const auto &compiler : options.compilers)
      probes.push_back(ProbeCompiler(worker, compiler, scratch));
    worker.Shutdown();
    std::vector<std::future<json>> builds;
    for (auto &probe : probes)
      builds.push_back(std::async(std::launch::async, BuildProbe, probe, scratch));
    for (auto &build : builds)
      diagnosis.report["compilers"].push_back(build.get());
  } catch (const support::WorkerStartError &error) {
    diagnosis.report["torch_version"] = nullptr;
    diagnosis.report["libtorch_copies"] = 0;
    diagnosis.problems.push_back(error.what());
  }
}

// Every other environment with torch, checked side by side; the one in use was checked above.
void CheckEnvironments(const support::ToolPaths &paths, const std::filesystem::path &scratch,
                       Diagnosis &diagnosis) {
  json &report = diagnosis.report;
  report["environments"] = json::array();
  std::vector<std::future<json>> environment_checks;
  for (const auto &environment : support::FindTorchEnvironments(paths.project_root)) {
    std::error_code same_error;
    if (std::filesystem::equivalent(environment.venv, paths.venv, same_error)) {
      report["environments"].push_back(
          {{"venv", environment.venv.string()},
           {"installed_torch", environment.torch_version},
           {"torch_version", report["torch_version"]},
           {"runs_worker", report["torch_version"].is_string() && report["libtorch_copies"] == 1},
           {"in_use", true}});
      continue;
    }
    environment_checks.push_back(
        std::async(std::launch::async, CheckEnvironment, environment, paths, scratch));
  }
  for (auto &check : environment_checks) {
    json entry = check.get();
    if (!entry["runs_worker"].get<bool>())
      diagnosis.problems.push_back(
          entry.value("error", fmt::format("{}: the worker maps {} copies of libtorch_cpu.so",
                                           entry["venv"].get<std::string>(),
                                           entry.value("libtorch_copies", 0))));
    report["environments"].push_back(std::move(entry));
  }
}

// Only meaningful when torch loaded: without it every probe fails for that reason instead.
void CheckSomeCompilerBuilds(Diagnosis &diagnosis) {
  std::size_t usable = 0;
  for (const auto &compiler : diagnosis.report["compilers"])
    usable += compiler["builds_inductor_tu"].get<bool>();
  if (diagnosis.report["torch_version"].is_string() && usable == 0)
    diagnosis.problems.push_back(
        fmt::format("no compiler builds an Inductor TU; run scripts/setup to install {}",
                    fmt::join(support::options::MatrixCompilers::Default(), ", ")));
}

void WriteTorchSummary(json &report, std::ostream &out) {
  out << fmt::format("torch            {} at {}\n", report["torch_version"].get<std::string>(),
                     report.value("torch_path", "?"));
  out << fmt::format("python           {} (sys.executable {})\n",
                     report.value("python_version", "?"), report.value("sys_executable", "?"));
  out << fmt::format("libtorch_cpu.so  {} cop{} mapped in the worker\n",
                     report["libtorch_copies"].get<int>(),
                     report["libtorch_copies"] == 1 ? "y" : "ies");
  out << fmt::format("C++11 ABI        {}\n",
                     report.value("glibcxx_use_cxx11_abi", false) ? "1" : "0");
  out << fmt::format("Inductor vec ISA {} (widest simdlen {})\n",
                     report.value("picked_vec_isa", "?"), report.value("widest_simdlen", 0));
  // A case is code: what this machine holds a worker to (fuzzer/worker/worker_confinement.h).
  const json confinement = report.value("worker_confinement", json::object());
  out << fmt::format("worker network   {}\n", confinement.value("network", "?"));
  out << fmt::format("worker writes    {}\n", confinement.value("writes", "?"));
}

void WriteCompilerLines(const json &compilers, std::ostream &out) {
  for (const auto &compiler : compilers) {
    if (!compiler["found"].get<bool>()) {
      out << fmt::format("  {:<11} not installed\n", compiler["name"].get<std::string>());
      continue;
    }
    out << fmt::format(
        "  {:<11} {:<45} {}\n", compiler["name"].get<std::string>(), compiler.value("version", ""),
        compiler["builds_inductor_tu"].get<bool>()
            ? fmt::format("builds Inductor TU ({:.1f} s)", compiler.value("build_seconds", 0.0))
            : "FAILS: " + compiler.value("build_error", compiler.value("error", "")));
  }
}

void WriteEnvironmentLines(const json &environments, std::ostream &out) {
  out << "torch environments (scripts/setup --with-torch VERSION adds one; --torch VERSION "
         "picks one):\n";
  for (const auto &environment : environments)
    out << fmt::format(
        "  {:<22} torch {:<16} {}\n",
        std::filesystem::path(environment["venv"].get<std::string>()).filename().string(),
        environment["installed_torch"].get<std::string>(),
        environment["runs_worker"].get<bool>()
            ? (environment.value("in_use", false) ? "runs the worker (in use)" : "runs the worker")
            : "CANNOT run the worker (see problem below)");
}

// The report is not const: a key absent from it (nvcc_version where no nvcc was found) reads as
// null, where a const report's operator[] would be undefined behaviour.
void WriteText(Diagnosis &diagnosis, std::ostream &out) {
  json &report = diagnosis.report;
  out << fmt::format("inductor-fuzz {}\n", report["tool_version"].get<std::string>());
  out << fmt::format("venv             {}\n", report["venv"].get<std::string>());
  if (report["torch_version"].is_string())
    WriteTorchSummary(report, out);
  out << fmt::format("CPU vector ISA   {}\n", report["cpu_vector_isa"].get<std::string>());
  out << fmt::format("analysis Clang   {}\n", report["clang_analysis_version"].get<std::string>());
  out << fmt::format("nvcc             {}\n", report["nvcc_version"].is_string()
                                                  ? report["nvcc_version"].get<std::string>()
                                                  : "not found");
  WriteCompilerLines(report["compilers"], out);
  WriteEnvironmentLines(report["environments"], out);
  for (const auto &problem : diagnosis.problems)
    out << "problem: " << problem << "\n";
}

} // namespace

int Doctor(const DoctorOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  Diagnosis diagnosis{.report = FirstFacts(paths)};
  const support::ScratchDir scratch_dir("doctor");
  CheckWorkerAndCompilers(options, paths, scratch_dir.path(), diagnosis);
  CheckEnvironments(paths, scratch_dir.path(), diagnosis);
  CheckSomeCompilerBuilds(diagnosis);
  diagnosis.report["problems"] = diagnosis.problems;

  if (options.json)
    out << diagnosis.report.dump(2) << "\n";
  else
    WriteText(diagnosis, out);
  if (diagnosis.problems.empty())
    return 0;
  // Exit 2 says a problem; stderr says which, for a script that keeps only stderr.
  std::cerr << fmt::format("inductor-fuzz: doctor found {} problem(s); the first: {}\n",
                           diagnosis.problems.size(), diagnosis.problems.front());
  return 2;
}

} // namespace workflows
