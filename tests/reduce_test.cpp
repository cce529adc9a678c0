// `inductor-fuzz reduce` on the real torch (the suites named ReduceFullTier run in
// `scripts/test --full` only): one of the tool's own torch 2.15.0 findings (the
// cpp.simdlen=1 LoweringException, whose innermost cause is an AssertionError on InvalidVecISA)
// reduces to a smaller case with the same signature, and to a repro.py of at most 25 lines that
// fails the same way when run alone with the venv's python.
#include "binary_runner.h"
#include "corpus/case.h"
#include "corpus/finding_store.h"
#include "support/scratch_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>

namespace fuzzer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::RunInductorFuzz;

const fs::path kSource = INDUCTOR_FUZZ_SOURCE_DIR;

TEST(ReduceFullTier, LoweringExceptionReducesToAShortScriptWithTheSameSignature) {
  const support::ScratchDir scratch("reduce-test");
  // The pass order is data: three passes keep the test to minutes (the whole order is measured
  // in the closing notes, on the same finding).
  std::ofstream(scratch / "passes.json")
      << R"({"case_passes": ["drop-score-mod", "shrink-tensors", "reset-knobs"]})";
  const auto run = RunInductorFuzz(
      {"reduce", (kSource / "corpus/findings/lowering-exception-simdlen1-fp32.json").string(),
       "--out", (scratch / "out").string(), "--jobs", "2", "--passes",
       (scratch / "passes.json").string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json report = json::parse(std::ifstream(scratch / "out" / "reduction.json"));
  EXPECT_TRUE(report["signature"].get<std::string>().starts_with("exception|")) << report.dump(2);
  EXPECT_NE(report["signature"].get<std::string>().find("InvalidVecISA"), std::string::npos)
      << report.dump(2);
  EXPECT_LT(report["nodes_after"], report["nodes_before"]) << report.dump(2);
  EXPECT_LT(report["volume_after"], report["volume_before"]) << report.dump(2);
  EXPECT_GE(report["steps"].get<int>(), 2) << report.dump(2);
  EXPECT_LE(report["repro_lines"].get<int>(), 25) << report.dump(2);
  EXPECT_TRUE(report["repro_reproduces"].get<bool>()) << report.dump(2);

  // The reduced case keeps what the failure needs and nothing it does not.
  const auto reduced = corpus::LoadCaseFile(scratch / "out" / "case.json");
  const auto original =
      corpus::LoadCaseFile(kSource / "corpus/findings/lowering-exception-simdlen1-fp32.json");
  EXPECT_EQ(reduced.inductor.cpp_simdlen, std::optional<int>(1));
  EXPECT_FALSE(reduced.score_mod) << "the LoweringException does not need the score_mod";
  EXPECT_TRUE(reduced.tensors.empty()) << "nor the table only the score_mod read";
  EXPECT_NE(reduced, original);
  std::ifstream script(scratch / "out" / "repro.py");
  std::stringstream text;
  text << script.rdbuf();
  EXPECT_NE(text.str().find("\"cpp.simdlen\": 1"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("print(\"torch\", torch.__version__)"), std::string::npos);
}

TEST(ReduceTest, ACaseThatPassesIsRefusedWithExit2) {
  const support::ScratchDir scratch("reduce-test");
  const auto run =
      RunInductorFuzz({"reduce", (kSource / "corpus/seeds/causal-151290.json").string(), "--out",
                       (scratch / "out").string(), "--jobs", "1"});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("does not fail"), std::string::npos) << run.err;
}

} // namespace
} // namespace fuzzer

