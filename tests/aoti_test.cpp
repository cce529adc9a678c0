// AOTInductor as a program family, end to end on real torch: an aoti case runs through the
// worker (export, aoti_compile_and_package, aoti_load_package, compared with eager), its
// wrapper and kernel TUs are captured with the commands that build them, Clang's analysis
// parses them clean, g++ rebuilds them in the matrix, and the case's repro.py runs on its own.
#include "binary_runner.h"
#include "corpus/case.h"
#include "reducers/case/minimal_repro.h"
#include "support/child_process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

namespace fuzzer {
namespace {

using nlohmann::json;
using test_support::RunInductorFuzz;

const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

json ReadJson(const std::filesystem::path &path) { return json::parse(std::ifstream(path)); }

bool EndsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() && text.ends_with(suffix);
}

TEST(AotiFullTier, CaseRunsCapturesChecksRebuildsAndReproducesStandalone) {
  const auto out =
      std::filesystem::temp_directory_path() / ("inductor-fuzz-aoti-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  const auto case_file = kSourceDir / "tests/cases/aoti-flex-attention.json";
  const auto run = RunInductorFuzz({"run-case", case_file.string(), "--out", out.string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("result: pass"), std::string::npos) << run.out;
  const json result = ReadJson(out / "result.json");
  EXPECT_EQ(result["status"], "pass");
  EXPECT_LE(result["attention_errors"]["compiled"]["max_abs_error"].get<double>(),
            result["attention_errors"]["limit"].get<double>());
  EXPECT_EQ(ReadJson(out / "case.json")["compile_with"], "aoti");

  // AOTInductor's wrapper and kernel TUs, each compiled to an object (-c) and stored with its
  // command; no precompiled header (aot_inductor.precompile_headers stays off).
  const json commands = ReadJson(out / "commands.json")["commands"];
  std::vector<std::string> wrapper_and_kernel;
  for (const auto &command : commands) {
    const auto argv = command["argv"].get<std::vector<std::string>>();
    for (const auto &argument : argv)
      EXPECT_EQ(argument.find("precompiled_headers"), std::string::npos) << argument;
    for (const auto &source : command["sources"]) {
      const std::string path = source["stored"];
      if (!EndsWith(path, ".wrapper.cpp") && !EndsWith(path, ".kernel.cpp"))
        continue;
      EXPECT_NE(std::find(argv.begin(), argv.end(), "-c"), argv.end()) << path;
      EXPECT_TRUE(std::filesystem::exists(out / source["stored"].get<std::string>()));
      wrapper_and_kernel.push_back((out / source["stored"].get<std::string>()).string());
    }
  }
  ASSERT_EQ(wrapper_and_kernel.size(), 2u) << commands.dump(1).substr(0, 4000);
  const std::string wrapper_text = [&] {
    std::ifstream in(wrapper_and_kernel[0].find(".wrapper.") != std::string::npos
                         ? wrapper_and_kernel[0]
                         : wrapper_and_kernel[1]);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  EXPECT_NE(wrapper_text.find("AOTInductorModel"), std::string::npos)
      << "the wrapper TU is AOTInductor's model container";

  // Clang parses both with their captured flags: no error (warnings such as a shadowed local
  // are counted apart), none it could not classify.
  std::vector<std::string> check = {"check", "--format", "json", "--commands",
                                    (out / "commands.json").string()};
  check.insert(check.end(), wrapper_and_kernel.begin(), wrapper_and_kernel.end());
  const auto checked = RunInductorFuzz(check);
  ASSERT_EQ(checked.exit_code, 0) << checked.out << checked.err;
  const json report = json::parse(checked.out);
  EXPECT_EQ(report["errors"], 0) << checked.out;
  for (const auto &finding : report["findings"]) {
    EXPECT_NE(finding["severity"], "error") << finding.dump(2);
    EXPECT_NE(finding["check"], "unclassified-error") << finding.dump(2);
  }
  ASSERT_EQ(report["files"].size(), 2u);
  for (const auto &file : report["files"])
    EXPECT_TRUE(file["fatal_errors"].empty()) << file.dump();

  // The matrix rebuilds both with g++ from the captured commands; an object is not loaded.
  const auto matrix = RunInductorFuzz(
      {"matrix", out.string(), "--compilers", "g++-12", "--json", (out / "matrix.json").string()});
  EXPECT_EQ(matrix.exit_code, 0) << matrix.out << matrix.err;
  std::size_t rebuilt = 0;
  const json record = ReadJson(out / "matrix.json");
  for (const auto &row : record["tus"]) {
    const std::string tu = row["tu"];
    if (!EndsWith(tu, ".wrapper.cpp") && !EndsWith(tu, ".kernel.cpp"))
      continue;
    ASSERT_EQ(row["builds"].size(), 1u);
    EXPECT_TRUE(row["builds"][0]["built"].get<bool>()) << row.dump(2);
    EXPECT_EQ(row["builds"][0]["load_error"], "") << row.dump(2);
    EXPECT_TRUE(row["load_findings"].empty()) << row.dump(2);
    ++rebuilt;
  }
  EXPECT_EQ(rebuilt, 2u) << matrix.out;

  // The case's repro.py exports, packages, loads and compares on its own, and passes.
  const auto repro =
      RunInductorFuzz({"repro", case_file.string(), "--out", (out / "repro.py").string()});
  ASSERT_EQ(repro.exit_code, 0) << repro.out << repro.err;
  support::SpawnOptions spawn;
  spawn.stderr_file = out / "repro.stderr";
  const auto script =
      support::RunCommand({(kSourceDir / ".venv/bin/python").string(), (out / "repro.py").string()},
                          spawn, std::chrono::seconds(900));
  EXPECT_EQ(script.status.exit_code.value_or(-1), 0)
      << script.output << std::ifstream(out / "repro.stderr").rdbuf();
  EXPECT_NE(script.output.find("AOTInductor: torch.export.export"), std::string::npos)
      << script.output;
  EXPECT_NE(script.output.find("PASS: eager and compiled agree"), std::string::npos)
      << script.output;
  std::filesystem::remove_all(out);
}

// convert on a user's module that calls aoti_compile_and_package: the case compiles with aoti.
TEST(AotiConvert, AModuleThatCompilesWithAotInductorMakesAnAotiCase) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("inductor-fuzz-aoti-convert-" + std::to_string(::getpid()) + ".json");
  const auto run = RunInductorFuzz(
      {"convert", (kSourceDir / "tests/fixtures/convert/aoti_module.py").string(), "--mask",
       "sliding_window", "--api", "flex_attention", "--out", out.string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const corpus::Case c = corpus::LoadCaseFile(out);
  EXPECT_EQ(c.compile_with, corpus::kAoti);
  EXPECT_EQ(c.constants, json({{"WINDOW", 64}}));
  std::filesystem::remove(out);
}

// The short script a reduced aoti finding is delivered as compiles through AOTInductor too
// (export in an nn.Module, aoti_compile_and_package, aoti_load_package), not torch.compile, and
// passes on its own for a case that passes; create_block_mask's mask is rebuilt from the tensors
// the module returns.
TEST(AotiFullTier, MinimalReproScriptsCompileWithAotInductorAndPass) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("inductor-fuzz-aoti-minimal-" + std::to_string(::getpid()));
  std::filesystem::create_directories(out);
  corpus::Case flex = corpus::LoadCaseFile(kSourceDir / "tests/cases/aoti-flex-attention.json");
  corpus::Case block = flex;
  block.api = "create_block_mask";
  block.score_mod.reset();
  block.attention.reset();
  for (const auto &[name, c] : {std::pair{"flex", flex}, std::pair{"block", block}}) {
    const std::string script =
        reducers::EmitMinimalRepro(c, corpus::FindingKind::kWrongResult,
                                   "wrong-result|field=output", reducers::ReproConfig::kMinimal);
    EXPECT_NE(script.find(fmt::format("aoti({})", c.api)), std::string::npos) << script;
    EXPECT_EQ(script.find("torch.compile("), std::string::npos) << script;
    const auto path = out / (std::string(name) + ".py");
    std::ofstream(path) << script;
    support::SpawnOptions spawn;
    spawn.stderr_file = out / (std::string(name) + ".stderr");
    const auto run =
        support::RunCommand({(kSourceDir / ".venv/bin/python").string(), path.string()}, spawn,
                            std::chrono::seconds(900));
    EXPECT_EQ(run.status.exit_code.value_or(-1), 0)
        << script << run.output << std::ifstream(spawn.stderr_file).rdbuf();
    EXPECT_NE(run.output.find("PASS: compiled and eager agree"), std::string::npos) << run.output;
  }
  std::filesystem::remove_all(out);
}

} // namespace
} // namespace fuzzer
