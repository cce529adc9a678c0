// A tensor program's reduction (reducers/case/program_passes.cpp, case_passes.cpp) and its
// short repro (short_repro.cpp), without torch: the candidates of each pass on a small program
// with a transposed input, what the other passes leave alone, and the script's text, which
// Python's own parser reads.
#include "corpus/case.h"
#include "fuzzer/worker/worker_python.h"
#include "program_case.h"
#include "reducers/case/case_passes.h"
#include "reducers/case/minimal_repro.h"
#include "reducers/case/program_passes.h"
#include "reducers/case/repro_python.h"

#include "support/child_process.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace {

using corpus::Case;
using nlohmann::json;
using test_support::Program;

const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

std::vector<Case> Candidates(const std::string &pass, const Case &c) {
  const reducers::PassContext context{
      .mask_ast_source =
          std::string(fuzzer::worker::WorkerModuleSource("inductor_fuzz_worker.mask_ast"))};
  return reducers::FindCasePass(pass)->candidates(c, context);
}

// Every candidate is a case the reader takes back as it is: its views inside their storages.
void ExpectValid(const std::vector<Case> &candidates) {
  for (const auto &candidate : candidates)
    EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(candidate)), candidate)
        << corpus::CaseToJson(candidate).dump();
}

const corpus::CapturedTensor &TensorOf(const Case &c, const corpus::ProgramInput &input) {
  return *std::find_if(c.tensors.begin(), c.tensors.end(),
                       [&](const auto &tensor) { return tensor.name == input.tensor; });
}