namespace fuzzer {
namespace {

// Each candidate of these TUs instantiates the flex-attention template (seconds), so one
// syntax pass keeps them to minutes; the default order is measured in the closing notes.
void WriteSourcePasses(const fs::path &file) {
  std::ofstream(file) << R"({"source_passes": ["remove-declarations"]})";
}

TEST(ReduceTest, AFailingScriptHasItsFailingTuReduced) {
  // A user's script: torch 2.15.0 writes C++ that g++ rejects (CppCompileError). A pointwise
  // kernel, so that each candidate compiles in seconds (the flex-attention template's TU,
  // tests/fixtures/reduce/bool_score_mod.py, takes three minutes).
  const support::ScratchDir scratch("reduce-script-test");
  WriteSourcePasses(scratch / "passes.json");
  const auto run = RunInductorFuzz(
      {"reduce", "--script", (kSource / "tests/fixtures/reduce/int8_compare_bool.py").string(),
       "--out", (scratch / "out").string(), "--jobs", "2", "--source-passes",
       (scratch / "passes.json").string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json report = json::parse(std::ifstream(scratch / "out" / "reduction.json"));
  EXPECT_TRUE(report["signature"].get<std::string>().starts_with(
      "compile-error|family=gcc|message=no match for 'operator<='"))
      << report.dump(2);
  EXPECT_EQ(report["origin"], "log");
  EXPECT_LT(report["lines_after"].get<int>(), report["lines_before"].get<int>()) << report.dump(2);
  EXPECT_TRUE(report["repro_reproduces"].get<bool>()) << report.dump(2);
  // repro.sh is the one command: run alone, it shows the error.
  const auto repro = support::RunCommand({"/bin/sh", (scratch / "out" / "repro.sh").string()}, {},
                                         std::chrono::seconds(300));
  EXPECT_FALSE(repro.status.Succeeded());
  EXPECT_NE(repro.output.find("no match for"), std::string::npos) << repro.output;
}

TEST(ReduceFullTier, ACompileErrorFindingIsReducedAsACaseThenAsASource) {
  const support::ScratchDir scratch("reduce-chain-test");
  WriteSourcePasses(scratch / "source-passes.json");
  std::ofstream(scratch / "case-passes.json") << R"({"case_passes": ["reset-knobs"]})";
  const auto run = RunInductorFuzz(
      {"reduce", (kSource / "corpus/findings/compile-error-bool-score-mod.json").string(), "--out",
       (scratch / "out").string(), "--jobs", "2", "--passes",
       (scratch / "case-passes.json").string(), "--source-passes",
       (scratch / "source-passes.json").string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(fs::exists(scratch / "out" / "repro.py"));
  const json source = json::parse(std::ifstream(scratch / "out" / "source" / "reduction.json"));
  EXPECT_TRUE(source["signature"].get<std::string>().starts_with("compile-error|family=gcc"))
      << source.dump(2);
  EXPECT_EQ(source["origin"], "compiler");
  EXPECT_LT(source["lines_after"], source["lines_before"]);
  EXPECT_TRUE(source["repro_reproduces"].get<bool>()) << source.dump(2);
}

} // namespace
} // namespace fuzzer

namespace fuzzer {
namespace {

// A planted Inductor bug (tests/fixtures/plant: codegen declares a local twice whenever a
// kernel computes a remainder) found by a generated case of seed 1 whose mask uses `%`: the
// case reduces to a few expression nodes and its TU to a few lines, both with the signature
// of the original failure.
TEST(ReduceFullTier, APlantedCodegenBugReducesToAFewNodesAndAShortTu) {
  const support::ScratchDir scratch("reduce-plant-test");
  const std::map<std::string, std::string> plant = {
      {"PYTHONPATH", (kSource / "tests/fixtures/plant").string()}};
  const auto generated = RunInductorFuzz({"gen", "--seed", "1", "--count", "17"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  std::istringstream lines(generated.out);
  std::string line;
  for (int i = 0; i < 17; ++i)
    std::getline(lines, line);
  const json generated_case = json::parse(line);
  ASSERT_EQ(generated_case["name"], "s1-16");
  ASSERT_NE(generated_case["mask_mod"]["source"].get<std::string>().find('%'), std::string::npos);
  std::ofstream(scratch / "case.json") << generated_case.dump(2);
  // The whole default order, case and source (a few minutes on two cores).
  const auto run = RunInductorFuzz({"reduce", (scratch / "case.json").string(), "--out",
                                    (scratch / "out").string(), "--jobs", "2"},
                                   std::chrono::seconds(1700), plant);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json report = json::parse(std::ifstream(scratch / "out" / "reduction.json"));
  const std::string signature = report["signature"];
  EXPECT_TRUE(signature.starts_with("compile-error|family=gcc|message=redeclaration of 'int "
                                    "planted_rem'"))
      << signature;
  EXPECT_GE(report["nodes_before"].get<int>(), 15) << report.dump(2);
  EXPECT_LE(report["nodes_after"].get<int>(), 3) << report.dump(2);
  EXPECT_TRUE(report["repro_reproduces"].get<bool>()) << report.dump(2);
  const json source = json::parse(std::ifstream(scratch / "out" / "source" / "reduction.json"));
  EXPECT_EQ(source["signature"], signature);
  EXPECT_LE(source["lines_after"].get<int>(), 30) << source.dump(2);
  EXPECT_TRUE(source["repro_reproduces"].get<bool>()) << source.dump(2);
}

// A memory error only a sanitizer sees (tests/fixtures/sanitizer/plant_past_end: a kernel writes
// one element past its bool output, and the outputs still match eager): unsanitized the case
// passes and there is nothing to reduce; with --sanitize every run is built and run sanitized,
// its mask reduces with the same memory-error signature, and repro.py runs itself sanitized and
// shows the same report.
TEST(ReduceFullTier, APlantedWritePastTheOutputReducesAsAMemoryError) {
  const support::ScratchDir scratch("reduce-memory-error-test");
  const std::map<std::string, std::string> plant = {
      {"PYTHONPATH", (kSource / "tests/fixtures/sanitizer/plant_past_end").string()}};
  json c = json::parse(std::ifstream(kSource / "tests/fixtures/sanitizer/mask_kv100.json"));
  c["name"] = "mask-kv100-composite";
  c["mask_mod"]["source"] =
      "def causal(b, h, q_idx, kv_idx):\n    return (q_idx >= kv_idx) | (kv_idx == 3)\n";
  std::ofstream(scratch / "case.json") << c.dump(2);
  std::ofstream(scratch / "passes.json") << R"({"case_passes": ["replace-by-child"]})";

  const auto unsanitized = RunInductorFuzz({"reduce", (scratch / "case.json").string(), "--out",
                                            (scratch / "plain").string(), "--jobs", "1", "--passes",
                                            (scratch / "passes.json").string()},
                                           std::chrono::seconds(600), plant);
  EXPECT_EQ(unsanitized.exit_code, 2) << unsanitized.out << unsanitized.err;
  EXPECT_NE(unsanitized.err.find("does not fail"), std::string::npos) << unsanitized.err;

  const auto run =
      RunInductorFuzz({"reduce", (scratch / "case.json").string(), "--out",
                       (scratch / "out").string(), "--jobs", "2", "--confirm", "1", "--sanitize",
                       "address", "--passes", (scratch / "passes.json").string()},
                      std::chrono::seconds(1500), plant);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json report = json::parse(std::ifstream(scratch / "out" / "reduction.json"));
  EXPECT_EQ(report["signature"],
            "memory-error|error=out-of-bounds-access|access=WRITE|kernel=kernel|statement="
            "out_ptr0[10000L] = out_ptr0[9999L]; // planted: one element past the output")
      << report.dump(2);
  EXPECT_LT(report["nodes_after"], report["nodes_before"]) << report.dump(2);
  EXPECT_GE(report["steps"].get<int>(), 1) << report.dump(2);
  EXPECT_EQ(report["sanitizer"]["checks"], json::array({"address"})) << report.dump(2);
  EXPECT_TRUE(report["repro_reproduces"].get<bool>()) << report.dump(2);
  std::stringstream script;
  script << std::ifstream(scratch / "out" / "repro.py").rdbuf();
  EXPECT_NE(script.str().find("-fsanitize=address"), std::string::npos) << script.str();
  EXPECT_LT(script.str().find("REPRO_SANITIZED"), script.str().find("import torch"));
}

// A crash of a corrupted heap (the flex_attention scratch sized for cpp.threads=1 while two
// threads run: tests/fixtures/sanitizer/flex_threads1.json) is flaky plain and needs three runs
// a candidate; its kind's row says it reduces sanitized when a sanitized run of the untouched
// case reports a memory error. That run does, and the reduction keeps the sanitizer's report with
// one run a candidate. A memory-error finding refuses --sanitize none. One pass that has nothing
// to take from this case (it has no score_mod): the time is the probe's, the untouched case's and
// the repro's runs; the other reductions here test candidates.
TEST(ReduceFullTier, AMemoryCrashReducesAsTheMemoryErrorItsSanitizedRunReports) {
  const support::ScratchDir scratch("reduce-memory-crash-test");
  const std::map<std::string, std::string> two_threads = {{"OMP_NUM_THREADS", "2"}};
  const auto c = corpus::LoadCaseFile(kSource / "tests/fixtures/sanitizer/flex_threads1.json");
  corpus::FindingStore store(scratch / "corpus");
  corpus::Finding crash{.kind = corpus::FindingKind::kCrash};
  crash.essence.Add("api", "flex_attention").Add("signal", "11").Add("abort", "");
  corpus::Finding memory{.kind = corpus::FindingKind::kMemoryError};
  memory.essence.Add("error", "out-of-bounds-access")
      .Add("access", "WRITE")
      .Add("kernel", "kernel_fill_stub<float>")
      .Add("statement", "data_vec.store(data + d);");
  for (const auto *finding : {&crash, &memory})
    store.Record(*finding, corpus::MakeHit(c, {}, corpus::UtcNow()), [&](const fs::path &dir) {
      std::ofstream(dir / "case.json") << corpus::CaseToJson(c).dump(2);
    });
  const fs::path findings = scratch / "corpus" / "findings";

  const auto refused =
      RunInductorFuzz({"reduce", (findings / corpus::StoredFindingId(memory)).string(), "--out",
                       (scratch / "refused").string(), "--sanitize", "none"});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("--sanitize none: a memory-error is seen only sanitized"),
            std::string::npos)
      << refused.err;

  std::ofstream(scratch / "passes.json") << R"({"case_passes": ["drop-score-mod"]})";
  const auto run = RunInductorFuzz({"reduce", (findings / corpus::StoredFindingId(crash)).string(),
                                    "--out", (scratch / "out").string(), "--jobs", "2", "--passes",
                                    (scratch / "passes.json").string()},
                                   std::chrono::seconds(1800), two_threads);
  ASSERT_LE(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("reduce: a memory crash: running the untouched case once with "
                         "address,undefined"),
            std::string::npos)
      << run.out;
  const json report = json::parse(std::ifstream(scratch / "out" / "reduction.json"));
  const std::string signature = report["signature"];
  EXPECT_TRUE(signature.starts_with("memory-error|")) << report.dump(2);
  EXPECT_NE(signature.find("kernel=kernel_fill_stub<float>"), std::string::npos) << signature;
  EXPECT_EQ(report["confirm_runs"], 1) << report.dump(2);
  EXPECT_EQ(report["sanitizer"]["checks"], json::array({"address", "undefined"}));
  EXPECT_EQ(report["found_as"]["signature"], corpus::Signature(crash)) << report.dump(2);
  EXPECT_TRUE(report["found_as"]["sanitized_probe"].get<std::string>().starts_with("memory-error|"))
      << report.dump(2);
}

} // namespace
} // namespace fuzzer

namespace fuzzer {
namespace {

// The bench's real Inductor TUs (torch 2.15.0) with a planted divergence, reduced with both real
// compilers and no script: the syntax passes keep these to minutes (the whole order is measured
// against C-Vise by bench/source_reduce_vs_cvise.sh).
std::vector<std::string> DivergenceArguments(const fs::path &scratch, const std::string &name,
                                             std::vector<std::string> flags) {
  const fs::path source = scratch / (name + ".cpp");
  fs::copy_file(kSource / "bench/source_reduce_inputs" / name / (name + ".cpp"), source);
  std::ofstream(scratch / "passes.json")
      << R"({"source_passes": ["remove-declaration-runs", "remove-declarations", "empty-bodies",
            "remove-statement-runs", "remove-statements"]})";
  const std::string torch = (kSource / ".venv/lib/python3.11/site-packages/torch").string();
  std::vector<std::string> arguments = {"reduce",
                                        "--cpp",
                                        source.string(),
                                        "--compilers",
                                        "g++-12,clang++-19",
                                        "--jobs",
                                        "2",
                                        "--source-passes",
                                        (scratch / "passes.json").string(),
                                        "--out",
                                        (scratch / "out").string(),
                                        "--",
                                        "g++-12",
                                        "-std=c++20",
                                        "-fopenmp",
                                        "-march=native",
                                        "-DTORCH_INDUCTOR_CPP_WRAPPER",
                                        "-DSTANDALONE_TORCH_HEADER",
                                        "-DC10_USING_CUSTOM_GENERATED_MACROS",
                                        "-DNDEBUG",
                                        "-I/usr/include/python3.11",
                                        "-I" + torch + "/include",
                                        "-I" + torch + "/include/torch/csrc/api/include",
                                        source.string()};
  arguments.insert(arguments.end(), flags.begin(), flags.end());
  for (auto &argument : arguments) // "-L@TORCH@/lib": torch's own folder
    if (const auto at = argument.find("@TORCH@"); at != std::string::npos)
      argument.replace(at, 7, torch);
  return arguments;
}

TEST(ReduceFullTier, AGccOnlyConstexprOnARealTuReducesAsACompilerDivergence) {
  const support::ScratchDir scratch("reduce-divergence");
  auto arguments =
      DivergenceArguments(scratch.path(), "gcc_constexpr_causal_1",
                          {"-DCPU_CAPABILITY_AVX512", "-mavx512f", "-mavx512dq", "-mavx512vl",
                           "-mavx512bw", "-mfma", "-c", "-o", (scratch / "kernel.o").string()});
  const auto run = RunInductorFuzz(arguments);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json report = json::parse(std::ifstream(scratch / "out" / "reduction.json"));
  EXPECT_EQ(report["signature"],
            "compiler-divergence|built=g++-12|failed=clang++-19|crashed=|error=constexpr variable "
            "'tmp<N>' must be initialized by a constant expression")
      << report.dump(2);
  EXPECT_LT(report["lines_after"].get<int>(), report["lines_before"].get<int>() / 4)
      << report.dump(2);
  EXPECT_TRUE(report["repro_reproduces"].get<bool>()) << report.dump(2);
  std::stringstream reduced;
  reduced << std::ifstream(scratch / "out" / "reduced.cpp").rdbuf();
  EXPECT_NE(reduced.str().find("constexpr auto tmp25"), std::string::npos) << reduced.str();
}

// Second tier (131 s): the first tier reduces a runtime divergence through `reduce --cpp` in
// cli_reduce, and the second also reduces a campaign's runtime-divergence finding
// (ReduceMatrixFullTier).
TEST(ReduceFullTier, ArgumentOrderOnARealTuReducesAsARuntimeDivergence) {
  const support::ScratchDir scratch("reduce-divergence");
  auto arguments =
      DivergenceArguments(scratch.path(), "argorder_s1_1",
                          {"-O2", "-ffp-contract=off", "-o", (scratch / "program").string(),
                           "-L@TORCH@/lib", "-Wl,-rpath,@TORCH@/lib", "-lc10", "-lpython3.11"});
  arguments.insert(arguments.begin() + 5, "--run");
  const auto run = RunInductorFuzz(arguments);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json report = json::parse(std::ifstream(scratch / "out" / "reduction.json"));
  EXPECT_EQ(report["signature"],
            "runtime-divergence|same=g++-12|differs=clang++-19|how=differs|dtype=")
      << report.dump(2);
  EXPECT_LT(report["lines_after"].get<int>(), report["lines_before"].get<int>() / 2)
      << report.dump(2);
  EXPECT_TRUE(report["repro_reproduces"].get<bool>()) << report.dump(2);
  std::stringstream reduced;
  reduced << std::ifstream(scratch / "out" / "reduced.cpp").rdbuf();
  EXPECT_NE(reduced.str().find("x0_probe++"), std::string::npos) << reduced.str();
  // repro.sh, run alone, builds the reduced TU with both compilers and exits 1: they differ.
  const auto repro = support::RunCommand({"/bin/sh", (scratch / "out" / "repro.sh").string()}, {},
                                         std::chrono::seconds(300));
  EXPECT_EQ(repro.status.exit_code, 1) << repro.output;
}

} // namespace
} // namespace fuzzer

namespace fuzzer {
namespace {

// The case reducer never turns a real wrong result into API misuse. The wrong result is planted
// (tests/fixtures/plant_wrong_output: what Inductor makes of flex_attention is off by one in its
// first element) on a mask that reads h without depending on it, (q_idx + h // 130) >= kv_idx,
// with a block mask made for H=None and two heads. shrink-constants proposes h // 1: a mask
// that differs between the heads, on a block mask of head 0, which without the worker's
// contract check fails with the same signature (and on an unplanted torch too). The worker calls
// it invalid-case, so the reducer never keeps it: the divisor ends at 2, not 1.
TEST(ReduceFullTier, AWrongResultNeverReducesIntoAMaskThatBreaksItsBlockMasksContract) {
  const support::ScratchDir scratch("reduce-misuse-test");
  const std::map<std::string, std::string> plant = {
      {"PYTHONPATH", (kSource / "tests/fixtures/plant_wrong_output").string() + ":" +
                         (kSource / "tests/fixtures/plant").string()}};
  json c = json::parse(R"({
    "format_version": 2, "name": "planted-wrong-result", "api": "flex_attention",
    "mask_mod": {"name": "mask_mod",
                 "source": "def mask_mod(b, h, q_idx, kv_idx):\n    return (q_idx + h // 130) >= kv_idx\n"},
    "score_mod": null, "tensors": [],
    "create_block_mask": {"B": 1, "H": null, "Q_LEN": 32, "KV_LEN": 32, "BLOCK_SIZE": 128,
                          "device": "cpu"},
    "attention": {"Hq": 2, "Hkv": 2, "E": 16, "Ev": 16, "dtype": "float32", "input_seed": 0,
                  "use_block_mask": true, "enable_gqa": false},
    "inductor": {}, "expect": {"raises": null},
    "provenance": {"origin": "reduce_test"}})");
  std::ofstream(scratch / "case.json") << c.dump(2);
  std::ofstream(scratch / "passes.json") << R"({"case_passes": ["shrink-constants"]})";

