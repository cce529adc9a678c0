// The generator and the oracles on the real torch: eager validity, planted wrong results of
// every oracle caught by the worker and by the emitted Python script alike, broken cases told
// apart from findings, expected exceptions, and generated cases of every API with their scripts.
#include "binary_runner.h"
#include "corpus/case.h"
#include "fuzzer/generate/generator.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/repro_script.h"
#include "fuzzer/worker/worker_client.h"
#include "fuzzer/worker/worker_python.h"
#include "support/child_process.h"
#include "support/text_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>

namespace fuzzer {
namespace {

using namespace std::chrono_literals;

const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

// A small hand-written case: a causal mask on 128x128, one thread, no vectorization choice.
// `changes` is merged over it (JSON merge patch), as a case file would say it.
corpus::Case SmallCase(const std::string &name, const std::string &api,
                       const nlohmann::json &changes = nlohmann::json::object()) {
  nlohmann::json c = nlohmann::json::parse(R"({
    "format_version": 1,
    "mask_mod": {"name": "causal",
                 "source": "def causal(b, h, q_idx, kv_idx):\n    return q_idx >= kv_idx\n"},
    "score_mod": null,
    "tensors": [],
    "create_block_mask": {"B": 1, "H": 1, "Q_LEN": 128, "KV_LEN": 128, "BLOCK_SIZE": 128,
                          "device": "cpu"},
    "attention": null,
    "inductor": {"cpp.threads": 1, "cpp.simdlen": null, "cpp_wrapper": false, "dynamic": false},
    "expect": {"raises": null},
    "provenance": {"origin": "oracle_test"}
  })");
  c["name"] = name;
  c["api"] = api;
  if (api == "flex_attention")
    c["attention"] = nlohmann::json::parse(R"({
      "B": 1, "Hq": 1, "Hkv": 1, "Q_LEN": 128, "KV_LEN": 128, "E": 16, "Ev": 16,
      "dtype": "float32", "input_seed": 1, "use_block_mask": true, "enable_gqa": false})");
  c.merge_patch(changes);
  return corpus::CaseFromJson(c);
}

std::set<std::string> MismatchFields(const nlohmann::json &result) {
  std::set<std::string> fields;
  for (const auto &mismatch : result.value("mismatches", nlohmann::json::array()))
    fields.insert(mismatch.value("field", ""));
  return fields;
}

// A test plant and the mismatch it must cause.
struct Plant {
  std::string name;
  std::string field;
};

class OracleTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    scratch_ = std::filesystem::temp_directory_path() /
               ("inductor-fuzz-oracle-test-" + std::to_string(::getpid()));
    worker_ = std::make_unique<worker::Worker>(worker::WorkerOptions{
        .worker_executable = INDUCTOR_FUZZ_WORKER,
        .venv = kSourceDir / ".venv",
        .scratch_dir = scratch_ / "worker",
        .log_file = scratch_ / "worker.log",
    });
  }
  static void TearDownTestSuite() {
    worker_.reset();
    std::filesystem::remove_all(scratch_);
  }
  static worker::CaseOutcome Run(const corpus::Case &c,
                                 const worker::WorkerRunOptions &options = {}) {
    const std::string cache = "cache-" + c.name + "-" + options.test_plant;
    // A plant corrupts the compiled result, not the kernels: each planted run of a case gets
    // the clean run's builds from the shared cache, as a campaign's probes do.
    worker::WorkerRunOptions shared = options;
    shared.build_cache = scratch_ / "shared-builds";
    return worker::RunCaseOnWorker(*worker_, c, scratch_ / cache, 900s, shared);
  }
  // The case's emitted repro script, run with the venv's python; `plant` is passed to it
  // through INDUCTOR_FUZZ_TEST_PLANT. Its output is stdout alone.
  static support::CommandResult RunScript(const corpus::Case &c, const std::string &plant = "") {
    const auto script = scratch_ / (c.name + ".py");
    support::WriteFileAtomically(script, worker::EmitPythonScript(c));
    support::SpawnOptions options;
    options.stderr_file = scratch_ / (c.name + "-" + plant + ".stderr");
    if (!plant.empty())
      options.environment["INDUCTOR_FUZZ_TEST_PLANT"] = plant;
    return support::RunCommand({(kSourceDir / ".venv/bin/python").string(), script.string()},
                               options, 900s);
  }
  static std::string Stderr(const corpus::Case &c, const std::string &plant = "") {
    std::ifstream in(scratch_ / (c.name + "-" + plant + ".stderr"));
    return "\nstderr:\n" + std::string(std::istreambuf_iterator<char>(in), {});
  }

  // Each test plant corrupts the compiled result the way one oracle must catch. The worker
  // and the emitted script share one oracle implementation, so both must catch every plant,
  // and both must agree the unplanted case passes.
  static void ExpectEveryPlantCaught(const corpus::Case &c, const std::vector<Plant> &plants) {
    const auto clean = Run(c);
    ASSERT_EQ(clean.Status(), "pass") << clean.result.dump(2);
    const auto clean_script = RunScript(c);
    EXPECT_EQ(clean_script.status.exit_code, 0) << clean_script.output << Stderr(c);
    EXPECT_NE(clean_script.output.find("PASS"), std::string::npos) << clean_script.output;
    for (const auto &plant : plants) {
      SCOPED_TRACE(plant.name);
      const auto planted = Run(c, {.test_plant = plant.name});
      EXPECT_EQ(planted.Status(), "finding") << planted.result.dump(2);
      EXPECT_EQ(planted.Kind(), "wrong-result");
      EXPECT_TRUE(MismatchFields(planted.result).contains(plant.field)) << planted.result.dump(2);
      const auto script = RunScript(c, plant.name);
      EXPECT_EQ(script.status.exit_code, 1) << script.output << Stderr(c, plant.name);
      EXPECT_NE(script.output.find("MISMATCH"), std::string::npos) << script.output;
      EXPECT_NE(script.output.find("'field': '" + plant.field + "'"), std::string::npos)
          << script.output;
    }
  }

  // The first case of the default policy, from seed 1 on, that satisfies `wanted`.
  template <typename Predicate> static corpus::Case FirstGenerated(Predicate wanted) {
    for (std::uint64_t seed = 1;; ++seed) {
      corpus::Case c =
          generate::GenerateCase({seed, 0, "oracle_test"}, generate::GenerationPolicy::Default()).c;
      if (wanted(c))
        return c;
    }
  }

  static inline std::unique_ptr<worker::Worker> worker_;
  static inline std::filesystem::path scratch_;
};

// The rest of each oracle's plants: `scripts/test --full` runs them (tests/CMakeLists.txt).
class OracleFullTier : public OracleTest {};

TEST_F(OracleFullTier, GeneratedCasesRunEagerlyUnlessMarkedToRaise) {
  int ran = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const corpus::Case c =
        generate::GenerateCase({seed, 0, ""}, generate::GenerationPolicy::Default()).c;
    const auto outcome = Run(c, {.eager_only = true});
    if (c.expect_raises.empty()) {
      EXPECT_EQ(outcome.Status(), "pass") << "seed " << seed << " " << outcome.result.dump();
      ++ran;
    } else {
      EXPECT_NE(outcome.Status(), "finding") << "seed " << seed << " " << outcome.result.dump();
    }
  }
  EXPECT_GE(ran, 50);
}

TEST_F(OracleFullTier, PlantedDifferenceInTheCompiledBlockMaskIsAWrongResult) {
  corpus::Case c = FirstGenerated([](const corpus::Case &c) {
    return c.api == "create_block_mask" && c.expect_raises.empty() &&
           c.create_block_mask.q_len <= 256 && c.create_block_mask.kv_len <= 256;
  });
  const auto clean = Run(c);
  ASSERT_EQ(clean.Status(), "pass") << clean.result.dump(2);
  const auto planted = Run(c, {.test_plant = "flip-one-block"});
  EXPECT_EQ(planted.Status(), "finding");
  EXPECT_EQ(planted.Kind(), "wrong-result");
  ASSERT_GE(planted.result["mismatches"].size(), 1u);
  EXPECT_EQ(planted.result["mismatches"][0]["field"], "kv_num_blocks");
  EXPECT_EQ(planted.result["mismatches"][0]["first_index"], nlohmann::json::array({0, 0, 0}));
}

