// The portable capture (fuzzer/worker/python/inductor_fuzz_capture), installed from the wheel
// scripts/setup builds into a fresh virtual environment that has torch and nothing else of this
// project (no build folder on PATH), and what this machine makes of its folders: check, compare
// and `corpus import`. First tier: `corpus import` refusing what it must not store (no torch).
// Second tier: the package on torch 2.6.0 and 2.15.0, and the round trip against run-case.
#include "binary_runner.h"
#include "support/torch_environments.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace fuzzer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::RunInductorFuzz;

const fs::path kSource = INDUCTOR_FUZZ_SOURCE_DIR;
const fs::path kWheelFolder = fs::path(INDUCTOR_FUZZ_BINARY).parent_path() / "dist";

json ReadJson(const fs::path &path) { return json::parse(std::ifstream(path)); }

void WriteJson(const fs::path &path, const json &document) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << document.dump(2);
}

// Every file under `root` with its size: what a refused import must leave as it was.
std::set<std::string> Listing(const fs::path &root) {
  std::set<std::string> files;
  if (fs::exists(root))
    for (const auto &entry : fs::recursive_directory_iterator(root))
      files.insert(entry.path().lexically_relative(root).string() + ":" +
                   (entry.is_regular_file() ? std::to_string(entry.file_size()) : "dir"));
  return files;
}

