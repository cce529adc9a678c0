// The README's commands on the real torch and compilers: run-case on the seed and doctor.
#include "binary_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

namespace fuzzer {
namespace {

using nlohmann::json;
using test_support::RunInductorFuzz;

const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

json ReadJson(const std::filesystem::path &path) { return json::parse(std::ifstream(path)); }

// The output folder's name has a space: Inductor's compiler commands, which it writes with that
// cache folder in them unquoted, must not split there (issue 65: a false compile error).
TEST(EndToEnd, RunCaseOnTheCausalSeedWritesResultSourcesAndCommands) {
  const auto out =
      std::filesystem::temp_directory_path() / ("inductor-fuzz e2e " + std::to_string(::getpid()));
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
  const json commands_file = ReadJson(out / "commands.json");
  EXPECT_EQ(commands_file["format_version"], result["format_version"]);
  const json commands = commands_file["commands"];
  ASSERT_GE(commands.size(), 1u);
  for (const auto &command : commands) {
    EXPECT_GE(command["argv"].size(), 3u);
    for (const auto &source : command["sources"])
      EXPECT_TRUE(std::filesystem::exists(out / source["stored"].get<std::string>()));
  }
  EXPECT_GE(result["wrappers"].size(), 1u);
  EXPECT_EQ(ReadJson(out / "case.json")["name"], "causal-151290");

  // The captured TUs, each parsed by Clang with its own captured flags, are clean.
  std::vector<std::string> check = {"check", "--format", "json", "--commands",
                                    (out / "commands.json").string()};
  for (const auto &command : commands)
    for (const auto &source : command["sources"])
      check.push_back((out / source["stored"].get<std::string>()).string());
  const auto clean = RunInductorFuzz(check);
  ASSERT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  const json clean_report = json::parse(clean.out);
  EXPECT_TRUE(clean_report["findings"].empty()) << clean.out;
  for (const auto &file : clean_report["files"])
    EXPECT_TRUE(file["precompiled_prefix"].get<bool>());
  // The folder itself stands for its sources and their commands: the same files, the same verdict.
  const auto folder = RunInductorFuzz({"check", "--format", "json", out.string()});
  ASSERT_EQ(folder.exit_code, 0) << folder.out << folder.err;
  const json folder_report = json::parse(folder.out);
  EXPECT_TRUE(folder_report["findings"].empty()) << folder.out;
  EXPECT_EQ(folder_report["files"].size(), clean_report["files"].size()) << folder.out;

  // With the prefix cache on a full disk (a 2 MiB tmpfs in a mount namespace of its own), the
  // TUs are analysed without a prefix: the same verdict, where Clang used to end the process.
  const auto full_disk = out / "full-disk";
  std::filesystem::create_directories(full_disk);
  std::vector<std::string> on_full_disk = {
      "unshare",
      "-Urm",
      "sh",
      "-c",
      "mount -t tmpfs -o size=2m tmpfs \"$1\" || exit 77; shift; exec \"$@\"",
      "sh",
      full_disk.string(),
      INDUCTOR_FUZZ_BINARY};
  on_full_disk.insert(on_full_disk.end(), check.begin(), check.end());
  on_full_disk.insert(on_full_disk.end(), {"--cache-dir", full_disk.string()});
  const auto no_room = support::RunCommand(on_full_disk, {.stderr_file = out / "full-disk.err"},
                                           std::chrono::seconds(600));
  std::stringstream no_room_err;
  no_room_err << std::ifstream(out / "full-disk.err").rdbuf();
  if (no_room.status.exit_code == 77) {
    std::cerr << "no mount namespace here: the full-disk check is skipped\n";
  } else {
    ASSERT_EQ(no_room.status.exit_code, 0) << no_room.output << no_room_err.str();
    EXPECT_EQ(no_room_err.str().find("LLVM ERROR"), std::string::npos) << no_room_err.str();
    const json no_room_report = json::parse(no_room.output);
    EXPECT_TRUE(no_room_report["findings"].empty()) << no_room.output;
    for (const auto &file : no_room_report["files"])
      EXPECT_FALSE(file["precompiled_prefix"].get<bool>());
  }

  // The same TU with tmp_acc0_arr declared twice in one scope: exactly one finding.
  const auto original = out / commands[0]["sources"][0]["stored"].get<std::string>();
  std::ifstream in(original);
  std::ofstream modified(out / "sources" / "modified.cpp");
  std::string line;
  unsigned number = 0, first = 0;
  while (std::getline(in, line)) {
    modified << line << "\n";
    ++number;
    if (!first && line.find('{') != std::string::npos && number > 10) {
      const auto indent = line.substr(0, line.find('{')) + "    ";
      modified << indent << "float tmp_acc0_arr[8];\n" << indent << "float tmp_acc0_arr[8];\n";
      first = number + 1;
      number += 2;
    }
  }
  modified.close();
  ASSERT_GT(first, 0u);
  std::vector<std::string> broken = {"check", "--format", "json",
                                     (out / "sources" / "modified.cpp").string(), "--"};
  const auto argv = commands[0]["argv"].get<std::vector<std::string>>();
  broken.insert(broken.end(), argv.begin() + 1, argv.end());
  const auto found = RunInductorFuzz(broken);
  ASSERT_EQ(found.exit_code, 1) << found.out << found.err;
  const json findings = json::parse(found.out)["findings"];
  ASSERT_EQ(findings.size(), 1u) << found.out;
  EXPECT_EQ(findings[0]["kind"], "conflicting-declaration");
  EXPECT_EQ(findings[0]["check"], "variable-redeclared");
  EXPECT_EQ(findings[0]["name"], "tmp_acc0_arr");
  EXPECT_EQ(findings[0]["previous"]["line"], first);
  EXPECT_EQ(findings[0]["location"]["line"], first + 1);
  EXPECT_EQ(findings[0]["type"], "float[8]");
  EXPECT_EQ(findings[0]["kernel"], "kernel");
  std::filesystem::remove_all(out);
}

// API misuse is no finding: a mask that reads h, with a block mask made for H=None and used on
// three heads, is what a 30-minute campaign once reported as a wrong result. run-case calls it
// invalid-case in phase 'contract' with the reason, exits 2, and compiles nothing.
TEST(EndToEnd, RunCaseOnAMaskThatReadsHWithAnHNoneBlockMaskIsAnInvalidCase) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("inductor-fuzz-e2e-misuse-" + std::to_string(::getpid()));
  const auto run = RunInductorFuzz(
      {"run-case", (kSourceDir / "tests/cases/misuse-heads-none-reads-h.json").string(), "--out",
       out.string()});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("it breaks an API contract (phase 'contract'): mask_mod reads h but the "
                         "block mask was made with H=None: create_block_mask's H=None means the "
                         "mask is the same for every head, and here head 1 of 3 differs from "
                         "head 0"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "one line: " << run.err;
  const json result = ReadJson(out / "result.json");
  EXPECT_EQ(result["status"], "invalid-case");
  EXPECT_EQ(result["phase"], "contract");
  EXPECT_FALSE(result.contains("signature"));
  EXPECT_EQ(result["exception"]["type"], "inductor_fuzz_worker.oracles.ApiContractError");
  EXPECT_TRUE(ReadJson(out / "commands.json")["commands"].empty())
      << "nothing compiles for a broken case";
  // Its standalone script stops there too, and `repro --run` says the case is invalid.
  const auto repro = RunInductorFuzz(
      {"repro", (kSourceDir / "tests/cases/misuse-heads-none-reads-h.json").string(), "--out",
       (out / "repro.py").string(), "--run"});
  EXPECT_EQ(repro.exit_code, 2) << repro.out << repro.err;
  EXPECT_NE(repro.out.find("INVALID CASE: call 1 failed in phase 'contract'"), std::string::npos)
      << repro.out;
  EXPECT_NE(repro.err.find("the case is invalid, not a finding"), std::string::npos) << repro.err;
  std::filesystem::remove_all(out);
}

// A case is code. One whose mask source writes outside its case folder, or starts a process, is
// refused in one line naming the case's line, exit 2, and nothing is written outside; with
// --no-confine the user vouches for it and it runs.
TEST(EndToEnd, ACaseThatWritesOutsideOrStartsAProcessIsRefused) {
  namespace fs = std::filesystem;
  const auto folder =
      fs::temp_directory_path() / ("inductor-fuzz-e2e-hostile-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder / "outside");
  json seed = ReadJson(kSourceDir / "corpus/seeds/causal-151290.json");
  const std::string mask = seed["mask_mod"]["source"];
  struct Hostile {
    std::string name, statement, refusal, trace;
  };
  const std::vector<Hostile> hostiles = {
      {"writes", "open('" + (folder / "outside" / "written").string() + "', 'w').write('x')\n",
       "tried to write " + (folder / "outside" / "written").string(), "written"},
      {"spawns",
       "__import__('os').system('touch " + (folder / "outside" / "touched").string() + "')\n",
       "tried to start a process (os.system)", "touched"}};
  for (const auto &hostile : hostiles) {
    seed["mask_mod"]["source"] = hostile.statement + mask;
    const auto case_file = folder / (hostile.name + ".json");
    std::ofstream(case_file) << seed.dump(2);
    const auto run = RunInductorFuzz(
        {"run-case", case_file.string(), "--out", (folder / ("out-" + hostile.name)).string()});
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_NE(run.err.find("refused, not a finding: the case's code at <mask_mod> line 1 " +
                           hostile.refusal),
              std::string::npos)
        << run.err;
    EXPECT_NE(run.err.find("--no-confine"), std::string::npos) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_FALSE(fs::exists(folder / "outside" / hostile.trace)) << hostile.name;
  }
  const auto trusted =
      RunInductorFuzz({"--no-confine", "run-case", (folder / "writes.json").string(), "--out",
                       (folder / "out-trusted").string()});
  EXPECT_EQ(trusted.exit_code, 0) << trusted.out << trusted.err;
  EXPECT_TRUE(fs::exists(folder / "outside" / "written"));
  fs::remove_all(folder);
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
  // What a worker is held to on this machine, in words (no kernel support is said, not hidden).
  const json confinement = report["worker_confinement"];
  EXPECT_TRUE(confinement["requested"].get<bool>()) << confinement.dump();
  EXPECT_FALSE(confinement["network"].get<std::string>().empty());
  EXPECT_FALSE(confinement["writes"].get<std::string>().empty());
}

// A problem is exit 2 and one line on stderr naming it, beside the report on stdout.
TEST(EndToEnd, DoctorSaysItsProblemOnStderr) {
  const auto run = RunInductorFuzz({"doctor", "--compilers", "nosuch-compiler"});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("nosuch-compiler"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("inductor-fuzz: doctor found"), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
}

} // namespace
} // namespace fuzzer