TEST_F(OracleTest, BlockMaskPlantIsCaughtByTheWorkerAndTheScript) {
  ExpectEveryPlantCaught(SmallCase("plant-block-mask", "create_block_mask"),
                         {{"kv-num-blocks", "kv_num_blocks"}});
}

TEST_F(OracleFullTier, EveryOtherBlockMaskPlantIsCaughtByTheWorkerAndTheScript) {
  ExpectEveryPlantCaught(SmallCase("plant-block-mask", "create_block_mask"),
                         {{"block-size", "BLOCK_SIZE"}, {"seq-lengths", "seq_lengths"}});
}

TEST_F(OracleTest, CreateMaskPlantIsCaughtByTheWorkerAndTheScript) {
  ExpectEveryPlantCaught(SmallCase("plant-create-mask", "create_mask"), {{"create-mask", "mask"}});
}

TEST_F(OracleTest, AttentionPlantIsCaughtByTheWorkerAndTheScript) {
  ExpectEveryPlantCaught(SmallCase("plant-attention", "flex_attention"),
                         {{"attention-value", "output"}});
}

// A tensor program's outputs and its inputs after the call (an in-place update) are both
// compared, by the worker and by the emitted script.
TEST_F(OracleTest, TensorProgramOutputPlantIsCaughtByTheWorkerAndTheScript) {
  ExpectEveryPlantCaught(
      corpus::LoadCaseFile(kSourceDir / "tests/cases/tensor-program-transposed-mm.json"),
      {{"program-output", "output0"}});
}

TEST_F(OracleFullTier, TensorProgramInputPlantIsCaughtByTheWorkerAndTheScript) {
  ExpectEveryPlantCaught(
      corpus::LoadCaseFile(kSourceDir / "tests/cases/tensor-program-transposed-mm.json"),
      {{"program-input", "input0"}});
}

TEST_F(OracleFullTier, AttentionNanPlantIsCaughtByTheWorkerAndTheScript) {
  ExpectEveryPlantCaught(SmallCase("plant-attention", "flex_attention"),
                         {{"attention-nan", "output_nan"}});
}

// A case calling one compiled function twice, a closure constant and the shape changed between
// the calls: the second call recompiles, and both calls are compared against eager, by the
// worker and by the script alike.
TEST_F(OracleTest, ACallSequenceRecompilesAndEveryCallIsCompared) {
  const corpus::Case c =
      corpus::LoadCaseFile(kSourceDir / "tests/cases/sliding-window-two-calls.json");
  const auto clean = Run(c);
  ASSERT_EQ(clean.Status(), "pass") << clean.result.dump(2);
  EXPECT_EQ(clean.result["calls"], 2);
  const nlohmann::json graphs = clean.result["graphs_after_call"];
  ASSERT_EQ(graphs.size(), 2u) << clean.result.dump(2);
  EXPECT_GT(graphs[1].get<int>(), graphs[0].get<int>()) << "the second call recompiled";
  EXPECT_TRUE(clean.result["phases"].contains("call1_compiled_seconds"));
  EXPECT_TRUE(clean.result["knobs_in_force"].contains("dynamic")) << "dynamic is left to Dynamo";
  ExpectEveryPlantCaught(c, {{"create-mask", "call1.mask"}});
}

