#include "fuzzer/worker/sanitizer_worker.h"

#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/sanitizer_settings.h"
#include "fuzzer/worker/worker_client.h"
#include "parsers/diagnostics.h"
#include "parsers/sanitizer_report.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace fuzzer::worker {
namespace {

namespace fs = std::filesystem;

fs::path ReportDir(const fs::path &work_dir) { return work_dir / "reports"; }

// `gcc -print-file-name=NAME`: the runtime's absolute path, or NAME itself when it is missing.
fs::path RuntimeLibrary(const fs::path &compiler, const std::string &name) {
  const auto result = support::RunCommand({compiler.string(), "-print-file-name=" + name}, {},
                                          std::chrono::seconds(30));
  std::string path = result.output.substr(0, result.output.find('\n'));
  if (!result.status.Succeeded() || path.empty() || !fs::path(path).is_absolute() ||
      !fs::exists(path))
    throw support::InputError(fmt::format(
        "{} has no {} (install its sanitizer runtime: Debian's libasan8 and libubsan1 for gcc, "
        "libclang-rt-NN-dev for clang)",
        compiler.string(), name));
  return path;
}

bool IsClang(const SanitizerOptions &options) {
  return parsers::FamilyOfCompiler(options.compiler) == parsers::CompilerFamily::kClang;
}

// The runtime library to preload, if the checks need one first in the process: gcc's libasan
// for address (its libubsan is linked by the kernel itself), clang's shared runtime always.
std::optional<std::string> PreloadedRuntime(const SanitizerOptions &options) {
  const bool address = std::count(options.checks.begin(), options.checks.end(), "address");
  if (IsClang(options))
    return address ? "libclang_rt.asan-x86_64.so" : "libclang_rt.ubsan_standalone-x86_64.so";
  if (address)
    return "libasan.so";
  return std::nullopt;
}

// One tool's options from the checked-in settings, plus where its reports go and, when the
// settings hold suppressions for it, the suppressions file written into work_dir.
std::string RuntimeOptions(const std::vector<SanitizerSetting> &settings, const std::string &tool,
                           const fs::path &work_dir) {
  std::string options = JoinSettings(settings, tool);
  const std::string suppressions = JoinSettings(settings, tool + "-suppress");
  if (!suppressions.empty()) {
    const fs::path file = work_dir / (tool + ".supp");
    support::WriteFileAtomically(file, suppressions + "\n");
    options += ":suppressions=" + file.string();
  }
  // One path for both tools: clang's runtime is one library that reads both variables, and the
  // one read last would win.
  return options + ":log_path=" + (ReportDir(work_dir) / "report").string();
}

} // namespace

SanitizerOptions ParseSanitizerOptions(const std::string &checks, const std::string &compiler) {
  SanitizerOptions options{.compiler = compiler};
  std::stringstream list(checks);
  for (std::string check; std::getline(list, check, ',');) {
    if (check != "address" && check != "undefined")
      throw support::InputError(
          fmt::format("sanitizer '{}' is not known: give address, undefined or both", check));
    if (std::find(options.checks.begin(), options.checks.end(), check) == options.checks.end())
      options.checks.push_back(check);
  }
  if (options.checks.empty())
    throw support::InputError("no sanitizer named: give address, undefined or both");
  if (parsers::FamilyOfCompiler(compiler) == parsers::CompilerFamily::kNvcc)
    throw support::InputError(fmt::format(
        "sanitizer compiler {}: give a g++ or a clang++ (their runtimes can be preloaded)",
        compiler));
  if (!support::FindOnPath(compiler) && !fs::exists(compiler))
    throw support::InputError(fmt::format(
        "sanitizer compiler {} is not installed (see `inductor-fuzz doctor`)", compiler));
  return options;
}

std::vector<std::string> SanitizerFlags(const SanitizerOptions &options) {
  std::vector<std::string> flags = {fmt::format("-fsanitize={}", fmt::join(options.checks, ",")),
                                    "-fno-omit-frame-pointer", "-g"};
  // clang links no runtime into a shared object unless told to: the kernel .so then needs the
  // shared one, the library that is preloaded.
  if (IsClang(options))
    flags.push_back("-shared-libsan");
  return flags;
}

std::map<std::string, std::string> SanitizerEnvironment(const SanitizerOptions &options,
                                                        const fs::path &work_dir) {
  const fs::path compiler = support::FindOnPath(options.compiler).value_or(options.compiler);
  fs::create_directories(ReportDir(work_dir));
  // Named as the compiler it runs, so that Inductor picks that compiler's flags.
  const fs::path wrapper = work_dir / "bin" / (IsClang(options) ? "clang++" : "g++");
  fs::create_directories(wrapper.parent_path());
  std::string script =
      "#!/bin/sh\n# inductor-fuzz: Inductor's compile command plus the sanitizers\n"
      "exec '" +
      compiler.string() + "' \"$@\"";
  for (const auto &flag : SanitizerFlags(options))
    script += " " + flag;
  support::WriteFileAtomically(wrapper, script + "\n");
  fs::permissions(wrapper, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);

  std::map<std::string, std::string> environment = {{"CXX", wrapper.string()}};
  // The runtime must come first in the process; the worker links libstdc++ already, so
  // exceptions unwind through it.
  if (const auto runtime = PreloadedRuntime(options))
    environment["LD_PRELOAD"] = RuntimeLibrary(compiler, *runtime).string();
  // Every option and suppression, and why, is in fuzzer/worker/sanitizer_settings.txt.
  const auto settings = ParseSanitizerSettings(CheckedInSanitizerSettings());
  if (std::count(options.checks.begin(), options.checks.end(), "address"))
    environment["ASAN_OPTIONS"] = RuntimeOptions(settings, "asan", work_dir);
  environment["UBSAN_OPTIONS"] = RuntimeOptions(settings, "ubsan", work_dir);
  return environment;
}

