// `inductor-fuzz capture -- python ...`: a user's own program run under the capture, on the
// real torch. The folder it writes goes to check and matrix as run-case's does.
#include "binary_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace fuzzer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::RunInductorFuzz;

const fs::path kSource = INDUCTOR_FUZZ_SOURCE_DIR;
const fs::path kFixtures = kSource / "tests/fixtures/capture";

class CaptureTest : public ::testing::Test {
protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("inductor-fuzz-capture-test-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path folder_;
};

// `scripts/test --full` only (tests/CMakeLists.txt).
class CaptureFullTier : public CaptureTest {};

json ReadJson(const fs::path &path) { return json::parse(std::ifstream(path)); }

// Two compiled functions, each called twice: every TU and its command is stored, the kernels'
// calls are recorded, and check and matrix take the folder.
TEST_F(CaptureTest, TwoCompiledFunctionsGoToCheckAndMatrix) {
  const auto run = RunInductorFuzz({"capture", "--out", (folder_ / "cap").string(), "--", "python",
                                    (kFixtures / "two_functions.py").string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("| both functions match eager"), std::string::npos) << run.out;
  const json commands = ReadJson(folder_ / "cap" / "commands.json")["commands"];
  std::vector<std::string> kernels;
  std::size_t recorded = 0;
  for (const auto &command : commands)
    for (const auto &source : command.value("sources", json::array()))
      if (source.value("stored", "").ends_with(".main.cpp")) {
        kernels.push_back(source["stored"]);
        recorded += command.contains("recording");
      }
  EXPECT_EQ(kernels.size(), 2u) << commands.dump(2);
  EXPECT_EQ(recorded, 2u) << "each function's kernel module has its calls recorded";
  const json capture = ReadJson(folder_ / "cap" / "capture.json");
  EXPECT_EQ(capture["exit"], "exit code 0");
  EXPECT_EQ(capture["program"][0], (kFixtures / "two_functions.py").string());
  EXPECT_TRUE(capture["provenance"].contains("tool_version"));
  // Two graphs, one float output each, both calls referenced: the first two of each graph.
  EXPECT_EQ(capture["float64_references"], 4) << capture.dump(2);
  EXPECT_EQ(capture["reference_skipped"], json::array());
  EXPECT_NE(run.out.find("4 graph output(s) with a float64 reference"), std::string::npos)
      << run.out;

  std::vector<std::string> check = {"check", "--commands",
                                    (folder_ / "cap" / "commands.json").string()};
  for (const auto &kernel : kernels)
    check.push_back((folder_ / "cap" / kernel).string());
  const auto checked = RunInductorFuzz(check);
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
  EXPECT_NE(checked.out.find("2 file(s), 0 finding(s)"), std::string::npos) << checked.out;

  const auto matrix = RunInductorFuzz({"matrix", (folder_ / "cap").string(), "--compilers",
                                       "g++-12", "--json", (folder_ / "matrix.json").string()});
  EXPECT_EQ(matrix.exit_code, 0) << matrix.out << matrix.err;
  std::size_t replayed = 0;
  const json record = ReadJson(folder_ / "matrix.json");
  for (const auto &row : record["tus"])
    if (row.value("reference_runtime", "") == "same") {
      ++replayed;
      EXPECT_EQ(row["builds"][0]["runtime"], "same") << row.dump(2);
    }
  EXPECT_EQ(replayed, 2u) << matrix.err;
}

TEST_F(CaptureTest, APytestTestIsCaptured) {
  const auto run = RunInductorFuzz({"capture", "--out", (folder_ / "cap").string(), "--", "python",
                                    "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                    (kFixtures / "test_compiled_mask.py").string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("1 passed"), std::string::npos) << run.out;
  const json commands = ReadJson(folder_ / "cap" / "commands.json")["commands"];
  EXPECT_TRUE(std::any_of(commands.begin(), commands.end(), [](const json &command) {
    return command.contains("recording");
  })) << commands.dump(2);
  EXPECT_EQ(ReadJson(folder_ / "cap" / "capture.json")["program"][1], "pytest");
}

// A program that fails after compiling: exit 1, and what it compiled is stored all the same.
TEST_F(CaptureTest, AFailingProgramStillLeavesWhatItCompiled) {
  const auto run = RunInductorFuzz({"capture", "--out", (folder_ / "cap").string(), "--", "python",
                                    (kFixtures / "fails_after_compiling.py").string()});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const json capture = ReadJson(folder_ / "cap" / "capture.json");
  EXPECT_EQ(capture["outcome"]["exception"]["type"], "RuntimeError");
  EXPECT_FALSE(ReadJson(folder_ / "cap" / "commands.json")["commands"].empty());
}

// repro --run on a hand-written case: its script passes; with a test plant corrupting the
// compiled result, it fails, so repro's exit says whether the case reproduces.
TEST_F(CaptureFullTier, ReproRunsTheScriptOfAHandWrittenCase) {
  const auto passing =
      RunInductorFuzz({"repro", (kSource / "tests/fixtures/sanitizer/mask_kv100.json").string(),
                       "--out", (folder_ / "repro.py").string(), "--run"});
  EXPECT_EQ(passing.exit_code, 0) << passing.out << passing.err;
  EXPECT_NE(passing.out.find("PASS: eager and compiled agree"), std::string::npos) << passing.out;
  const auto planted =
      RunInductorFuzz({"repro", (kSource / "tests/fixtures/sanitizer/mask_kv100.json").string(),
                       "--out", (folder_ / "repro.py").string(), "--run"},
                      std::chrono::seconds(900), {{"INDUCTOR_FUZZ_TEST_PLANT", "flip-one-block"}});
  EXPECT_EQ(planted.exit_code, 1) << planted.out << planted.err;
  EXPECT_NE(planted.out.find("fails (reproduces)"), std::string::npos) << planted.out;
}

const fs::path kMasks = kSource / "tests/fixtures/convert/masks.py";

// A user's own mask module: convert makes a self-contained case of one of its masks (the int32
// table it reads comes along), the case runs and its standalone script passes as the worker
// does; run-case takes the module directly; a package import is warned about. (Refusals of a
// module, a missing name or a failing import, are tested on the worker's converter, in
// tests/python/test_convert.py.)
// An AOTInductor program (export, aoti_compile_and_package, load, run) runs under the capture
// as it runs without it: the float64 reference leaves AOTInductor's compile alone (it once
// wrapped its artifacts, and compile_fx_aot failed; found on a GPU runner), and every TU of the
// package is stored with its command.
TEST_F(CaptureFullTier, AnAotInductorProgramRunsUnderTheCaptureAndItsTusAreStored) {
  const auto run = RunInductorFuzz({"capture", "--out", (folder_ / "cap").string(), "--", "python",
                                    (kFixtures / "aoti_program.py").string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("| aoti max error 0.0"), std::string::npos) << run.out;
  const json commands = ReadJson(folder_ / "cap" / "commands.json");
  std::size_t sources = 0;
  for (const auto &command : commands["commands"])
    sources += command["sources"].size();
  EXPECT_GE(sources, 2u) << commands.dump(2);
}

TEST_F(CaptureFullTier, AConvertedMaskModuleRunsAndReproduces) {
  fs::create_directories(folder_);
  const fs::path case_file = folder_ / "document.json";
  const auto convert = RunInductorFuzz({"convert", kMasks.string(), "--mask", "document", "--shape",
                                        "1,1,256,256", "--out", case_file.string()});
  ASSERT_EQ(convert.exit_code, 0) << convert.out << convert.err;
  const json c = ReadJson(case_file);
  EXPECT_EQ(c["format_version"], 2);
  ASSERT_EQ(c["tensors"].size(), 1u) << c.dump(2);
  EXPECT_EQ(c["tensors"][0]["dtype"], "int32");
  EXPECT_EQ(c["mask_mod"]["source"].get<std::string>().find("masks"), std::string::npos)
      << "the case does not import the module it came from";
  EXPECT_EQ(c["inductor"], json::object()) << "every knob is left to Inductor";

  const auto run =
      RunInductorFuzz({"run-case", case_file.string(), "--out", (folder_ / "run").string()});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  const json result = ReadJson(folder_ / "run" / "result.json");
  EXPECT_EQ(result["status"], "pass");
  EXPECT_TRUE(result["knobs_in_force"].contains("cpp.threads")) << result.dump(2);
  const auto repro = RunInductorFuzz(
      {"repro", case_file.string(), "--out", (folder_ / "repro.py").string(), "--run"});
  EXPECT_EQ(repro.exit_code, 0) << repro.out << repro.err;
  EXPECT_NE(repro.out.find("PASS: eager and compiled agree"), std::string::npos) << repro.out;

  const auto direct = RunInductorFuzz({"run-case", kMasks.string(), "--mask", "sliding_causal",
                                       "--api", "create_mask", "--shape", "1,1,200,200", "--out",
                                       (folder_ / "direct").string()});
  EXPECT_EQ(direct.exit_code, 0) << direct.out << direct.err;
  const json direct_case = ReadJson(folder_ / "direct" / "case.json");
  EXPECT_EQ(direct_case["constants"], json({{"window", 64}}));

  const auto banded = RunInductorFuzz({"convert", kMasks.string(), "--mask", "banded", "--out",
                                       (folder_ / "banded.json").string()});
  EXPECT_EQ(banded.exit_code, 0) << banded.out << banded.err;
  EXPECT_NE(banded.out.find("warning: the case imports numpy"), std::string::npos) << banded.out;
}

// A 2048 x 2048 bool table: convert keeps it in a sidecar next to a small case file, the case
// runs, and its run record keeps the sidecar too.
TEST_F(CaptureTest, ALargeTableGoesToASidecarAndTheCaseRuns) {
  fs::create_directories(folder_);
  const fs::path case_file = folder_ / "big.json";
  const auto convert =
      RunInductorFuzz({"convert", (kSource / "tests/fixtures/convert/big_table.py").string(),
                       "--mask", "table_mask", "--api", "create_mask", "--shape", "1,1,2048,2048",
                       "--out", case_file.string()});
  ASSERT_EQ(convert.exit_code, 0) << convert.out << convert.err;
  EXPECT_LT(fs::file_size(case_file), 4096u);
  EXPECT_EQ(fs::file_size(folder_ / "big.allowed.bin"), 2048u * 2048u);
  EXPECT_EQ(ReadJson(case_file)["tensors"][0]["file"], "big.allowed.bin");
  const auto run =
      RunInductorFuzz({"run-case", case_file.string(), "--out", (folder_ / "run").string()});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_LT(fs::file_size(folder_ / "run" / "case.json"), 4096u);
  EXPECT_TRUE(fs::exists(folder_ / "run" / "case.allowed.bin"));
}

// The soft-capping score_mod closing over a Python float, called with cap=50.0 and then 30.0:
// the second call recompiles with the cap as a SymFloat and torch 2.15.0 fails; the tool finds
// it as an exception finding of call 1, with a signature free of Dynamo's symbol numbers. The
// case's standalone script fails the same way.
TEST_F(CaptureFullTier, TheSoftCapCalledTwiceIsAnExceptionFinding) {
  const fs::path case_file = kSource / "tests/cases/softcap-two-calls.json";
  const auto run =
      RunInductorFuzz({"run-case", case_file.string(), "--out", (folder_ / "run").string()});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const json result = ReadJson(folder_ / "run" / "result.json");
  EXPECT_EQ(result["kind"], "exception") << result.dump(2);
  EXPECT_EQ(result["call"], 1);
  const std::string signature = result.value("signature", "");
  EXPECT_NE(signature.find("(zf<N>,) can only be of"), std::string::npos) << signature;
  EXPECT_NE(signature.find("SymFloat"), std::string::npos) << signature;
  const auto repro = RunInductorFuzz(
      {"repro", case_file.string(), "--out", (folder_ / "repro.py").string(), "--run"});
  EXPECT_EQ(repro.exit_code, 1) << repro.out << repro.err;
  EXPECT_NE(repro.out.find("SymFloat"), std::string::npos) << repro.out;
}

// A version 2 case with flex_attention's options at once: q/k/v and a ready-made BlockMask from
// captured bf16 and int32 tensors, scale and kernel_options. It runs and matches eager.
TEST_F(CaptureFullTier, AVersion2CaseWithFlexOptionsRuns) {
  const auto run =
      RunInductorFuzz({"run-case", (kSource / "tests/cases/flex-options-v2.json").string(), "--out",
                       (folder_ / "run").string()});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  const json result = ReadJson(folder_ / "run" / "result.json");
  EXPECT_EQ(result["status"], "pass") << result.dump(2);
  EXPECT_LE(result["attention_errors"]["compiled"]["max_abs_error"].get<double>(),
            result["attention_errors"]["limit"].get<double>());
  // The builds go to commands.json (result.json has no "builds": reading it from a const json
  // was undefined behaviour that happened to pass).
  EXPECT_FALSE(ReadJson(folder_ / "run" / "commands.json")["commands"].empty());
}

TEST_F(CaptureTest, BadProgramsAndFoldersAreOneLineErrors) {
  fs::create_directories(folder_ / "theirs");
  std::ofstream(folder_ / "theirs" / "notes.txt") << "keep me\n";
  for (const auto &[arguments, expected] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--out", (folder_ / "a").string(), "--", "ls", "-l"}, "give `python ls -l`"},
           {{"--out", (folder_ / "a").string(), "--", "python", "missing.py"},
            "missing.py is not a file"},
           {{"--out", (folder_ / "a").string()}, "give the program after `--`"},
           {{"--out", (folder_ / "a").string(), "--", "python", "-c", "print(1)"},
            "python option -c is not supported"},
           {{"--out", (folder_ / "theirs").string(), "--", "python",
             (kFixtures / "two_functions.py").string()},
            "holds notes.txt, which capture did not write"}}) {
    std::vector<std::string> argv = {"capture"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const auto run = RunInductorFuzz(argv, std::chrono::seconds(60));
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_NE(run.err.find(expected), std::string::npos) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }
  EXPECT_FALSE(fs::exists(folder_ / "a"));
  std::ifstream kept(folder_ / "theirs" / "notes.txt");
  std::string line;
  std::getline(kept, line);
  EXPECT_EQ(line, "keep me");
}

} // namespace
} // namespace fuzzer
