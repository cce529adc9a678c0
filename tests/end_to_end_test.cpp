// The README's commands on the real torch and compilers: run-case on the seed and doctor.
#include "binary_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace fuzzer {
namespace {

using nlohmann::json;
using testing::RunInductorFuzz;

const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

json ReadJson(const std::filesystem::path &path) { return json::parse(std::ifstream(path)); }

TEST(EndToEnd, RunCaseOnTheCausalSeedWritesResultSourcesAndCommands) {
  const auto out =
      std::filesystem::temp_directory_path() / ("inductor-fuzz-e2e-" + std::to_string(::getpid()));
  const auto run =
      RunInductorFuzz({"run-case", (kSourceDir / "corpus/seeds/causal-151290.json").string(),
                       "--out", out.string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("result: pass"), std::string::npos) << run.out;

  const json result = ReadJson(out / "result.json");
  EXPECT_EQ(result["status"], "pass");
  EXPECT_EQ(result["provenance"]["torch_version"].get<std::string>().substr(0, 6), "2.15.0");
  EXPECT_NE(result["provenance"]["command_line"].get<std::string>().find("run-case"),
            std::string::npos);
  const json commands = ReadJson(out / "commands.json");
  ASSERT_GE(commands.size(), 1u);
  for (const auto &command : commands) {
    EXPECT_GE(command["argv"].size(), 3u);
    for (const auto &source : command["sources"])
      EXPECT_TRUE(std::filesystem::exists(out / source["stored"].get<std::string>()));
  }
  EXPECT_GE(result["wrappers"].size(), 1u);
  EXPECT_EQ(ReadJson(out / "case.json")["name"], "causal-151290");
  std::filesystem::remove_all(out);
}

TEST(EndToEnd, DoctorFindsOneLibtorchAndACompilerThatBuildsInductorCode) {
  const auto run = RunInductorFuzz({"doctor", "--json", "--compilers", "g++-12"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json report = json::parse(run.out);
  EXPECT_EQ(report["libtorch_copies"], 1);
  EXPECT_EQ(report["torch_version"].get<std::string>().substr(0, 6), "2.15.0");
  ASSERT_EQ(report["compilers"].size(), 1u);
  EXPECT_EQ(report["compilers"][0]["name"], "g++-12");
  EXPECT_TRUE(report["compilers"][0]["builds_inductor_tu"].get<bool>());
  EXPECT_NE(report["compilers"][0]["version"].get<std::string>(), "");
  EXPECT_TRUE(report["sys_executable_runs_python"].get<bool>());
}

} // namespace
} // namespace fuzzer