// Eager is the reference: a case that fails before torch.compile runs is broken, not a bug in
// Inductor, and must not be filed as a finding.
TEST_F(OracleTest, CasesBrokenBeforeCompilingAreInvalidNotFindings) {
  struct Broken {
    corpus::Case c;
    std::string phase;
    std::string type;
  };
  const std::vector<Broken> broken = {
      {SmallCase("misspelt-name", "create_block_mask", {{"mask_mod", {{"name", "casual"}}}}),
       "define", "builtins.NameError"},
      {SmallCase("syntax-error", "create_block_mask",
                 {{"mask_mod",
                   {{"source", "def causal(b, h, q_idx, kv_idx):\n"
                               "    return q_idx >= = kv_idx\n"}}}}),
       "define", "builtins.SyntaxError"},
      {SmallCase(
           "table-index-out-of-range", "create_mask",
           {{"tensors",
             {{{"name", "table"}, {"dtype", "int64"}, {"shape", {4}}, {"values", {0, 1, 2, 3}}}}},
            {"mask_mod",
             {{"source", "def causal(b, h, q_idx, kv_idx):\n"
                         "    return table[q_idx] >= kv_idx\n"}}}}),
       "eager", "builtins.IndexError"},
  };
  // A block mask of 512 used on inputs of 256 no longer reaches the worker: the shape is one,
  // and the case reader refuses the disagreement in one line.
  EXPECT_THROW(SmallCase("mask-512-on-256", "flex_attention",
                         {{"create_block_mask", {{"Q_LEN", 512}, {"KV_LEN", 512}}},
                          {"attention", {{"Q_LEN", 256}, {"KV_LEN", 256}}}}),
               corpus::CaseError);
  for (const auto &[c, phase, type] : broken) {
    SCOPED_TRACE(c.name);
    const auto outcome = Run(c);
    EXPECT_EQ(outcome.Status(), "invalid-case") << outcome.result.dump(2);
    EXPECT_EQ(outcome.Kind(), "");
    EXPECT_TRUE(outcome.result["kind"].is_null());
    EXPECT_EQ(outcome.result["phase"], phase);
    EXPECT_EQ(outcome.result["exception"]["type"], type);
    EXPECT_TRUE(outcome.result["exception"]["innermost"].contains("frame"));
  }
  // The script says so too, and does not call it a mismatch.
  const auto script = RunScript(broken.back().c);
  EXPECT_EQ(script.status.exit_code, 2) << script.output;
  EXPECT_NE(script.output.find("INVALID CASE"), std::string::npos) << script.output;
}

// The script carries the worker's oracle modules byte for byte, and the case readably.
TEST(ReproScriptTest, EmbedsTheWorkerOraclesVerbatimAndShowsTheCase) {
  corpus::Case c = SmallCase("readable", "create_block_mask");
  c.inductor.cpp_threads = 8;
  const std::string script = worker::EmitPythonScript(c);
  for (const auto *module : {"inductor_fuzz_worker.exceptions", "inductor_fuzz_worker.oracles"})
    EXPECT_NE(script.find(worker::WorkerModuleSource(module)), std::string::npos) << module;
  EXPECT_NE(script.find("MASK_MOD_SOURCE = '''\\\ndef causal(b, h, q_idx, kv_idx):\n"
                        "    return q_idx >= kv_idx\n'''"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("\"source\": MASK_MOD_SOURCE"), std::string::npos);
  EXPECT_NE(script.find("\"cpp.threads\": 8,"), std::string::npos);
  EXPECT_NE(script.find("\"force_disable_caches\": True,"), std::string::npos);
  EXPECT_LT(script.find("CASE = "), script.find("def main()"));
  EXPECT_LT(script.find("def main()"), script.find("class Api"));
  EXPECT_THROW(worker::WorkerModuleSource("inductor_fuzz_worker.nope"), std::invalid_argument);
}

TEST_F(OracleTest, DataDependentMaskIsAnExpectedExceptionOfItsClass) {
  generate::GenerationPolicy policy = generate::GenerationPolicy::Default();
  policy.Override(nlohmann::json::parse(R"({"numbers": {"p_data_dependent": 1, "p_op_program": 0,
      "p_tensor_program": 0}, "weights": {"api": {"create_mask": 0, "flex_attention": 0}}})"));
  const corpus::Case c = generate::GenerateCase({3, 0, ""}, policy).c;
  ASSERT_EQ(c.expect_raises, "data-dependent");
  const auto outcome = Run(c);
  EXPECT_EQ(outcome.Status(), "expected") << outcome.result.dump(2);
  EXPECT_EQ(outcome.result["exception"]["class"], "data-dependent");
  EXPECT_TRUE(outcome.result["exception"]["expected"].get<bool>());
}

