#include "fuzzer/cli/gen_command.h"
#include "fuzzer/generate/generator.h"
#include "fuzzer/support/text_file.h"
#include "fuzzer/worker/repro_script.h"
#include "fuzzer/worker/worker_python.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace fuzzer {
namespace {

const generate::GenerationPolicy kPolicy = generate::GenerationPolicy::Default();

TEST(Generator, SameSeedSameCaseWhateverElseRan) {
  const auto alone = corpus::CaseToJson(generate::GenerateCase({42, 3, "x"}, kPolicy).c).dump();
  for (std::uint64_t i = 0; i < 3; ++i)
    generate::GenerateCase({42, i, "x"}, kPolicy);
  EXPECT_EQ(corpus::CaseToJson(generate::GenerateCase({42, 3, "x"}, kPolicy).c).dump(), alone);
  EXPECT_NE(corpus::CaseToJson(generate::GenerateCase({43, 3, "x"}, kPolicy).c).dump(), alone);
}

// Pins generation: a change here means every stored seed now names a different case, so it
// must come with a bump of kGeneratorVersion.
TEST(Generator, GoldenHashesOfSeedsOneToFive) {
  const std::vector<std::string> golden = {
      "df518f0fc63b317b47c9b8f29713173fad49f302605448d609101ddd0b32df28",
      "cbe1d75011880086398c0d2cc083f7b1fbba9cfaf8944ba5bad9299e9d42dfd7",
      "153f8e0029e7dc05295d1fc183e6a3c1424e396cdaaea7227f687d864d4de67d",
      "f932b530179e4a29a27e2e2be637e24e04b200b2fe3d69c1af978b7617a87aab",
      "ae2459a2e5f8bae12517f2e6b9413ef3147a84b0087426145db45dc1b1e08b76"};
  for (std::uint64_t seed = 1; seed <= 5; ++seed)
    EXPECT_EQ(
        generate::StableCaseHash(generate::GenerateCase({seed, 0, "any command line"}, kPolicy).c),
        golden[seed - 1])
        << "seed " << seed;
}

TEST(Generator, CasesRoundTripThroughJson) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const corpus::Case c = generate::GenerateCase({seed, 0, "gen"}, kPolicy).c;
    EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(c)), c) << "seed " << seed;
    EXPECT_EQ(corpus::CaseFromJson(nlohmann::json::parse(corpus::CaseToJson(c).dump())), c)
        << "seed " << seed;
  }
}

TEST(Generator, ProvenanceRecordsSeedPolicyAndCommandLine) {
  const corpus::Case c = generate::GenerateCase({7, 2, "inductor-fuzz gen --seed 7"}, kPolicy).c;
  EXPECT_EQ(c.provenance["seed"], 7);
  EXPECT_EQ(c.provenance["index"], 2);
  EXPECT_EQ(c.provenance["generator_version"], generate::kGeneratorVersion);
  EXPECT_EQ(c.provenance["policy_sha256"], kPolicy.Sha256());
  EXPECT_EQ(c.provenance["command_line"], "inductor-fuzz gen --seed 7");
  EXPECT_EQ(c.name, "s7-2");
}

TEST(Generator, EveryOptionOfThePolicyIsReachedOver2000Seeds) {
  const auto totals = generate::CountFeatures(kPolicy, 1, 2000);
  for (const auto &[category, options] : kPolicy.weights)
    for (const auto &[option, weight] : options)
      EXPECT_GT(totals.at(category + ":" + option), 0) << category << ":" << option;
  for (const char *feature :
       {"compose:and_masks", "compose:or_masks", "shape:B=None", "shape:H=None",
        "shape:q_len!=kv_len", "shape:grouped_query", "shape:Ev!=E", "data_dependent",
        "negative_divisor", "cpp_wrapper:true", "dynamic:true", "max_autotune:true",
        "freezing:true", "cpp.enable_loop_tail_vec:false", "cpp.dynamic_threads:true"})
    EXPECT_GT(totals.count(feature) ? totals.at(feature) : 0, 0) << feature;
}

TEST(Generator, GeneratedCasesAreWellFormed) {
  for (std::uint64_t seed = 1; seed <= 500; ++seed) {
    const corpus::Case c = generate::GenerateCase({seed, 0, ""}, kPolicy).c;
    SCOPED_TRACE("seed " + std::to_string(seed));
    if (c.api != "flex_attention") {
      ASSERT_TRUE(c.mask_mod.has_value());
    }
    if (c.api == "flex_attention") {
      ASSERT_TRUE(c.attention.has_value());
      EXPECT_TRUE(c.mask_mod || c.score_mod);
      EXPECT_EQ(c.attention->q_heads % c.attention->kv_heads, 0);
      EXPECT_EQ(c.attention->enable_gqa, c.attention->q_heads != c.attention->kv_heads);
    }
    for (const auto &tensor : c.tensors) {
      std::int64_t elements = 1;
      for (auto extent : tensor.shape)
        elements *= extent;
      EXPECT_EQ(static_cast<std::int64_t>(tensor.size()), elements) << tensor.name;
    }
    if (!c.expect_raises.empty()) {
      EXPECT_NE(c.mask_mod->source.find(".item()"), std::string::npos);
    }
  }
}

TEST(Generator, PolicyOverridesSteerGenerationAndRejectUnknownNames) {
  generate::GenerationPolicy policy = generate::GenerationPolicy::Default();
  policy.Override(nlohmann::json::parse(
      R"({"weights": {"api": {"create_block_mask": 0, "create_mask": 0}}, "numbers": {"p_dynamic": 1}})"));
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const corpus::Case c = generate::GenerateCase({seed, 0, ""}, policy).c;
    EXPECT_EQ(c.api, "flex_attention");
    EXPECT_TRUE(c.inductor.dynamic);
  }
  EXPECT_NE(policy.Sha256(), kPolicy.Sha256());
  EXPECT_THROW(policy.Override(nlohmann::json::parse(R"({"weights": {"apis": {}}})")),
               support::InputError);
  EXPECT_THROW(policy.Override(nlohmann::json::parse(R"({"numbers": {"p_dynamic": -1}})")),
               support::InputError);
  EXPECT_THROW(policy.Override(nlohmann::json::parse(R"({"weights": {"api": {"eager": 1}}})")),
               support::InputError);
}

TEST(Generator, PythonScriptIsStandaloneAndPrintsVersionAndSettingsFirst) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const corpus::Case c = generate::GenerateCase({seed, 0, "gen"}, kPolicy).c;
    const std::string script = worker::EmitPythonScript(c);
    EXPECT_NE(script.find("import torch\n"), std::string::npos);
    const auto version = script.find("print(\"torch\", torch.__version__)");
    ASSERT_NE(version, std::string::npos);
    EXPECT_LT(version, script.find("api.run_compiled("));
    EXPECT_NE(script.find(fmt::format("\"cpp.threads\": {}", c.inductor.cpp_threads)),
              std::string::npos);
    if (c.mask_mod) {
      EXPECT_NE(script.find(c.mask_mod->source), std::string::npos);
    }
    EXPECT_NE(script.find("sys.exit(main())"), std::string::npos);
    // One oracle: the script compares with the worker's own code, embedded, not a copy.
    const std::string oracles(worker::WorkerModuleSource("inductor_fuzz_worker.oracles"));
    const auto compare = oracles.find("def compare_block_masks(");
    ASSERT_NE(compare, std::string::npos);
    EXPECT_NE(script.find(oracles.substr(compare, oracles.find("\ndef ", compare + 1) - compare)),
              std::string::npos);
  }
}

} // namespace
} // namespace fuzzer
