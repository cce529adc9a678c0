// The repro scripts the tool writes from its templates (fuzzer/worker/templates/case_repro.py.tmpl,
// reducers/templates/*.py.tmpl), tested like code: for the real bugs of
// corpus/findings/reduced/ that keep a case.json and forty generated cases, every form of script
// (the case's repro.py, and a reduced finding's short, unrolled and general forms, minimal and
// complete settings) is Python that parses, and says what it was made from. No torch: Python's own
// parser reads them.
#include "corpus/case.h"
#include "fuzzer/worker/repro_script.h"
#include "reducers/case/minimal_repro.h"

#include "support/child_process.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
    for (const std::string signature : {"compile-error|family=gcc|message=x", "wrong-result|x"})
      for (const auto config :
           {reducers::ReproConfig::kMinimal, reducers::ReproConfig::kComplete}) {
        const std::string repro = reducers::EmitMinimalRepro(c, signature, config);
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

} // namespace