TEST_F(OracleFullTier, GeneratedCasesOfEveryApiRunAndTheirScriptsReproduceThem) {
  for (const std::string api : {"create_mask", "flex_attention"}) {
    // A vector width this CPU has: simdlen 512 on a machine without AVX-512 (and simdlen 1
    // anywhere) ends in Inductor's micro-GEMM assertion, a known issue, not this test's subject.
    const auto runs_here = [](const corpus::Case &c) {
      const auto simdlen = c.inductor.cpp_simdlen;
      return !simdlen || *simdlen == 256 || (*simdlen == 512 && __builtin_cpu_supports("avx512f"));
    };
    const corpus::Case c = FirstGenerated([&api, &runs_here](const corpus::Case &c) {
      return c.api == api && c.expect_raises.empty() && c.create_block_mask.q_len <= 256 &&
             c.create_block_mask.kv_len <= 256 && runs_here(c);
    });
    SCOPED_TRACE(c.name);
    const auto outcome = Run(c);
    EXPECT_TRUE(outcome.Status() == "pass" || outcome.Status() == "finding");
    EXPECT_NE(outcome.Kind(), "crash");
    EXPECT_NE(outcome.Kind(), "timeout");
    if (outcome.Status() == "pass") {
      EXPECT_GE(outcome.result["builds"].size(), 1u);
    }
    if (api == "flex_attention") {
      ASSERT_TRUE(outcome.result["attention_errors"]["compiled"].is_object())
          << outcome.result.dump(2);
      EXPECT_LE(outcome.result["attention_errors"]["compiled"]["max_abs_error"].get<double>(),
                outcome.result["attention_errors"]["limit"].get<double>());
    }

    const auto script = scratch_ / (c.name + ".py");
    support::WriteFileAtomically(script, worker::EmitPythonScript(c));
    support::SpawnOptions options;
    options.stderr_file = scratch_ / (c.name + ".stderr");
    const auto run = support::RunCommand(
        {(kSourceDir / ".venv/bin/python").string(), script.string()}, options, 900s);
    EXPECT_EQ(run.output.rfind("torch 2.15.0", 0), 0u) << run.output;
    EXPECT_NE(run.output.find("cpp.threads = " + std::to_string(c.inductor.cpp_threads)),
              std::string::npos);
    EXPECT_EQ(run.status.exit_code, outcome.Status() == "pass" ? 0 : 1) << run.output;
    if (outcome.Status() == "pass") {
      EXPECT_NE(run.output.find("PASS"), std::string::npos) << run.output;
    }
  }
}

} // namespace
} // namespace fuzzer