  // The misuse on its own is refused: it is broken, not failing.
  json misuse = c;
  misuse["mask_mod"]["source"] =
      "def mask_mod(b, h, q_idx, kv_idx):\n    return q_idx + h >= kv_idx\n";
  std::ofstream(scratch / "misuse.json") << misuse.dump(2);
  const auto refused = RunInductorFuzz(
      {"reduce", (scratch / "misuse.json").string(), "--out", (scratch / "misuse-out").string()},
      std::chrono::seconds(600), plant);
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("the case is invalid, not a finding"), std::string::npos)
      << refused.err;

  const auto run = RunInductorFuzz({"reduce", (scratch / "case.json").string(), "--out",
                                    (scratch / "out").string(), "--jobs", "2", "--passes",
                                    (scratch / "passes.json").string()},
                                   std::chrono::seconds(1500), plant);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json report = json::parse(std::ifstream(scratch / "out" / "reduction.json"));
  EXPECT_TRUE(report["signature"].get<std::string>().starts_with(
      "wrong-result|api=flex_attention|fields=output|"))
      << report.dump(2);
  EXPECT_GE(report["steps"].get<int>(), 1) << report.dump(2);
  EXPECT_GE(report["invalid_runs"].get<int>(), 1)
      << "h // 1 was proposed and called invalid: " << report.dump(2);
  const auto reduced = corpus::LoadCaseFile(scratch / "out" / "case.json");
  EXPECT_FALSE(reduced.create_block_mask.heads.has_value());
  std::smatch divisor;
  ASSERT_TRUE(std::regex_search(reduced.mask_mod->source, divisor, std::regex(R"(h // (\d+))")))
      << reduced.mask_mod->source;
  EXPECT_GE(std::stoi(divisor[1]), 2) << reduced.mask_mod->source;
}

} // namespace
} // namespace fuzzer

