// Issue 32's program families on the real torch: one case each (tests/cases/*.json) runs, the
// code path it is for is in what Inductor generated, and compiled agrees with eager; convert
// reaches them from a user's module, and the case reducer's passes take them back to the plain
// form.
#include "binary_runner.h"
#include "corpus/case.h"
#include "fuzzer/generate/generator.h"
#include "fuzzer/generate/policy.h"
#include "reducers/case/case_passes.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace fuzzer {
namespace {

using nlohmann::json;
using test_support::RunInductorFuzz;

const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

json ReadJson(const std::filesystem::path &path) { return json::parse(std::ifstream(path)); }

std::string ReadText(const std::filesystem::path &path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

struct CaseRun {
  json result;
  json commands;
  std::string sources; // every captured TU, one after the other
};

// The fixtures that must pass (compiled agrees with eager): tests/cases/NAME.json.
const std::vector<std::string> kPassingFixtures = {
    "decode-flash-partition", "layout-bshd-transposed",     "float-table-score",
    "knobs-optional",         "from-kv-blocks-strided",     "function-scope-constants",
    "module-buffers",         "index-program-odd-reduction"};

CaseRun ReadRun(const std::filesystem::path &out) {
  CaseRun outcome;
  if (!std::filesystem::exists(out / "result.json"))
    return outcome;
  outcome.result = ReadJson(out / "result.json");
  outcome.commands = ReadJson(out / "commands.json")["commands"];
  for (const auto &command : outcome.commands)
    for (const auto &source : command["sources"])
      outcome.sources += ReadText(out / source["stored"].get<std::string>());
  return outcome;
}

// run-case on every passing fixture at once (one worker, the first time a test asks), and the
// run of tests/cases/NAME.json.
const CaseRun &RunFixture(const std::string &name) {
  static const std::map<std::string, CaseRun> runs = [] {
    const auto out = std::filesystem::temp_directory_path() /
                     ("inductor-fuzz-families-passing-" + std::to_string(::getpid()));
    std::vector<std::string> argv = {"run-case"};
    for (const auto &fixture : kPassingFixtures)
      argv.push_back((kSourceDir / "tests/cases" / (fixture + ".json")).string());
    argv.insert(argv.end(), {"--out", out.string()});
    const auto run = RunInductorFuzz(argv);
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find(fmt::format("{} case(s): {} pass", kPassingFixtures.size(),
                                       kPassingFixtures.size())),
              std::string::npos)
        << run.out << run.err;
    std::map<std::string, CaseRun> read;
    for (const auto &fixture : kPassingFixtures)
      read[fixture] = ReadRun(out / fixture);
    std::filesystem::remove_all(out);
    return read;
  }();
  EXPECT_TRUE(runs.contains(name)) << name << " is not in kPassingFixtures";
  static const CaseRun none;
  return runs.contains(name) ? runs.at(name) : none;
}

TEST(Families, DecodeShapeWithAPartitionSizeReachesFlashDecoding) {
  const CaseRun &run = RunFixture("decode-flash-partition");
  EXPECT_EQ(run.result["status"], "pass");
  EXPECT_NE(run.sources.find("num_kvblocks_per_partition"), std::string::npos)
      << "the flash-decoding template";
  EXPECT_NE(run.sources.find("int64_t PARTITION_SIZE = 256;"), std::string::npos)
      << "kernel_options' PARTITION_SIZE";
}

TEST(Families, TransposedInputsReachTheTemplateWithTheirStrides) {
  const CaseRun &run = RunFixture("layout-bshd-transposed");
  EXPECT_EQ(run.result["status"], "pass");
  // q is [B, S, H, D] = [2, 64, 4, 16] in memory: a row is H * D apart, a head D.
  EXPECT_NE(run.sources.find("int64_t qStrideM = static_cast<int64_t>(64L);"), std::string::npos);
  EXPECT_NE(run.sources.find("int64_t qStrideH = static_cast<int64_t>(16L);"), std::string::npos);
}

TEST(Families, ScoreModReadingBfloat16TablesPassesThemToTheTemplate) {
  const CaseRun &run = RunFixture("float-table-score");
  EXPECT_EQ(run.result["status"], "pass");
  EXPECT_NE(run.sources.find("const at::BFloat16* score_others_0"), std::string::npos);
  EXPECT_NE(run.sources.find("const at::BFloat16* score_others_1"), std::string::npos);
}

TEST(Families, OptionalKnobsArePatchedAndReachTheCompileCommand) {
  const CaseRun &run = RunFixture("knobs-optional");
  EXPECT_EQ(run.result["status"], "pass");
  EXPECT_FALSE(run.result.contains("config_absent")) << run.result.dump();
  bool fast = false;
  for (const auto &command : run.commands)
    for (const auto &argument : command["argv"])
      fast = fast || argument == "-ffp-contract=fast";
  EXPECT_TRUE(fast) << "cpp.enable_floating_point_contract_flag=fast";
}

// convert MODULE.py reaches every family: kernel_options, a layout, optional knobs, and a
// captured bfloat16 table the score_mod reads.
TEST(Families, ConvertMakesCasesOfEveryFamily) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("inductor-fuzz-families-convert-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "mine.py") << "import torch\n"
                                    "slopes = torch.tensor([1.0, 0.5], dtype=torch.bfloat16)\n"
                                    "def causal(b, h, q_idx, kv_idx):\n"
                                    "    return q_idx >= kv_idx\n"
                                    "def alibi(score, b, h, q_idx, kv_idx):\n"
                                    "    return score * slopes[h]\n";
  const auto run = RunInductorFuzz({"convert", (dir / "mine.py").string(), "--mask", "causal",
                                    "--score", "alibi", "--shape", "1,2,1,1024", "--kernel-options",
                                    R"({"PARTITION_SIZE": 256})", "--layout", "expanded-kv",
                                    "--knob", "cpp.use_decompose_tanh=true", "--knob",
                                    "cpp.threads=4", "--out", (dir / "mine.json").string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const corpus::Case c = corpus::LoadCaseFile(dir / "mine.json");
  EXPECT_EQ(c.attention->kernel_options, json({{"PARTITION_SIZE", 256}}));
  EXPECT_EQ(c.attention->layout, "expanded-kv");
  EXPECT_EQ(c.inductor.optional.at("cpp.use_decompose_tanh"), true);
  EXPECT_EQ(c.inductor.cpp_threads, 4);
  EXPECT_FALSE(c.inductor.IsDefaulted("cpp.threads"));
  EXPECT_TRUE(c.inductor.IsDefaulted("cpp.simdlen")) << "the others stay Inductor's";
  ASSERT_EQ(c.tensors.size(), 1u);
  EXPECT_EQ(c.tensors[0].dtype, "bfloat16");

  const auto bad = RunInductorFuzz({"convert", (dir / "mine.py").string(), "--mask", "causal",
                                    "--score", "alibi", "--knob", "cpp.min_chunk_size", "--out",
                                    (dir / "bad.json").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--knob cpp.min_chunk_size is not NAME=VALUE"), std::string::npos)
      << bad.err;
  std::filesystem::remove_all(dir);
}

// Issue 47's block masks and compiled functions on the real torch: a mask rebuilt with
// BlockMask.from_kv_blocks from strided views reaches the template's full-block path and agrees
// with eager; a user's function closing over its int argument, called twice with another
// value, agrees with eager on both calls.
TEST(Families, FromKvBlocksAndACompiledFunctionAgreeWithEager) {
  const CaseRun &strided = RunFixture("from-kv-blocks-strided");
  EXPECT_EQ(strided.result["status"], "pass");
  EXPECT_NE(strided.sources.find("full_kv_num_blocks"), std::string::npos);
  const CaseRun &scoped = RunFixture("function-scope-constants");
  EXPECT_EQ(scoped.result["status"], "pass");
  EXPECT_EQ(scoped.result["calls"], 2);
  // A module's int64 buffer and float parameter reach the kernel as its inputs.
  const CaseRun &module = RunFixture("module-buffers");
  EXPECT_EQ(module.result["status"], "pass");
  EXPECT_NE(module.sources.find("const int64_t*"), std::string::npos);
}

// An index program (a gather over arange with // and %, summed over an odd KV length) compiles
// to Inductor's generic loop code on its own and agrees with eager; the loop-split bug people met
// through create_mask comes out of an index program too, as its known issue.
TEST(Families, IndexProgramsRunOnTheirOwnAndReachTheLoopSplitBug) {
  const CaseRun &reduced = RunFixture("index-program-odd-reduction");
  EXPECT_EQ(reduced.result["status"], "pass");
  // One C++ kernel whose input is the captured int64 table it gathers from.
  EXPECT_NE(reduced.sources.find("kernel(const int64_t* in_ptr0"), std::string::npos);
  const auto out = std::filesystem::temp_directory_path() /
                   ("inductor-fuzz-families-loop-tail-" + std::to_string(::getpid()));
  const auto run = RunInductorFuzz(
      {"run-case", (kSourceDir / "tests/cases/index-program-loop-tail.json").string(), "--out",
       out.string()});
  EXPECT_NE(run.out.find("result: finding (wrong-result)"), std::string::npos) << run.out;
  // The dropped tail reads as memory never written (the worker hands a compiled exact case
  // zeroed blocks, so a freed tensor of eager's values cannot fill it by chance): the known
  // issue's key, the first wrong element at KV index 456 = 512 - 512 % 76.
  const json result = ReadJson(out / "result.json");
  ASSERT_FALSE(result["mismatches"].empty()) << result.dump();
  EXPECT_GE(result["mismatches"][0]["first_index"][3].get<int>(), 456) << result.dump();
  EXPECT_NE(run.out.find("how=unwritten"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("known issue: create-mask-loop-split-index-program"), std::string::npos)
      << run.out << run.err;
  std::filesystem::remove_all(out);
}

// A tensor program whose wrong output comes from torch's int8 amax (pytorch#191499) behind a
// statement that is right: the worker names the first statement wrong on its own, the key
// carries it instead of the fields and where it shows, and the known issue matches by it.
TEST(Families, ATensorProgramsWrongResultNamesItsFirstWrongStatement) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("inductor-fuzz-families-first-wrong-" + std::to_string(::getpid()));
  const auto run = RunInductorFuzz(
      {"run-case", (kSourceDir / "tests/cases/tensor-program-int8-amax-lanes.json").string(),
       "--out", out.string()});
  EXPECT_NE(run.out.find("result: finding (wrong-result)"), std::string::npos) << run.out;
  const json result = ReadJson(out / "result.json");
  ASSERT_TRUE(result.contains("first_wrong")) << result.dump();
  EXPECT_EQ(result["first_wrong"]["index"], 1) << result.dump();
  EXPECT_EQ(result["first_wrong"]["statement"], "v1 = torch.amax(x0, dim=1)");
  const auto key_at = run.out.find("bug key: ");
  ASSERT_NE(key_at, std::string::npos) << run.out;
  const std::string key = run.out.substr(key_at, run.out.find('\n', key_at) - key_at);
  EXPECT_TRUE(key.starts_with("bug key: wrong-result|api=tensor_program|first=amax(int8)->int8|"))
      << key;
  EXPECT_EQ(key.find("fields="), std::string::npos) << key;
  EXPECT_EQ(key.find("where="), std::string::npos) << key;
  EXPECT_NE(run.out.find("known issue: cpu-small-int-minmax-reduction-inactive-lanes"),
            std::string::npos)
      << run.out << run.err;
  std::filesystem::remove_all(out);
}

// Three bugs people found by hand are cases of these dimensions, and come out as their known
// issues: expanded partial-block tensors beside strided full ones
// (flex-cpu-full-kv-num-blocks-strides), a compiled function's int argument named n0 under
// dynamic=True (flex-cpu-dynamic-splitsize-symbol-collision), and a module's 8-element parameter
// exported for AOTInductor (flex-cpu-aoti-small-constant-inlined).
// run-case on several case files at once (one worker): each case's block of the output, by
// the file it ran, and the exit code.
std::pair<int, std::map<std::string, std::string>>
RunCasesTogether(const std::string &name, const std::vector<std::string> &files) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("inductor-fuzz-families-" + name + "-" + std::to_string(::getpid()));
  std::vector<std::string> argv = {"run-case"};
  for (const auto &file : files)
    argv.push_back((kSourceDir / file).string());
  argv.insert(argv.end(), {"--out", out.string()});
  const auto run = RunInductorFuzz(argv);
  std::map<std::string, std::string> blocks;
  std::string *block = nullptr;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("run-case ")) {
      block = nullptr;
      for (const auto &file : files)
        if (line.ends_with((kSourceDir / file).string()))
          block = &blocks[file];
    }
    if (block)
      *block += line + "\n";
  }
  EXPECT_EQ(blocks.size(), files.size()) << run.out << run.err;
  std::filesystem::remove_all(out);
  return {run.exit_code, blocks};
}

void ExpectKnownIssues(const std::string &name,
                       const std::vector<std::pair<std::string, std::string>> &expected) {
  std::vector<std::string> files;
  for (const auto &[file, known] : expected)
    files.push_back(file);
  const auto [exit_code, blocks] = RunCasesTogether(name, files);
  EXPECT_EQ(exit_code, 1);
  for (const auto &[file, known] : expected) {
    const std::string block = blocks.contains(file) ? blocks.at(file) : "";
    EXPECT_NE(block.find("result: finding ("), std::string::npos) << file << "\n" << block;
    EXPECT_NE(block.find("known issue: " + known), std::string::npos) << file << "\n" << block;
  }
}

TEST(FamiliesFullTier, HandFoundBugsAreCasesOfTheNewDimensions) {
  ExpectKnownIssues(
      "hand-found",
      {{"tests/cases/from-kv-blocks-expanded.json", "flex-cpu-full-kv-num-blocks-strides"},
       {"tests/cases/function-scope-n0-collision.json",
        "flex-cpu-dynamic-splitsize-symbol-collision"},
       {"tests/cases/module-buffers-aoti.json", "flex-cpu-aoti-small-constant-inlined"}});
}

// The bugs the issue-47 campaigns (seeds 4747 and 4848) found where no person had looked, each
// reduced to a case: run-case shows each as its known issue. The index programs stand for the
// create_mask cases the campaign met them in.
TEST(FamiliesFullTier, CampaignFoundBugsAreKnownIssues) {
  ExpectKnownIssues(
      "campaign-found",
      {{"tests/cases/index-program-trunc-div-range.json", "inductor-trunc-div-value-range"},
       {"tests/cases/index-program-sign-range.json", "inductor-sign-value-range"},
       {"tests/cases/index-program-uint8-wrap.json", "inductor-uint8-index-wrap"},
       {"corpus/findings/reduced/compile-error-force-inline-kernel-gcc/case.json",
        "cpu-force-inline-kernel-gcc"},
       {"tests/cases/flex-mask-abs-int16-max.json", "cpu-abs-small-int-max-propagate-nan"},
       // Issue 63's op programs (seed 63).
       {"tests/cases/index-program-bool-le-value-range.json", "inductor-bool-le-value-range"},
       // Issue 63's op programs on the Inductor-derived surface (seed 6464).
       {"tests/cases/index-program-frexp-float64.json", "cpu-frexp-float64-exponent-vector-width"},
       {"tests/cases/index-program-uint8-trunc-div-argmax.json",
        "cpu-small-int-trunc-div-argmax-combine"},
       {"tests/cases/index-program-bool-le-vecmask.json", "cpu-bool-le-python-bool-vecmask"},
       // Issue 63's op programs, seed 7070.
       {"tests/cases/index-program-int8-compare-bool-vecmask.json",
        "cpu-small-int-compare-python-bool-vecmask"}});
}

// The KV-cache decode family reaches a flash-decoding bug people found by reading the template:
// the first generated decode step (a policy that always takes the family with a per-head cache
// length and the additive bias, seed 1 on) with nothing else known to fail comes out as the
// empty-partition-max bug. (Its empty-cache cases meet the all-masked garbage bug only when the
// unwritten scratch holds garbage, which a test cannot arrange: the campaign counts those.)
TEST(Families, KvCacheDecodeStepsMeetTheEmptyPartitionBug) {
  generate::GenerationPolicy policy = generate::GenerationPolicy::Default();
  policy.Override(
      {{"weights",
        {{"kv_cache_mask",
          {{"nothing", 0}, {"kv_prefix", 0}, {"head_prefix", 1}, {"heads_without_keys", 0}}}}},
       {"numbers", {{"p_kv_cache_decode", 1}, {"p_kv_cache_bias", 1}}}});
  std::optional<corpus::Case> wanted;
  for (std::uint64_t index = 0; index < 2000 && !wanted; ++index) {
    const auto generated = generate::GenerateCase({1, index, "families_test"}, policy);
    const corpus::Case &c = generated.c;
    // One call of torch.compile, float32, and none of what fails first in other ways: merged
    // full blocks (the no-full-blocks bug), a mask rebuilt from block tensors, one thread, a
    // vector width, optional knobs.
    if (!generated.features.contains("reach:kv_cache_decode") ||
        !generate::FlashDecodingExpected(c) || c.attention->dtype != "float32" ||
        c.attention->q_heads < 2 || c.attention->from_kv_blocks.has_value() ||
        !c.create_block_mask.separate_full_blocks || !c.calls.empty() ||
        c.compile_with != corpus::kTorchCompile || !c.inductor.optional.empty() ||
        !c.create_block_mask.heads.has_value() || c.inductor.cpp_simdlen.has_value() ||
        c.inductor.cpp_threads == 1 || c.mask_mod->source.find("mask_part") != std::string::npos)
      continue;
    wanted = c;
  }
  ASSERT_TRUE(wanted.has_value());
  const auto out = std::filesystem::temp_directory_path() /
                   ("inductor-fuzz-families-kv-cache-" + std::to_string(::getpid()));
  std::filesystem::create_directories(out);
  std::ofstream(out / "case.json") << corpus::CaseToJson(*wanted).dump(2);
  const auto run =
      RunInductorFuzz({"run-case", (out / "case.json").string(), "--out", (out / "run").string()});
  EXPECT_NE(run.out.find("result: finding (wrong-result)"), std::string::npos)
      << wanted->name << "\n"
      << run.out;
  EXPECT_NE(run.out.find("known issue: flex-cpu-decoding-empty-partition-max"), std::string::npos)
      << wanted->name << "\n"
      << run.out << run.err;
  std::filesystem::remove_all(out);
}

// The campaign's segfault of a block mask rebuilt with the full blocks' tensors expanded over the
// heads: under ASan, the read past full_kv_num_blocks' storage, named by its statement
// (flex-cpu-full-kv-num-blocks-strides-sanitized). Unsanitized it is a segfault or a garbage
// count, so the test needs the sanitizer; a sanitized build takes minutes: second tier.
TEST(FamiliesFullTier, FullBlocksExpandedOverHeadsAreReadOutOfBounds) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("inductor-fuzz-families-oob-" + std::to_string(::getpid()));
  const auto run = RunInductorFuzz(
      {"run-case", (kSourceDir / "tests/cases/from-kv-blocks-out-of-bounds.json").string(),
       "--sanitize", "address", "--out", out.string()});
  EXPECT_NE(run.out.find("result: finding (memory-error)"), std::string::npos)
      << run.out << run.err;
  EXPECT_NE(run.out.find("known issue: flex-cpu-full-kv-num-blocks-strides-sanitized"),
            std::string::npos)
      << run.out << run.err;
  std::filesystem::remove_all(out);
}

std::vector<corpus::Case> Candidates(const std::string &pass, const corpus::Case &c) {
  return reducers::FindCasePass(pass)->candidates(c, reducers::PassContext{});
}

// The reducer takes each family back toward the plain form: contiguous inputs, no
// kernel_options (or fewer), optional knobs left to Inductor, float tables as float32.
TEST(Families, ReducerPassesSimplifyEveryFamily) {
  corpus::Case c = corpus::LoadCaseFile(kSourceDir / "tests/cases/float-table-score.json");
  c.attention->layout = "sliced";
  c.attention->kernel_options = {{"PARTITION_SIZE", 64}, {"SKIP_MASK_SCORE", false}};
  c.inductor.optional["aggressive_fusion"] = true;

  auto has = [](const std::vector<corpus::Case> &candidates, auto &&predicate) {
    return std::any_of(candidates.begin(), candidates.end(), predicate);
  };
  const auto attention = Candidates("simplify-attention", c);
  EXPECT_TRUE(has(attention, [&](const corpus::Case &x) {
    return x.attention->layout == "contiguous" &&
           x.attention->kernel_options == c.attention->kernel_options;
  }));
  EXPECT_TRUE(
      has(attention, [](const corpus::Case &x) { return x.attention->kernel_options.is_null(); }));
  EXPECT_TRUE(has(attention, [](const corpus::Case &x) {
    return x.attention->kernel_options == json({{"SKIP_MASK_SCORE", false}});
  }));
  corpus::Case rebuilt =
      corpus::LoadCaseFile(kSourceDir / "tests/cases/from-kv-blocks-expanded.json");
  rebuilt.compile_scope = corpus::kCompileFunction;
  rebuilt.create_block_mask.separate_full_blocks = false;
  rebuilt.attention->from_kv_blocks->full = "contiguous";
  EXPECT_TRUE(has(Candidates("simplify-attention", rebuilt),
                  [](const corpus::Case &x) { return !x.attention->from_kv_blocks; }));
  EXPECT_TRUE(has(Candidates("simplify-attention", rebuilt), [](const corpus::Case &x) {
    return x.attention->from_kv_blocks && x.attention->from_kv_blocks->partial == "contiguous";
  }));
  const auto compile = Candidates("use-torch-compile", rebuilt);
  EXPECT_TRUE(
      has(compile, [](const corpus::Case &x) { return x.compile_scope == corpus::kCompileApi; }));
  EXPECT_TRUE(
      has(compile, [](const corpus::Case &x) { return x.create_block_mask.separate_full_blocks; }));
  EXPECT_TRUE(has(Candidates("reset-knobs", c),
                  [](const corpus::Case &x) { return x.inductor.optional.empty(); }));
  EXPECT_TRUE(has(Candidates("shrink-tensors", c), [](const corpus::Case &x) {
    return x.tensors.size() == 2 && x.tensors[0].dtype == "float32" &&
           x.tensors[0].reals == std::vector<double>{1.0, 0.5};
  }));
}

} // namespace
} // namespace fuzzer