std::string SanitizedReproPrelude(const SanitizerOptions &options) {
  const auto settings = ParseSanitizerSettings(CheckedInSanitizerSettings());
  const bool address = std::count(options.checks.begin(), options.checks.end(), "address");
  const auto runtime = PreloadedRuntime(options);
  std::string flags;
  for (const auto &flag : SanitizerFlags(options))
    flags += " " + flag;
  std::string prelude = fmt::format(
      "# A memory error only a sanitizer sees: the script runs itself again with Inductor's "
      "kernels\n# built by {0} with{1}, the runtime preloaded.\n"
      "import os, subprocess, sys, tempfile\n"
      "if \"REPRO_SANITIZED\" not in os.environ:\n"
      "    folder = tempfile.mkdtemp(prefix=\"repro-sanitized-\")\n"
      "    cxx = os.path.join(folder, \"{2}\")  # named as the compiler: Inductor picks its flags\n"
      "    with open(cxx, \"w\") as wrapper:\n"
      "        wrapper.write('#!/bin/sh\\nexec {0} \"$@\"{1}\\n')\n"
      "    os.chmod(cxx, 0o755)\n"
      "    env = dict(os.environ, REPRO_SANITIZED=\"1\", CXX=cxx)\n"
      "    env.setdefault(\"TORCHINDUCTOR_CACHE_DIR\", os.path.join(folder, \"cache\"))\n",
      options.compiler, flags, IsClang(options) ? "clang++" : "g++");
  // Python links no libstdc++: loaded after the runtime, the runtime's __cxa_throw interceptor
  // finds no real one and aborts at torch's first C++ exception. The worker links it already.
  if (runtime)
    prelude += fmt::format("    env[\"LD_PRELOAD\"] = subprocess.run([\"{}\", "
                           "\"-print-file-name={}\"], capture_output=True, text=True, "
                           "check=True).stdout.strip() + \" libstdc++.so.6\"\n",
                           options.compiler, *runtime);
  for (const auto &[tool, variable] :
       {std::pair{"asan", "ASAN_OPTIONS"}, std::pair{"ubsan", "UBSAN_OPTIONS"}})
    if (address || std::string_view(tool) == "ubsan")
      prelude += fmt::format("    env[\"{0}\"] = \"{1}:\" + os.environ.get(\"{0}\", \"\")\n",
                             variable, JoinSettings(settings, tool));
  prelude += "    os.execve(sys.executable, [sys.executable] + sys.argv, env)\n";
  return prelude;
}

std::vector<corpus::Finding> CollectMemoryErrors(const fs::path &work_dir,
                                                 const fs::path &inductor_cache) {
  const std::string cache = fs::weakly_canonical(inductor_cache).string() + "/";
  std::vector<fs::path> logs;
  if (fs::is_directory(ReportDir(work_dir)))
    for (const auto &entry : fs::directory_iterator(ReportDir(work_dir)))
      if (entry.is_regular_file())
        logs.push_back(entry.path());
  std::sort(logs.begin(), logs.end(), [](const fs::path &a, const fs::path &b) {
    return fs::last_write_time(a) < fs::last_write_time(b);
  });
  std::vector<corpus::Finding> findings;
  for (const auto &log : logs) {
    std::stringstream text;
    text << std::ifstream(log).rdbuf();
    for (const auto &report : parsers::ParseSanitizerReports(text.str())) {
      // The innermost frame in a TU of Inductor's cache, where the TU still is.
      fs::path source;
      for (const auto &frame : report.frames)
        if (frame.file.starts_with(cache) && fs::exists(frame.file)) {
          source = frame.file;
          break;
        }
      if (source.empty())
        continue;
      const std::string source_text = support::ReadTextFile(source, "generated TU", 64u << 20);
      auto finding = parsers::MemoryErrorFinding(report, source, source_text);
      finding.detail["report_file"] = log.string();
      findings.push_back(std::move(finding));
    }
  }
  return findings;
}

void ClearSanitizerReports(const fs::path &work_dir) {
  std::error_code ignored;
  if (fs::is_directory(ReportDir(work_dir)))
    for (const auto &entry : fs::directory_iterator(ReportDir(work_dir)))
      fs::remove(entry.path(), ignored);
}

std::vector<corpus::Finding> RerunWithSanitizers(const corpus::Case &c,
                                                 const SanitizerOptions &options,
                                                 const support::ToolPaths &paths,
                                                 const fs::path &work_dir,
                                                 std::chrono::milliseconds timeout) {
  fs::remove_all(work_dir);
  Worker worker(WorkerOptions{.worker_executable = paths.worker_executable,
                              .venv = paths.venv,
                              .confine = paths.confine_workers,
                              .scratch_dir = work_dir / "process",
                              .log_file = work_dir / "worker.log",
                              .environment = SanitizerEnvironment(options, work_dir)});
  RunCaseOnWorker(worker, c, work_dir / "inductor-cache", timeout);
  worker.Shutdown();
  auto findings = CollectMemoryErrors(work_dir, work_dir / "inductor-cache");
  for (auto &finding : findings)
    finding.subject = c.name;
  return findings;
}

} // namespace fuzzer::worker