namespace fuzzer {
namespace {

// Matrix findings (the compiler matrix of `fuzz --matrix-every`) reduce from their folder: a
// campaign of one case on g++-12 and two wrappers of it, one that rejects every TU with an
// `extern "C"` (a compiler divergence) and one that miscompiles: it flips out_ptr0[0] at the
// end of every Python-wrapper kernel (a runtime divergence). Each finding reduces with the
// matrix as the case reducer's test, ends with a repro.sh, run alone, that shows it, and has its
// TU reduced too.
class ReduceMatrixFullTier : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<support::ScratchDir>("reduce-matrix-test");
    const fs::path &dir = scratch_->path();
    // create_block_mask only, static shapes, Python-wrapper kernels: seconds a case.
    std::ofstream(dir / "policy.json")
        << R"({"weights": {"api": {"create_block_mask": 1, "create_mask": 0, "flex_attention": 0}},
              "numbers": {"p_cpp_wrapper": 0, "p_dynamic": 0, "p_max_autotune": 0,
                          "p_freezing": 0}})";
    const fs::path broken = dir / "broken-g++";
    std::ofstream(broken)
        << "#!/bin/sh\n"
           "for a in \"$@\"; do case $a in *.cpp) if grep -q 'extern \"C\"' \"$a\"; then\n"
           "  echo \"$a:1:1: error: this compiler rejects extern C\" >&2; exit 1; fi;; esac; done\n"
           "exec g++-12 \"$@\"\n";
    const fs::path miscompiling = dir / "miscompiling-g++";
    std::ofstream(miscompiling)
        << "#!/usr/bin/python3\n"
           "import os, sys, tempfile\n"
           "args = sys.argv[1:]\n"
           "for i, a in enumerate(args):\n"
           "    if not a.endswith('.cpp') or not os.path.exists(a):\n"
           "        continue\n"
           "    text = open(a).read()\n"
           "    name = text.find('kernel(', text.find('extern \"C\"'))\n"
           "    bindings = text.find('// Python bindings to call kernel()')\n"
           "    if name < 0 or bindings < 0 or 'out_ptr0' not in text[name:text.find(')', name)]:\n"
           "        continue\n"
           "    end = text.rfind('}', 0, bindings)\n"
           "    text = text[:end] + '    out_ptr0[0] = !out_ptr0[0];\\n' + text[end:]\n"
           "    planted = os.path.join(tempfile.mkdtemp(dir=os.path.dirname(__file__)),\n"
           "                           os.path.basename(a))\n"
           "    open(planted, 'w').write(text)\n"
           "    args[i] = planted\n"
           "os.execvp('g++-12', ['g++-12'] + args)\n";
    for (const auto &wrapper : {broken, miscompiling})
      fs::permissions(wrapper, fs::perms::owner_all);
    campaign_ = std::make_unique<test_support::BinaryRun>(
        RunInductorFuzz({"fuzz", "--seed", "3", "--cases", "1", "--jobs", "1", "--policy",
                         (dir / "policy.json").string(), "--corpus", (dir / "corpus").string(),
                         "--matrix-every", "1", "--no-check", "--reduce", "none", "--compilers",
                         "g++-12," + broken.string() + "," + miscompiling.string()}));
    // One cheap pass each keeps the test to minutes.
    std::ofstream(dir / "case-passes.json") << R"({"case_passes": ["reset-knobs"]})";
    std::ofstream(dir / "source-passes.json") << R"({"source_passes": ["remove-declarations"]})";
  }
  static void TearDownTestSuite() {
    campaign_.reset();
    scratch_.reset();
  }

  // The campaign's finding of `kind`, reduced into its folder's reduced/.
  static std::pair<fs::path, test_support::BinaryRun> Reduce(corpus::FindingKind kind) {
    EXPECT_EQ(campaign_->exit_code, 1) << campaign_->out << campaign_->err;
    for (const auto &finding : corpus::FindingStore(scratch_->path() / "corpus").List())
      if (finding.finding.kind == kind)
        return {
            finding.folder / "reduced",
            RunInductorFuzz({"reduce", finding.folder.string(), "--jobs", "1", "--passes",
                             (scratch_->path() / "case-passes.json").string(), "--source-passes",
                             (scratch_->path() / "source-passes.json").string()},
                            std::chrono::seconds(1500))};
    ADD_FAILURE() << "the campaign stored no " << corpus::KindName(kind) << ": " << campaign_->out
                  << campaign_->err;
    return {};
  }

  static std::unique_ptr<support::ScratchDir> scratch_;
  static std::unique_ptr<test_support::BinaryRun> campaign_;
};
std::unique_ptr<support::ScratchDir> ReduceMatrixFullTier::scratch_;
std::unique_ptr<test_support::BinaryRun> ReduceMatrixFullTier::campaign_;

