// The generator and the oracles on the real torch: eager validity, a planted wrong result,
// expected exceptions, generated cases of every API, and the emitted Python scripts.
#include "fuzzer/generate/generator.h"
#include "fuzzer/support/text_file.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/repro_script.h"
#include "fuzzer/worker/worker_client.h"

#include <gtest/gtest.h>

#include <set>

namespace fuzzer {
namespace {

using namespace std::chrono_literals;

const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

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
    return worker::RunCaseOnWorker(*worker_, c, scratch_ / ("cache-" + c.name), 900s, options);
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

TEST_F(OracleTest, GeneratedCasesRunEagerlyUnlessMarkedToRaise) {
  int ran = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const corpus::Case c =
        generate::GenerateCase({seed, 0, ""}, generate::GenerationPolicy::Default()).c;
    const auto outcome = Run(c, {.eager_only = true});
    if (c.expect_raises.empty()) {
      EXPECT_EQ(outcome.status, "pass") << "seed " << seed << " " << outcome.result.dump();
      ++ran;
    } else {
      EXPECT_NE(outcome.status, "finding") << "seed " << seed << " " << outcome.result.dump();
    }
  }
  EXPECT_GE(ran, 50);
}

TEST_F(OracleTest, PlantedDifferenceInTheCompiledBlockMaskIsAWrongResult) {
  corpus::Case c = FirstGenerated([](const corpus::Case &c) {
    return c.api == "create_block_mask" && c.expect_raises.empty() &&
           c.create_block_mask.q_len <= 256 && c.create_block_mask.kv_len <= 256;
  });
  const auto clean = Run(c);
  ASSERT_EQ(clean.status, "pass") << clean.result.dump(2);
  const auto planted = Run(c, {.test_plant = "flip-one-block"});
  EXPECT_EQ(planted.status, "finding");
  EXPECT_EQ(planted.kind, "wrong-result");
  ASSERT_GE(planted.result["mismatches"].size(), 1u);
  EXPECT_EQ(planted.result["mismatches"][0]["field"], "kv_num_blocks");
  EXPECT_EQ(planted.result["mismatches"][0]["first_index"], nlohmann::json::array({0, 0, 0}));
}

TEST_F(OracleTest, DataDependentMaskIsAnExpectedExceptionOfItsClass) {
  generate::GenerationPolicy policy = generate::GenerationPolicy::Default();
  policy.Override(nlohmann::json::parse(R"({"numbers": {"p_data_dependent": 1},
      "weights": {"api": {"create_mask": 0, "flex_attention": 0}}})"));
  const corpus::Case c = generate::GenerateCase({3, 0, ""}, policy).c;
  ASSERT_EQ(c.expect_raises, "data-dependent");
  const auto outcome = Run(c);
  EXPECT_EQ(outcome.status, "expected") << outcome.result.dump(2);
  EXPECT_EQ(outcome.result["exception"]["class"], "data-dependent");
  EXPECT_TRUE(outcome.result["exception"]["expected"].get<bool>());
}

TEST_F(OracleTest, GeneratedCasesOfEveryApiRunAndTheirScriptsReproduceThem) {
  for (const std::string api : {"create_mask", "flex_attention"}) {
    const corpus::Case c = FirstGenerated([&api](const corpus::Case &c) {
      return c.api == api && c.expect_raises.empty() && c.create_block_mask.q_len <= 256 &&
             c.create_block_mask.kv_len <= 256;
    });
    SCOPED_TRACE(c.name);
    const auto outcome = Run(c);
    EXPECT_TRUE(outcome.status == "pass" || outcome.status == "finding");
    EXPECT_NE(outcome.kind, "crash");
    EXPECT_NE(outcome.kind, "timeout");
    if (outcome.status == "pass") {
      EXPECT_GE(outcome.result["builds"].size(), 1u);
    }
    if (api == "flex_attention") {
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
    EXPECT_EQ(run.status.exit_code, outcome.status == "pass" ? 0 : 1) << run.output;
    if (outcome.status == "pass") {
      EXPECT_NE(run.output.find("PASS"), std::string::npos) << run.output;
    }
  }
}

} // namespace
} // namespace fuzzer