TEST(ProgramPasses, ContiguousInputsReadTheSameValuesFromAStorageOfExactlyThem) {
  const Case c = Program();
  const auto candidates = Candidates("contiguous-inputs", c);
  ASSERT_EQ(candidates.size(), 1u); // x1 is contiguous over exactly its storage already
  ExpectValid(candidates);
  const auto &input = candidates[0].tensor_program->inputs[0];
  EXPECT_EQ(input.size, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(input.stride, (std::vector<std::int64_t>{4, 1}));
  EXPECT_EQ(input.offset, 0);
  const auto &storage = TensorOf(candidates[0], input);
  ASSERT_EQ(storage.reals.size(), 12u);
  const auto &original = c.tensors[0].reals;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(storage.reals[i * 4 + j], original[2 + i * 1 + j * 3]) << i << ", " << j;
  EXPECT_EQ(candidates[0].tensor_program->inputs[1], c.tensor_program->inputs[1]);
  EXPECT_TRUE(Candidates("contiguous-inputs", candidates[0]).empty()); // a fixed point

  // Two views of one storage: the one made contiguous gets a storage of its own; then all.
  Case shared = c;
  shared.tensor_program->inputs[1] = {.tensor = "t0", .size = {4, 2}, .stride = {1, 4}};
  const auto both = Candidates("contiguous-inputs", shared);
  ASSERT_EQ(both.size(), 3u);
  ExpectValid(both);
  EXPECT_EQ(both[0].tensors.size(), 3u);
  EXPECT_EQ(both[0].tensor_program->inputs[0].tensor, "t2");
  EXPECT_EQ(both[0].tensor_program->inputs[1], shared.tensor_program->inputs[1]);
  EXPECT_EQ(TensorOf(both[2], both[2].tensor_program->inputs[1]).reals,
            reducers::program::ViewValues(c.tensors[0], shared.tensor_program->inputs[1]).reals);
}

TEST(ProgramPasses, ShrinkInputsCutsADimensionAndTheStorageToWhatTheViewReaches) {
  const Case c = Program();
  const auto candidates = Candidates("shrink-inputs", c);
  ExpectValid(candidates);
  ASSERT_FALSE(candidates.empty());
  // The storages alone first: x0 reaches 2 + 2 * 1 + 3 * 3 + 1 = 14 of 14, x1 8 of 8: nothing
  // to cut, so the first is the shared extent 4 (x0's columns, x1's rows) made 1 in both.
  EXPECT_EQ(candidates[0].tensor_program->inputs[0].size, (std::vector<std::int64_t>{3, 1}));
  EXPECT_EQ(candidates[0].tensor_program->inputs[1].size, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(candidates[0].tensors[0].reals.size(), 5u); // 2 + 2 * 1 + 1
  EXPECT_EQ(candidates[0].tensors[1].reals.size(), 2u);
  bool one_alone = false;
  for (const auto &candidate : candidates) {
    for (std::size_t i = 0; i < 2; ++i)
      EXPECT_EQ(static_cast<std::int64_t>(candidate.tensors[i].size()),
                reducers::program::Reach(candidate.tensor_program->inputs[i]));
    one_alone |= candidate.tensor_program->inputs[0].size == std::vector<std::int64_t>{1, 4} &&
                 candidate.tensor_program->inputs[1] == c.tensor_program->inputs[1];
  }
  EXPECT_TRUE(one_alone); // x0's rows to 1, x1 kept as it is
}

TEST(ProgramPasses, DynamicMarksAndDtypesGoOneStepAtATime) {
  Case c = Program();
  const auto dropped = Candidates("drop-dynamic", c);
  ASSERT_EQ(dropped.size(), 3u); // all, then each
  EXPECT_TRUE(dropped[0].tensor_program->dynamic.empty());
  EXPECT_EQ(dropped[1].tensor_program->dynamic, (std::vector<std::vector<std::int64_t>>{{1, 1}}));
  EXPECT_TRUE(Candidates("drop-dynamic", dropped[0]).empty());

  c.tensors[0].dtype = "float64";
  c.tensors[0].reals[1] = 0.1; // no float32: rounded to the nearest one
  c.tensors[1].dtype = "bfloat16";
  const auto simpler = Candidates("simplify-dtypes", c);
  ASSERT_EQ(simpler.size(), 3u);
  ExpectValid(simpler);
  EXPECT_EQ(simpler[0].tensors[0].dtype, "float32");
  EXPECT_EQ(simpler[0].tensors[1].dtype, "float32");
  EXPECT_EQ(simpler[0].tensors[0].reals[1], static_cast<double>(0.1f));
  EXPECT_EQ(simpler[1].tensors[1].dtype, "bfloat16");
}

TEST(ProgramPasses, TheOtherPassesLeaveTheProgramsShapesAndStoragesAlone) {
  const Case c = Program();
  for (const char *pass : {"demote-api", "shrink-shapes", "simplify-attention", "drop-score-mod"})
    EXPECT_TRUE(Candidates(pass, c).empty()) << pass;
  const auto tensors = Candidates("shrink-tensors", c);
  EXPECT_FALSE(tensors.empty()); // filled with 0 and 1, never shorter nor dropped
  for (const auto &candidate : tensors) {
    ASSERT_EQ(candidate.tensors.size(), 2u);
    EXPECT_EQ(candidate.tensors[0].reals.size(), 14u);
    EXPECT_EQ(candidate.tensors[1].reals.size(), 8u);
  }
  EXPECT_EQ(reducers::CaseVolume(c), 14 + 8 + 12 + 8);
  std::vector<std::string> order;
  for (const auto *pass :
       reducers::LoadCasePassOrder(kSourceDir / "reducers" / "case" / "passes.json"))
    order.emplace_back(pass->name);
  for (const char *pass : {"drop-output", "drop-unused", "drop-dynamic", "contiguous-inputs",
                           "shrink-inputs", "simplify-dtypes"})
    EXPECT_NE(std::find(order.begin(), order.end(), pass), order.end()) << pass;
}

TEST(ProgramPasses, SyntaxTreePassesDropOutputsDeadStatementsAndUseTheArgumentsAsLeaves) {
  const Case c = Program();
  const auto sources = [&](const std::string &pass, const Case &from) {
    std::vector<std::string> texts;
    for (const auto &candidate : Candidates(pass, from))
      texts.push_back(candidate.mask_mod->source);
    return texts;
  };
  const auto outputs = sources("drop-output", c);
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_NE(outputs[0].find("return (v3,)"), std::string::npos) << outputs[0];
  EXPECT_NE(outputs[1].find("return (v2,)"), std::string::npos) << outputs[1];
  Case one_output = c;
  one_output.mask_mod->source = outputs[1];
  const auto unused = sources("drop-unused", one_output);
  ASSERT_FALSE(unused.empty());
  EXPECT_EQ(unused[0], "def program(x0, x1):\n    v0 = torch.mm(x0, x1)\n    v1 = torch.relu(v0)\n"
                       "    v2 = v1.sum(dim=0, keepdim=True)\n    x0.mul_(2)\n    return (v2,)\n");
  const auto children = sources("replace-by-child", c);
  EXPECT_NE(std::find_if(children.begin(), children.end(),
                         [](const std::string &s) { return s.find("v0 = x0\n") != s.npos; }),
            children.end());
  for (const auto &leaf : sources("replace-by-leaf", c))
    EXPECT_EQ(leaf.find("q_idx"), std::string::npos) << leaf;
  EXPECT_GT(reducers::ExpressionNodes(
                c, {.mask_ast_source = std::string(
                        fuzzer::worker::WorkerModuleSource("inductor_fuzz_worker.mask_ast"))}),
            10);
}

TEST(ProgramRepro, TheShortFormBuildsTheViewsMarksDynamicAndComparesOutputsAndInputs) {
  const Case c = Program();
  const std::string script = reducers::EmitMinimalRepro(c, corpus::FindingKind::kWrongResult,
                                                        "wrong-result|api=tensor_program",
                                                        reducers::ReproConfig::kMinimal);
  for (const char *line :
       {"t0 = torch.tensor(", "def program(x0, x1):\n",
        "    return [torch.as_strided(t0.clone(), [3, 4], [1, 3], 2), "
        "torch.as_strided(t1.clone(), [4, 2], [2, 1])]\n",
        "expected = program(*eager)\n", "torch._dynamo.mark_dynamic(args[0], 0)\n",
        "torch._dynamo.mark_dynamic(args[1], 1)\n",
        "    actual = torch.compile(program, dynamic=None)(*args)\n",
        "torch.testing.assert_close((actual, args), (expected, eager), equal_nan=True)"})
    EXPECT_NE(script.find(line), std::string::npos) << line << "\n" << script;
  EXPECT_EQ(script.find("flex_attention"), std::string::npos) << script;
  const auto lines = std::count(script.begin(), script.end(), '\n');
  EXPECT_LE(lines, 29) << script; // 6 statements, 2 marks: one less each, one line less
  // The general and the call-by-call forms of a program are its short form.
  EXPECT_EQ(reducers::repro::EmitGeneralRepro(c, "wrong-result|api=tensor_program",
                                              reducers::ReproConfig::kMinimal),
            script);
  EXPECT_FALSE(reducers::repro::EmitUnrolledRepro(
      c, corpus::FindingKind::kCompileError, "compile-error|x", reducers::ReproConfig::kMinimal));
  const support::ScratchDir scratch("program-repro-test");
  support::WriteFileAtomically(scratch / "repro.py", script);
  const auto parsed = support::RunCommand(
      {"python3", "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read()); print('parsed')",
       (scratch / "repro.py").string()},
      {}, std::chrono::seconds(60));
  EXPECT_EQ(parsed.status.exit_code, 0) << parsed.output;
}

} // namespace
