#include "workflows/capture.h"

#include "corpus/run_record.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_python.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/text_file.h"
#include "support/version.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <ostream>
#include <set>

namespace workflows {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// What capture writes; a folder holding anything else is not ours to overwrite.
const std::set<std::string> kOutputEntries = {"capture.json", "commands.json", "sources",
                                              "wrappers",     "recordings",    "inductor-cache",
                                              "output.log"};
constexpr const char *kPackageDir = ".python"; // the worker's package, for the program's python

void PrepareOutputFolder(const fs::path &out_dir) {
  if (fs::exists(out_dir) && !fs::is_directory(out_dir))
    throw support::InputError(fmt::format("--out {} exists and is not a folder", out_dir.string()));
  if (fs::exists(out_dir))
    for (const auto &entry : fs::directory_iterator(out_dir)) {
      const auto name = entry.path().filename().string();
      if (!kOutputEntries.contains(name) && !name.starts_with("."))
        throw support::InputError(fmt::format("--out {} holds {}, which capture did not write; "
                                              "choose an empty or new folder",
                                              out_dir.string(), name));
    }
  for (const auto &name : kOutputEntries)
    fs::remove_all(out_dir / name);
  fs::remove_all(out_dir / kPackageDir);
  fs::create_directories(out_dir / "inductor-cache");
}

// The arguments for the venv's python: the program's own after its `python`, or a script.
std::vector<std::string> ProgramArguments(const std::vector<std::string> &program) {
  if (program.empty())
    throw support::InputError("give the program after `--`: capture --out DIR -- python "
                              "script.py [ARGS], or -- python -m pytest test_x.py");
  const std::string first = fs::path(program[0]).filename().string();
  std::vector<std::string> arguments;
  if (first.starts_with("python"))
    arguments.assign(program.begin() + 1, program.end());
  else if (first.ends_with(".py"))
    arguments = program;
  else
    throw support::InputError(fmt::format(
        "capture runs Python programs in the venv's python: give `python {}` or `python -m "
        "MODULE ...` after `--`, not {}",
        fmt::join(program, " "), program[0]));
  if (arguments.empty() || (arguments[0] == "-m" && arguments.size() < 2))
    throw support::InputError("give a script or -m MODULE after python");
  if (arguments[0].starts_with("-") && arguments[0] != "-m")
    throw support::InputError(
        fmt::format("python option {} is not supported: give a script or -m MODULE", arguments[0]));
  if (arguments[0] != "-m" && !fs::is_regular_file(arguments[0]))
    throw support::InputError(
        fmt::format("{} is not a file: give the Python script to run", arguments[0]));
  return arguments;
}

// The worker's Python package as files, for a python the driver does not embed.
fs::path WritePackage(const fs::path &out_dir) {
  const fs::path root = out_dir / kPackageDir;
  const fs::path package = root / std::string(fuzzer::worker::kWorkerPackage);
  fs::create_directories(package);
  for (const auto &module : fuzzer::worker::WorkerPythonModules()) {
    const std::string name(module.name);
    const std::string file =
        module.is_package ? "__init__.py" : name.substr(name.rfind('.') + 1) + ".py";
    support::WriteFileAtomically(package / file, std::string(module.source));
  }
  return root;
}

std::string PythonPath(const fs::path &package_root) {
  const char *existing = std::getenv("PYTHONPATH");
  return package_root.string() + (existing && *existing ? std::string(":") + existing : "");
}

} // namespace

int Capture(const CaptureOptions &options, const support::ToolPaths &paths, std::ostream &out) {
  auto arguments = ProgramArguments(options.program);
  const fs::path out_dir = fs::absolute(options.out_dir);
  if (arguments[0] != "-m")
    arguments[0] = fs::absolute(arguments[0]).string();
  PrepareOutputFolder(out_dir);
  const fs::path package_root = WritePackage(out_dir);
  const fs::path python = paths.venv / "bin" / "python";
  std::vector<std::string> argv = {python.string(), "-c",
                                   "from inductor_fuzz_worker.program import main; main()"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  out << fmt::format("capture: running {} with {}; Inductor's cache in {}\n",
                     fmt::join(arguments, " "), python.string(),
                     (out_dir / "inductor-cache").string());
  out.flush();

  // Compiles run in the program's own process, where the capture is installed.
  support::ChildProcess child(
      argv,
      {.environment = {{"PYTHONPATH", PythonPath(package_root)},
                       {"INDUCTOR_FUZZ_CAPTURE_OUT", out_dir.string()},
                       {"TORCHINDUCTOR_CACHE_DIR",
                        fuzzer::worker::CompilerSafePath(out_dir / "inductor-cache").string()},
                       {"TORCHINDUCTOR_COMPILE_THREADS", "1"},
                       {"INDUCTOR_FUZZ_CAPTURE_PROVENANCE",
                        json{{"tool", "inductor-fuzz"},
                             {"tool_version", support::ToolVersion()},
                             {"command_line", options.command_line}}
                            .dump()}},
       .kill_with_parent = true});
  std::ofstream log(out_dir / "output.log");
  const auto started = std::chrono::steady_clock::now();
  bool timed_out = false;
  for (std::string line;;) {
    const auto left = options.timeout - (std::chrono::steady_clock::now() - started);
    if (left <= std::chrono::steady_clock::duration::zero()) {
      timed_out = true;
      child.KillGroup();
      break;
    }
    const auto status =
        child.ReadLine(line, std::chrono::duration_cast<std::chrono::milliseconds>(left));
    if (status == support::ChildProcess::ReadStatus::kEndOfFile)
      break;
    if (status == support::ChildProcess::ReadStatus::kTimeout) {
      timed_out = true;
      child.KillGroup();
      break;
    }
    log << line << "\n";
    out << "  | " << line << "\n";
  }
  const support::ExitStatus status = child.Wait();
  log.close();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fs::remove_all(package_root);

  // The program's own process wrote the folder (capture_folder.py, its one writer, which the
  // portable capture shares); this side only says what it holds.
  const fs::path capture_file = out_dir / "capture.json";
  if (!fs::exists(capture_file))
    throw support::InputError(fmt::format(
        "{} {} before the capture could write what it saw ({}); see {}", fmt::join(arguments, " "),
        timed_out ? fmt::format("did not finish in {} s (raise --timeout)", options.timeout.count())
                  : "ended",
        status.Describe(), (out_dir / "output.log").string()));
  const json stored = json::parse(std::ifstream(capture_file), nullptr, false);
  if (stored.is_discarded() || !stored.is_object())
    throw support::InputError(fmt::format("{} is not JSON; see {}", capture_file.string(),
                                          (out_dir / "output.log").string()));
  const std::size_t builds = corpus::ReadCommandsFile(out_dir / "commands.json").size();
  const std::size_t recorded = stored.value("recordings", json::array()).size();
  out << fmt::format("capture: the program {}; captured {} compile command(s), {} recorded "
                     "kernel module(s), {} graph output(s) with a float64 reference; {:.1f} s\n",
                     timed_out ? "timed out" : "ended with " + status.Describe(), builds, recorded,
                     stored.value("float64_references", 0), seconds);
  for (const auto &why : stored.value("reference_skipped", json::array()))
    out << fmt::format("  no float64 reference: {}\n", why.get<std::string>());
  out << fmt::format("  wrote {}/commands.json (check, matrix and compare take the folder)\n",
                     out_dir.string());
  return status.Succeeded() && !timed_out ? support::kExitNothingFound : support::kExitFindings;
}

} // namespace workflows
