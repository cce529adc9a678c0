// The repro scripts the tool writes from its templates (fuzzer/worker/templates/case_repro.py.tmpl,
// reducers/templates/*.py.tmpl), tested like code: for the real bugs of
// corpus/findings/reduced/ that keep a case.json and forty generated cases, every form of script
// (the case's repro.py, and a reduced finding's short, unrolled and general forms, minimal and
// complete settings) is Python that parses, and says what it was made from. No torch: Python's own
// parser reads them.
#include "corpus/case.h"
#include "fuzzer/worker/repro_script.h"
#include "fuzzer/worker/worker_python.h"
#include "reducers/case/minimal_repro.h"

#include "support/child_process.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <sstream>

namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

std::vector<corpus::Case> Cases() {
  std::vector<corpus::Case> cases;
  for (const auto &entry : fs::directory_iterator(kSourceDir / "corpus" / "findings" / "reduced"))
    if (fs::exists(entry.path() / "case.json"))
      cases.push_back(corpus::LoadCaseFile(entry.path() / "case.json"));
  const auto generated = support::RunCommand(
      {INDUCTOR_FUZZ_BINARY, "gen", "--seed", "1", "--count", "40"}, {}, std::chrono::seconds(120));
  EXPECT_EQ(generated.status.exit_code, 0) << generated.output;
  std::istringstream lines(generated.output);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("{"))
      cases.push_back(corpus::CaseFromJson(nlohmann::json::parse(line)));
  return cases;
}

TEST(ReproScripts, EveryFormOfEveryCaseIsPythonThatParses) {
  const auto cases = Cases();
  ASSERT_GE(cases.size(), 45u);
  const support::ScratchDir scratch("repro-scripts-test");
  std::size_t written = 0;
  std::map<std::string, int> forms;
  for (const auto &c : cases) {
    const auto write = [&](const std::string &text) {
      support::WriteFileAtomically(scratch.path() / (std::to_string(written++) + ".py"), text);
    };
    const std::string case_script = fuzzer::worker::EmitPythonScript(c);
    EXPECT_NE(case_script.find("inductor-fuzz case " + c.name), std::string::npos);
    write(case_script);
    for (const auto &[kind, signature] :
         {std::pair<corpus::FindingKind, std::string>{corpus::FindingKind::kCompileError,
                                                      "compile-error|family=gcc|message=x"},
          {corpus::FindingKind::kWrongResult, "wrong-result|x"}})
      for (const auto config :
           {reducers::ReproConfig::kMinimal, reducers::ReproConfig::kComplete}) {
        const std::string repro = reducers::EmitMinimalRepro(c, kind, signature, config);
        EXPECT_TRUE(repro.starts_with("# " + signature)) << repro.substr(0, 200);
        EXPECT_NE(repro.find("Reduced by inductor-fuzz from case " + c.name), std::string::npos);
        const auto has = [&](const char *text) { return repro.find(text) != std::string::npos; };
        forms[has("CALLS = [") ? "general" : has("every call compiled") ? "unrolled" : "short"]++;
        write(repro);
      }
  }
  EXPECT_GT(forms["general"], 0);
  EXPECT_GT(forms["unrolled"], 0);
  EXPECT_GT(forms["short"], 0);
  const auto parsed =
      support::RunCommand({"python3", "-c",
                           "import ast, pathlib, sys\n"
                           "for path in sorted(pathlib.Path(sys.argv[1]).glob('*.py')):\n"
                           "    ast.parse(path.read_text(), str(path))\n"
                           "print('parsed')\n",
                           scratch.path().string()},
                          {}, std::chrono::seconds(120));
  EXPECT_EQ(parsed.status.exit_code, 0) << parsed.output;
}

// The script carries oracles and, before each module, what it imports (found from the modules'
// `from .NAME import` lines, so an API's new module needs no list): each module once, after the
// modules it imports, byte for byte and in that order.
TEST(ReproScripts, CarryEachWorkerModuleAfterWhatItImports) {
  const auto modules = fuzzer::worker::ReproScriptModules();
  ASSERT_FALSE(modules.empty());
  EXPECT_EQ(modules.back(), "oracles");
  for (const char *expected :
       {"apis", "api_base", "api_mask", "api_block_mask", "api_flex_attention", "api_index_program",
        "api_tensor_program", "exceptions", "plants", "compat", "comparisons", "value_judge"})
    EXPECT_NE(std::find(modules.begin(), modules.end(), expected), modules.end()) << expected;
  const auto source = [](const std::string &module) {
    return std::string(fuzzer::worker::WorkerModuleSource("inductor_fuzz_worker." + module));
  };
  for (std::size_t i = 0; i < modules.size(); ++i) {
    EXPECT_EQ(std::count(modules.begin(), modules.end(), modules[i]), 1) << modules[i];
    for (const auto &module : fuzzer::worker::WorkerPythonModules()) {
      const std::string name(module.name.substr(module.name.rfind('.') + 1));
      if (source(modules[i]).find("from ." + name + " import") == std::string::npos)
        continue;
      const auto at = std::find(modules.begin(), modules.end(), name);
      EXPECT_LT(at - modules.begin(), static_cast<std::ptrdiff_t>(i))
          << modules[i] << " imports " << name;
    }
  }
  std::optional<corpus::Case> c;
  for (const auto &entry : fs::directory_iterator(kSourceDir / "corpus" / "findings" / "reduced"))
    if (!c && fs::exists(entry.path() / "case.json"))
      c = corpus::LoadCaseFile(entry.path() / "case.json");
  ASSERT_TRUE(c.has_value());
  const std::string script = fuzzer::worker::EmitPythonScript(*c);
  std::size_t after = 0;
  for (const auto &module : modules) {
    const auto at = script.find(source(module), after);
    ASSERT_NE(at, std::string::npos) << module;
    after = at + 1;
  }
}

} // namespace