TEST_F(ReduceMatrixFullTier, ARuntimeDivergenceFindingReducesToARunnableRepro) {
  const auto [out, run] = Reduce(corpus::FindingKind::kRuntimeDivergence);
  ASSERT_FALSE(out.empty());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json report = json::parse(std::ifstream(out / "reduction.json"));
  EXPECT_TRUE(report["signature"].get<std::string>().starts_with("runtime-divergence|same=g++-12|"))
      << report.dump(2);
  EXPECT_GE(report["candidates_run"].get<int>(), 1) << report.dump(2);
  EXPECT_TRUE(report["repro_reproduces"].get<bool>()) << report.dump(2);
  EXPECT_EQ(report["source"], "source/reduced.cpp") << report.dump(2);
  // repro.sh alone: each compiler builds kernel.cpp, each module runs on the recorded calls.
  const auto repro =
      support::RunCommand({"/bin/sh", (out / "repro.sh").string()}, {}, std::chrono::seconds(300));
  EXPECT_EQ(repro.status.exit_code, 1) << repro.output;
  EXPECT_NE(repro.output.find("g++-12: same"), std::string::npos) << repro.output;
  EXPECT_NE(repro.output.find("miscompiling-g++: differs: call "), std::string::npos)
      << repro.output;
  EXPECT_NE(repro.output.find("broken-g++: does not build"), std::string::npos) << repro.output;
  EXPECT_TRUE(fs::exists(out / "repro.py"));
  EXPECT_FALSE(fs::exists(out / "reduced-run" / "matrix")) << "the matrix's builds are removed";
  // Then the kernel's TU, given a main that runs the first recorded call and prints what the
  // kernel wrote, reduced as a program on the compilers whose builds ran.
  const json source = json::parse(std::ifstream(out / "source" / "reduction.json"));
  EXPECT_EQ(source["origin"], "runtime-divergence") << source.dump(2);
  EXPECT_TRUE(
      source["signature"].get<std::string>().starts_with("runtime-divergence|same=g++-12|differs="))
      << source.dump(2);
  EXPECT_LT(source["lines_after"], source["lines_before"]) << source.dump(2);
  EXPECT_TRUE(source["repro_reproduces"].get<bool>()) << source.dump(2);
  std::stringstream reduced;
  reduced << std::ifstream(out / "source" / "reduced.cpp").rdbuf();
  EXPECT_NE(reduced.str().find("int main()"), std::string::npos);
}