namespace fuzzer {
namespace {

// A silent wrong result keyed by its cause, on real torch: the half-precision clamp bug's reduced
// case says how and where it is wrong and which template computed it, its probe finds that it
// passes in float32, and run-case names its known issue. A miscompile planted in the decoding
// template (bench/injected_bugs) is wrong in another way, on another path: no known issue.
TEST(WrongResultKey, SaysHowWhereWhichPathAndWhatItNeedsAndMatchesItsOwnKnownIssue) {
  const auto scratch = std::filesystem::temp_directory_path() /
                       ("inductor-fuzz-wrong-key-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(scratch);
  const auto clamp = kSourceDir / "corpus/findings/reduced/wrong-result-half-clamp-score-mod";
  const auto run = test_support::RunInductorFuzz(
      {"run-case", (clamp / "case.json").string(), "--out", (scratch / "clamp").string()});
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  const auto result = nlohmann::json::parse(std::ifstream(scratch / "clamp" / "result.json"));
  EXPECT_EQ(result["signature"],
            "wrong-result|api=flex_attention|fields=output|problems=compiled output off the "
            "reference|how=off|where=everywhere|template=flex-prefill|wrapper=python|"
            "shapes=static");
  EXPECT_EQ(result["probe"]["needs"], nlohmann::json::array({"dtype=16-bit"})) << result["probe"];
  EXPECT_EQ(result["finding"]["detail"]["probe"], result["probe"]);
  EXPECT_NE(run.out.find("needs=dtype=16-bit"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("known issue: flex-cpu-half-clamp-score-mod"), std::string::npos)
      << run.out;

  const auto injected = test_support::RunInductorFuzz(
      {"run-case", (kSourceDir / "bench/injected_bugs/cases/flex-decode-offset.json").string(),
       "--out", (scratch / "injected").string(), "--probe-runs", "0"},
      std::chrono::seconds(900),
      {{"PYTHONPATH", (kSourceDir / "bench/injected_bugs").string()},
       {"INDUCTOR_FUZZ_INJECT", "flex-decode-offset"}});
  ASSERT_EQ(injected.exit_code, 1) << injected.out << injected.err;
  const auto planted = nlohmann::json::parse(std::ifstream(scratch / "injected" / "result.json"));
  const std::string signature = planted["signature"];
  EXPECT_NE(signature.find("|how=offset|where=everywhere|template=flex-decoding|"),
            std::string::npos)
      << signature;
  EXPECT_FALSE(planted.contains("probe"));
  EXPECT_NE(injected.out.find("known issue: none matches"), std::string::npos) << injected.out;

  // The same miscompile under cpp.threads=1, where the real scratch overflow kills the worker
  // first: the probe's rerun with Inductor's thread count shows the wrong result the crash hid.
  const auto hidden = test_support::RunInductorFuzz(
      {"run-case", (kSourceDir / "tests/fixtures/probe/decode-offset-behind-a-crash.json").string(),
       "--out", (scratch / "hidden").string()},
      std::chrono::seconds(900),
      {{"PYTHONPATH", (kSourceDir / "bench/injected_bugs").string()},
       {"INDUCTOR_FUZZ_INJECT", "flex-decode-offset"},
       {"OMP_NUM_THREADS", "2"}});
  ASSERT_EQ(hidden.exit_code, 1) << hidden.out << hidden.err;
  const auto crashed = nlohmann::json::parse(std::ifstream(scratch / "hidden" / "result.json"));
  EXPECT_EQ(crashed["kind"], "crash") << crashed.dump(2);
  ASSERT_TRUE(crashed.contains("revealed")) << crashed.dump(2);
  EXPECT_EQ(crashed["revealed"]["setting_put_back"], "cpp.threads=1");
  const std::string shown = crashed["revealed"]["signature"];
  EXPECT_NE(shown.find("wrong-result|"), std::string::npos) << shown;
  EXPECT_NE(shown.find("|how=offset|where=everywhere|template=flex-decoding|"), std::string::npos)
      << shown;
  EXPECT_NE(hidden.out.find("the crash hid another failure"), std::string::npos) << hidden.out;
  // Its case is the rerun's: Inductor's own thread count.
  const auto revealed_case = corpus::LoadCaseFile(crashed["revealed"]["case"].get<std::string>());
  EXPECT_TRUE(revealed_case.inductor.defaulted.contains("cpp.threads"));
  std::filesystem::remove_all(scratch);
}

// The sanitizer oracle on real torch: flex_attention with cpp.threads=1 sizes its per-thread
// scratch for one thread while at::parallel_for runs on two (OMP_NUM_THREADS=2); the second
// thread writes past the scratch. With cpp.threads=2 the same case is clean.
TEST(SanitizerOracleFullTier, FindsTheFlexAttentionScratchOverflowAndNothingWhenThreadsMatch) {
  const auto scratch = std::filesystem::temp_directory_path() /
                       ("inductor-fuzz-sanitizer-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(scratch);
  const auto fixture = kSourceDir / "tests/fixtures/sanitizer/flex_threads1.json";
  const std::map<std::string, std::string> two_threads = {{"OMP_NUM_THREADS", "2"}};
  const auto run = test_support::RunInductorFuzz({"run-case", fixture.string(), "--out",
                                                  (scratch / "threads1").string(), "--sanitize",
                                                  "address,undefined"},
                                                 std::chrono::seconds(1800), two_threads);
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  const auto result = nlohmann::json::parse(std::ifstream(scratch / "threads1" / "result.json"));
  EXPECT_EQ(result["kind"], "memory-error") << result.dump(2);
  // Past the scratch, the write lands in a live chunk's redzone (out-of-bounds-access) or in a
  // chunk freed a moment before (heap-use-after-free): which one depends on the allocator's
  // order, which differs between machines and runs. Kernel and statement do not.
  const std::string signature = result.value("signature", "");
  EXPECT_TRUE(signature == "memory-error|error=out-of-bounds-access|access=WRITE|kernel=kernel_"
                           "fill_stub<float>|statement=data_vec.store(data + d);" ||
              signature == "memory-error|error=heap-use-after-free|access=WRITE|kernel=kernel_"
                           "fill_stub<float>|statement=data_vec.store(data + d);")
      << result.dump(2);
  const auto &finding = result["finding"];
  ASSERT_GE(finding["source_lines"].size(), 2u) << finding.dump(2);
  // The caller in the kernel: the max row of the thread's scratch, past its end.
  EXPECT_NE(
      finding["source_lines"][1]["text"].get<std::string>().find("kernel_fill_stub(qk_max_data"),
      std::string::npos)
      << finding.dump(2);
  EXPECT_EQ(result["provenance"]["sanitizer"]["checks"],
            nlohmann::json::array({"address", "undefined"}));

  // The control: the same case, its scratch sized for the threads that run.
  auto matched = nlohmann::json::parse(std::ifstream(fixture));
  matched["inductor"]["cpp.threads"] = 2;
  std::ofstream(scratch / "threads2.json") << matched.dump(2);
  const auto clean = test_support::RunInductorFuzz(
      {"run-case", (scratch / "threads2.json").string(), "--out", (scratch / "threads2").string(),
       "--sanitize", "address,undefined"},
      std::chrono::seconds(1800), two_threads);
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  std::filesystem::remove_all(scratch);
}

// The matrix's sanitizer column on the same bug, from a plain run-case: the worker that dies
// of the corruption still leaves its compile commands and the kernel call it died in, and the
// sanitized rebuild of that TU, replayed on that call, names the kernel and the statement.
TEST(SanitizerOracleFullTier, TheMatrixSanitizerColumnReplaysTheCallACrashedCaseDiedIn) {
  const auto scratch = std::filesystem::temp_directory_path() /
                       ("inductor-fuzz-sanitizer-matrix-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(scratch);
  const std::map<std::string, std::string> two_threads = {{"OMP_NUM_THREADS", "2"}};
  const auto run = test_support::RunInductorFuzz(
      {"run-case", (kSourceDir / "tests/fixtures/sanitizer/flex_threads1.json").string(), "--out",
       (scratch / "threads1").string()},
      std::chrono::seconds(1800), two_threads);
  // The corruption usually kills the worker; when it does not, the recording is whole.
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.out << run.err;
  const auto commands =
      nlohmann::json::parse(std::ifstream(scratch / "threads1" / "commands.json"))["commands"];
  ASSERT_FALSE(commands.empty()) << run.err;
  ASSERT_TRUE(commands[0].contains("recording")) << commands.dump(2);

  const auto matrix = test_support::RunInductorFuzz(
      {"matrix", (scratch / "threads1").string(), "--compilers", "g++-12", "--sanitize",
       "address,undefined", "--json", (scratch / "matrix.json").string()},
      std::chrono::seconds(1800), two_threads);
  EXPECT_EQ(matrix.exit_code, 1) << matrix.out << matrix.err;
  EXPECT_NE(matrix.out.find("MEM-ERROR"), std::string::npos) << matrix.out;
  EXPECT_NE(matrix.out.find("the sanitizers add"), std::string::npos) << matrix.out;
  const auto record = nlohmann::json::parse(std::ifstream(scratch / "matrix.json"));
  const auto &errors = record["tus"][0]["memory_errors"];
  ASSERT_EQ(errors.size(), 1u) << record.dump(2);
  const std::string signature = errors[0]["signature"];
  EXPECT_NE(signature.find("|access=WRITE|kernel=kernel_fill_stub<float>|statement=data_vec.store("
                           "data + d);"),
            std::string::npos)
      << signature;
  EXPECT_EQ(record["provenance"]["sanitizer"]["compiler"], "g++-12");
  std::filesystem::remove_all(scratch);
}

// A planted bug (tests/fixtures/sanitizer/plant_past_end): a kernel whose bool output's last
// dimension (KV_LEN 100) is not a multiple of the block size writes one element past it. The
// byte lands in the allocator's slack, so the case passes against eager; the sanitizer column
// finds the write, in the kernel, at the planted statement, one element past out_ptr0.
TEST(SanitizerOracle, APlantedWritePastTheOutputIsFoundThoughTheOutputsMatchEager) {
  const auto scratch = std::filesystem::temp_directory_path() /
                       ("inductor-fuzz-sanitizer-plant-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(scratch);
  const std::map<std::string, std::string> plant = {
      {"PYTHONPATH", (kSourceDir / "tests/fixtures/sanitizer/plant_past_end").string()}};
  const auto run = test_support::RunInductorFuzz(
      {"run-case", (kSourceDir / "tests/fixtures/sanitizer/mask_kv100.json").string(), "--out",
       (scratch / "case").string()},
      std::chrono::seconds(900), plant);
  ASSERT_EQ(run.exit_code, 0) << "the outputs match eager: " << run.out << run.err;

  const auto matrix = test_support::RunInductorFuzz(
      {"matrix", (scratch / "case").string(), "--compilers", "g++-12", "--sanitize", "address",
       "--json", (scratch / "matrix.json").string()},
      std::chrono::seconds(900));
  EXPECT_EQ(matrix.exit_code, 1) << matrix.out << matrix.err;
  const auto record = nlohmann::json::parse(std::ifstream(scratch / "matrix.json"));
  const auto &row = record["tus"][0];
  ASSERT_EQ(row["memory_errors"].size(), 1u) << record.dump(2);
  const auto &error = row["memory_errors"][0];
  EXPECT_EQ(error["signature"],
            "memory-error|error=out-of-bounds-access|access=WRITE|kernel=kernel|statement="
            "out_ptr0[10000L] = out_ptr0[9999L]; // planted: one element past the output");
  const auto &detail = error["detail"];
  EXPECT_EQ(detail["sanitizer_error"], "heap-buffer-overflow");
  EXPECT_EQ(detail["access_size"], 1);
  EXPECT_EQ(detail["bytes_past_region"], 0);
  EXPECT_EQ(detail["argument"]["name"], "out_ptr0") << detail.dump(2);
  EXPECT_EQ(detail["argument"]["element"], 10000);
  EXPECT_EQ(detail["argument"]["elements_past_end"], 0);
  EXPECT_NE(matrix.out.find("element 10000 of out_ptr0 (argument 0, 10000 x bool), 0 past its end"),
            std::string::npos)
      << matrix.out;
  // The plain build, replayed on the same call, computes what Inductor's did.
  EXPECT_EQ(row["builds"][0]["compiler"], "g++-12");
  EXPECT_EQ(row["builds"][0]["runtime"], "same") << row.dump(2);
  EXPECT_EQ(row["reference_runtime"], "same");

  // clang++ as the sanitizer compiler, its own runtime preloaded: the same finding.
  const auto clang = test_support::RunInductorFuzz(
      {"matrix", (scratch / "case").string(), "--compilers", "g++-12", "--sanitize", "address",
       "--sanitize-compiler", "clang++-19", "--json", (scratch / "clang.json").string()},
      std::chrono::seconds(900));
  EXPECT_EQ(clang.exit_code, 1) << clang.out << clang.err;
  const auto clang_record = nlohmann::json::parse(std::ifstream(scratch / "clang.json"));
  const auto &clang_errors = clang_record["tus"][0]["memory_errors"];
  ASSERT_EQ(clang_errors.size(), 1u) << clang_record.dump(2);
  EXPECT_EQ(clang_errors[0]["signature"], error["signature"]);
  EXPECT_EQ(clang_errors[0]["compilers"][0], "clang++-19+asan");
  EXPECT_EQ(clang_errors[0]["detail"]["argument"]["elements_past_end"], 0);
  std::filesystem::remove_all(scratch);
}

TEST(SanitizerOracle, BadSanitizerOptionsAreOneLineErrors) {
  const auto fixture = kSourceDir / "tests/fixtures/sanitizer/flex_threads1.json";
  const auto out = std::filesystem::temp_directory_path() / "inductor-fuzz-sanitizer-bad";
  for (const auto &[arguments, expected] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--sanitize", "memory"}, "sanitizer 'memory' is not known"},
           {{"--sanitize", "address", "--sanitize-compiler", "nvcc"}, "give a g++ or a clang++"},
           {{"--sanitize", "address", "--sanitize-compiler", "g++-99"}, "is not installed"}}) {
    std::vector<std::string> argv = {"run-case", fixture.string(), "--out", out.string()};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const auto run = test_support::RunInductorFuzz(argv, std::chrono::seconds(120));
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_NE(run.err.find(expected), std::string::npos) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }
  EXPECT_FALSE(std::filesystem::exists(out)) << "nothing written for bad options";
}

} // namespace
} // namespace fuzzer
