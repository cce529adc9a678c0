// A tensor program's short repro (reducers/case/short_repro.cpp) on the real torch of the venv:
// the script a passing program gets passes on its own (exit 0), and one whose compiled result
// differs from eager (torch.rand_like draws other numbers under Inductor) fails with
// assert_close's message.
#include "program_case.h"
#include "reducers/case/minimal_repro.h"

#include "support/child_process.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"

#include <gtest/gtest.h>

#include <fstream>

namespace {

const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

struct ScriptRun {
  int exit_code = -1;
  std::string output;
  std::string script;
};

ScriptRun RunShortRepro(const corpus::Case &c, const support::ScratchDir &scratch,
                        const std::string &name) {
  ScriptRun run;
  run.script = reducers::EmitMinimalRepro(c, corpus::FindingKind::kWrongResult,
                                          "wrong-result|api=tensor_program",
                                          reducers::ReproConfig::kMinimal);
  const auto path = scratch / (name + ".py");
  support::WriteFileAtomically(path, run.script);
  support::SpawnOptions spawn;
  spawn.stderr_file = scratch / (name + ".stderr");
  const auto result =
      support::RunCommand({(kSourceDir / ".venv/bin/python").string(), path.string()}, spawn,
                          std::chrono::seconds(600));
  run.exit_code = result.status.exit_code.value_or(-1);
  run.output = result.output + support::ReadTextFile(spawn.stderr_file, "stderr", 1 << 20);
  return run;
}

TEST(ProgramRepro, TheShortScriptPassesOnAPassingProgramAndFailsOnAWrongResult) {
  const support::ScratchDir scratch("program-repro-run");
  const auto passing = RunShortRepro(test_support::Program(), scratch, "passing");
  EXPECT_EQ(passing.exit_code, 0) << passing.script << passing.output;
  EXPECT_NE(passing.output.find("PASS: compiled and eager agree"), std::string::npos)
      << passing.output;

  const auto wrong =
      RunShortRepro(test_support::Program("def program(x0, x1):\n    v0 = torch.rand_like(x0)\n"
                                          "    return (torch.mm(v0, x1),)\n"),
                    scratch, "wrong");
  EXPECT_NE(wrong.exit_code, 0) << wrong.script << wrong.output;
  EXPECT_NE(wrong.output.find("Tensor-likes are not close"), std::string::npos) << wrong.output;
  EXPECT_EQ(wrong.output.find("PASS"), std::string::npos) << wrong.output;
}

} // namespace