TEST_F(ReduceMatrixFullTier, ACompilerDivergenceFindingReducesAsACaseThenAsASource) {
  const auto [out, run] = Reduce(corpus::FindingKind::kCompilerDivergence);
  ASSERT_FALSE(out.empty());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json report = json::parse(std::ifstream(out / "reduction.json"));
  const std::string signature = report["signature"];
  EXPECT_TRUE(signature.starts_with("compiler-divergence|built=g++-12,")) << report.dump(2);
  EXPECT_NE(signature.find("this compiler rejects extern C"), std::string::npos) << signature;
  EXPECT_TRUE(report["repro_reproduces"].get<bool>()) << report.dump(2);
  const auto repro =
      support::RunCommand({"/bin/sh", (out / "repro.sh").string()}, {}, std::chrono::seconds(300));
  EXPECT_EQ(repro.status.exit_code, 1) << repro.output;
  EXPECT_NE(repro.output.find("g++-12: builds"), std::string::npos) << repro.output;
  EXPECT_NE(repro.output.find("broken-g++: does not build"), std::string::npos) << repro.output;
  // Then its TU, on the same compilers, with the same signature.
  const json source = json::parse(std::ifstream(out / "source" / "reduction.json"));
  EXPECT_EQ(source["signature"], signature) << source.dump(2);
  EXPECT_EQ(source["origin"], "compiler-divergence");
  EXPECT_LT(source["lines_after"], source["lines_before"]) << source.dump(2);
  EXPECT_TRUE(source["repro_reproduces"].get<bool>()) << source.dump(2);
}

} // namespace
} // namespace fuzzer