class PortableCaptureTest : public ::testing::Test {
protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("inductor-fuzz-portable-test-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  // A capture of one case as the package writes it, passing, for the refusals to break.
  fs::path WriteCasesCapture() {
    const fs::path capture = folder_ / "night";
    const json generated = json::parse(RunInductorFuzz({"gen", "--seed", "3", "--requests"}).out);
    WriteJson(capture / "capture.json",
              {{"format_version", 1},
               {"kind", "cases"},
               {"cases", {{{"case", "s3-0"}, {"folder", "cases/00-s3-0"}, {"ended", "pass"}}}},
               {"provenance", {{"torch", "2.15.0"}, {"python", "3.11.2"}}}});
    WriteJson(capture / "cases/00-s3-0/request.json", generated);
    WriteJson(capture / "cases/00-s3-0/reply.json",
              {{"status", "ok"}, {"result", {{"status", "pass"}, {"recordings", json::array()}}}});
    WriteJson(capture / "cases/00-s3-0/commands.json",
              {{"format_version", 2}, {"commands", json::array()}});
    return capture;
  }

  fs::path folder_;
};

// A CUDA program's capture from a GPU runner (tests/fixtures/capture/gpu_runner_torch_2_11: torch
// 2.11 on Python 3.12, its paths that machine's): with that release's headers installed here, its
// cpp_wrapper and AOTInductor TUs parse and build on g++-12 and clang++-19 (built only: no CUDA
// driver here); without them, check and matrix say which headers are missing, in one line.
TEST_F(PortableCaptureTest,
       AGpuRunnersCudaCaptureIsCheckedWithItsTorchsHeadersOrSaysTheyAreMissing) {
  const fs::path capture = folder_ / "cap";
  fs::copy(kSource / "tests/fixtures/capture/gpu_runner_torch_2_11", capture,
           fs::copy_options::recursive);
  std::vector<std::string> check = {"check"};
  for (const auto &entry : fs::directory_iterator(capture / "sources"))
    check.push_back(entry.path().string());
  check.insert(check.end(), {"--commands", (capture / "commands.json").string()});
  const auto checked = RunInductorFuzz(check);
  const auto rebuilt =
      RunInductorFuzz({"matrix", capture.string(), "--compilers", "g++-12,clang++-19"});
  bool installed = false;
  for (const auto &environment : support::FindTorchEnvironments(kSource))
    installed = installed || environment.torch_version.starts_with("2.11.0");
  if (installed) {
    EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
    EXPECT_NE(checked.out.find("3 file(s), 0 finding(s)"), std::string::npos) << checked.out;
    EXPECT_EQ(rebuilt.exit_code, 0) << rebuilt.out << rebuilt.err;
    EXPECT_NE(rebuilt.out.find("3 TU(s) x 2 compiler(s): 6 built, 0 finding(s)"), std::string::npos)
        << rebuilt.out;
    return;
  }
  for (const auto &run : {checked, rebuilt}) {
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_NE(run.err.find("headers missing: "), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("torch 2.11.0's headers (scripts/setup --with-torch 2.11.0)"),
              std::string::npos)
        << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }
}

// `scripts/test --full` only (tests/CMakeLists.txt).
class PortableCaptureFullTier : public PortableCaptureTest {};

// Each refusal: exit 2, one line that says what is wrong, and the corpus as it was.
TEST_F(PortableCaptureTest, ImportRefusesWhatIsNotAUsableCaptureAndStoresNothing) {
  const fs::path corpus = folder_ / "corpus";
  const fs::path capture = WriteCasesCapture();
  const auto good =
      RunInductorFuzz({"corpus", "import", capture.string(), "--corpus", corpus.string()});
  ASSERT_EQ(good.exit_code, 0) << good.out << good.err;
  EXPECT_NE(good.out.find("s3-0: pass"), std::string::npos) << good.out;
  const auto before = Listing(corpus);

  const auto refused = [&](const std::string &what, const fs::path &folder,
                           const std::string &expected) {
    const auto run =
        RunInductorFuzz({"corpus", "import", folder.string(), "--corpus", corpus.string()});
    EXPECT_EQ(run.exit_code, 2) << what << "\n" << run.out << run.err;
    EXPECT_NE(run.err.find(expected), std::string::npos) << what << "\n" << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << what << "\n" << run.err;
    EXPECT_EQ(Listing(corpus), before) << what;
  };
  refused("a folder that is no capture", folder_, "is not a capture folder (no capture.json)");

  json newer = ReadJson(capture / "capture.json");
  newer["format_version"] = 2;
  WriteJson(capture / "capture.json", newer);
  refused("a newer format", capture, "has capture format 2; this build reads 1: update");

  json program = newer;
  program["format_version"] = 1;
  program["kind"] = "program";
  WriteJson(capture / "capture.json", program);
  refused("a program's capture", capture, "is a program's capture: check, matrix and compare");

  json escaping = program;
  escaping["kind"] = "cases";
  escaping["cases"][0]["folder"] = "../../..";
  WriteJson(capture / "capture.json", escaping);
  refused("a case folder outside the capture", capture, "which is not a folder inside the capture");

  escaping["cases"][0]["folder"] = "cases/00-s3-0";
  WriteJson(capture / "capture.json", escaping);
  WriteJson(capture / "cases/00-s3-0/commands.json",
            {{"format_version", 2},
             {"commands",
              {{{"argv", {"g++", "-c", "k.cpp"}},
                {"sources",
                 {{{"captured_path", "/tmp/k.cpp"}, {"stored", "../../../../etc/passwd"}}}}}}}});
  refused("a source stored outside the capture", capture, "which is not inside the folder");

  WriteJson(capture / "cases/00-s3-0/commands.json",
            {{"format_version", 2}, {"commands", json::array()}});
  std::ofstream(capture / "cases/00-s3-0/reply.json", std::ios::binary) << std::string("\x7f"
                                                                                       "ELF\0\0",
                                                                                       6);
  refused("a binary reply", capture, "reply.json");
}

// A virtual environment that has torch (the project's venv of `torch_venv`, seen through a .pth
// file, so that nothing is downloaded) and the capture wheel, and nothing else of this project.
fs::path FreshVenv(const fs::path &where, const fs::path &torch_venv) {
  const auto make = support::RunCommand({"/usr/bin/python3.11", "-m", "venv", where.string()}, {},
                                        std::chrono::seconds(120));
  EXPECT_TRUE(make.status.Succeeded()) << make.output;
  fs::path site_packages;
  for (const auto &python : fs::directory_iterator(torch_venv / "lib"))
    site_packages = python.path() / "site-packages";
  std::ofstream(where / "lib/python3.11/site-packages/torch-of-the-machine.pth")
      << site_packages.string() << "\n";
  fs::path wheel;
  for (const auto &entry : fs::directory_iterator(kWheelFolder))
    if (entry.path().extension() == ".whl")
      wheel = entry.path();
  EXPECT_FALSE(wheel.empty()) << "scripts/setup builds the wheel into " << kWheelFolder;
  const auto install =
      support::RunCommand({(where / "bin/pip").string(), "install", "-q", "--no-index",
                           "--disable-pip-version-check", wheel.string()},
                          {}, std::chrono::seconds(300));
  EXPECT_TRUE(install.status.Succeeded()) << install.output;
  return where;
}

// python -m inductor_fuzz_capture ARGS with a PATH that holds no build of this project.
test_support::BinaryRun RunPackage(const fs::path &venv, std::vector<std::string> arguments,
                                   const std::map<std::string, std::string> &extra = {}) {
  std::vector<std::string> argv = {(venv / "bin/python").string(), "-m", "inductor_fuzz_capture"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  support::SpawnOptions options;
  options.environment = {{"PATH", "/usr/bin:/bin"}, {"PYTHONPATH", ""}};
  for (const auto &[key, value] : extra)
    options.environment[key] = value;
  const auto err_file = venv / "stderr.txt";
  options.stderr_file = err_file;
  const auto result = support::RunCommand(argv, options, std::chrono::seconds(1200), 1 << 20);
  std::stringstream err;
  err << std::ifstream(err_file).rdbuf();
  return {result.status.exit_code.value_or(-1), result.output, err.str()};
}

// On the oldest release the worker supports and on the pinned one: a program's capture from the
// package goes to check and to compare (run on the same release), as inductor-fuzz capture's
// does; a GPU asked for where there is none is refused in one line.
TEST_F(PortableCaptureFullTier, AProgramCapturedOnTorch26And215GoesToCheckAndCompare) {
  for (const auto &[release, torch_venv] : std::vector<std::pair<std::string, fs::path>>{
           {"2.6.0", kSource / ".venv-torch-2.6.0"}, {"2.15.0", kSource / ".venv"}}) {
    SCOPED_TRACE("torch " + release);
    if (!fs::exists(torch_venv / "bin/python")) {
      ADD_FAILURE() << torch_venv << " is missing: scripts/test installs it";
      continue;
    }
    const fs::path venv = FreshVenv(folder_ / ("venv-" + release), torch_venv);
    const fs::path capture = folder_ / ("cap-" + release);
    const auto run =
        RunPackage(venv, {"--out", capture.string(), "--",
                          (kSource / "tests/fixtures/capture/two_functions.py").string()});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("| both functions match eager"), std::string::npos) << run.out;
    const json provenance = ReadJson(capture / "capture.json")["provenance"];
    EXPECT_EQ(provenance["tool"], "inductor_fuzz_capture");
    EXPECT_TRUE(provenance["torch"].get<std::string>().starts_with(release)) << provenance.dump(2);
    EXPECT_EQ(provenance["python_executable"], (venv / "bin/python").string());
    // Each function's kernel module has its calls recorded (2.6 names its TUs c<hash>.cpp,
    // later releases c<hash>.main.cpp: the recording says which are kernels).
    std::size_t recorded = 0;
    std::vector<std::string> sources;
    const json commands = ReadJson(capture / "commands.json");
    for (const auto &command : commands["commands"]) {
      recorded += command.contains("recording");
      for (const auto &source : command["sources"])
        sources.push_back((capture / source["stored"].get<std::string>()).string());
    }
    EXPECT_EQ(recorded, 2u) << commands.dump(2);
    ASSERT_FALSE(sources.empty()) << commands.dump(2);

    std::vector<std::string> check = {"check"};
    check.insert(check.end(), sources.begin(), sources.end());
    check.insert(check.end(), {"--commands", (capture / "commands.json").string()});
    const auto checked = RunInductorFuzz(check);
    EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
    EXPECT_NE(checked.out.find(fmt::format("{} file(s), 0 finding(s)", sources.size())),
              std::string::npos)
        << checked.out;

    const auto compared = RunInductorFuzz({"--torch", release, "compare", "--baseline", "g++-12",
                                           "--candidate", "g++-11", "--corpus", capture.string(),
                                           "--report", (folder_ / ("report-" + release)).string()});
    EXPECT_EQ(compared.exit_code, 0) << compared.out << compared.err;
    // Every TU rebuilt on both compilers, and the two kernels run on their recorded calls.
    const json report = ReadJson(folder_ / ("report-" + release) / "compare.json");
    EXPECT_EQ(report["counts"].value("same", 0u), sources.size()) << report["counts"].dump();
    std::size_t ran = 0;
    for (const auto &tu : report["tus"])
      ran += tu["baseline"].value("runtime", "") == "same";
    EXPECT_EQ(ran, 2u) << report.dump(2);

    const auto no_gpu = RunPackage(venv, {"--out", (folder_ / "gpu").string(), "--cases",
                                          (kSource / "README.md").string(), "--device", "cuda"});
    EXPECT_EQ(no_gpu.exit_code, 2) << no_gpu.out << no_gpu.err;
    EXPECT_NE(no_gpu.err.find("--device cuda, but torch"), std::string::npos) << no_gpu.err;
    EXPECT_FALSE(fs::exists(folder_ / "gpu"));
  }
}

// The same cases through run-case here and through the package and `corpus import`: the same
// findings under the same signatures, one of each oracle the package runs (a compile error from
// a planted codegen bug, a pass, a crash that kills the worker: a real torch bug).
TEST_F(PortableCaptureFullTier, CasesImportedGiveTheSignaturesRunCaseGives) {
  const std::vector<fs::path> cases = {
      kSource / "tests/cases/index-program-odd-reduction.json",
      kSource / "tests/cases/sliding-window-two-calls.json",
      kSource / "tests/fixtures/probe/decode-offset-behind-a-crash.json"};
  const std::map<std::string, std::string> plant = {
      {"PYTHONPATH", (kSource / "tests/fixtures/plant").string()}};
  std::vector<std::string> gen = {"gen", "--requests", "--from"};
  for (const auto &c : cases)
    gen.push_back(c.string());
  const auto requests = RunInductorFuzz(gen);
  ASSERT_EQ(requests.exit_code, 0) << requests.err;
  std::ofstream(folder_ / "requests.jsonl") << requests.out;

  const fs::path venv = FreshVenv(folder_ / "venv", kSource / ".venv");
  const auto captured = RunPackage(
      venv,
      {"--out", (folder_ / "night").string(), "--cases", (folder_ / "requests.jsonl").string()},
      plant);
  ASSERT_EQ(captured.exit_code, 1) << captured.out << captured.err;
  const auto imported = RunInductorFuzz({"corpus", "import", (folder_ / "night").string(),
                                         "--corpus", (folder_ / "corpus").string()});
  ASSERT_EQ(imported.exit_code, 1) << imported.out << imported.err;

  std::set<std::string> by_import, by_run_case;
  for (const auto &finding : fs::directory_iterator(folder_ / "corpus" / "findings"))
    by_import.insert(ReadJson(finding.path() / "finding.json")["signature"].get<std::string>());
  for (const auto &c : cases) {
    const fs::path out = folder_ / ("run-" + c.stem().string());
    const auto run =
        RunInductorFuzz({"run-case", c.string(), "--out", out.string(), "--probe-runs", "0"},
                        std::chrono::seconds(900), plant);
    const json result = ReadJson(out / "result.json");
    if (result.contains("signature"))
      by_run_case.insert(result["signature"].get<std::string>());
  }
  EXPECT_EQ(by_import.size(), 2u) << imported.out;
  EXPECT_EQ(by_import, by_run_case) << imported.out;
  EXPECT_NE(imported.out.find("sliding-window-two-calls: pass"), std::string::npos) << imported.out;
  // Imported findings are stored as a campaign's: a run record with its sources and repro.py.
  for (const auto &finding : fs::directory_iterator(folder_ / "corpus" / "findings"))
    for (const auto &record : fs::directory_iterator(finding.path() / "records")) {
      EXPECT_TRUE(fs::exists(record.path() / "repro.py")) << record.path();
      EXPECT_FALSE(ReadJson(record.path() / "commands.json")["commands"].empty()) << record.path();
    }
}

} // namespace
} // namespace fuzzer
