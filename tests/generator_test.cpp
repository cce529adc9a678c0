#include "binary_runner.h"
#include "fuzzer/cli/gen_command.h"
#include "fuzzer/generate/generator.h"
#include "fuzzer/support/text_file.h"
#include "fuzzer/worker/repro_script.h"
#include "fuzzer/worker/worker_python.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

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
// must come with a bump of kGeneratorVersion. (Version 3 changed only the provenance of these
// five: none of them has a mask that reads an index its block mask broadcasts. Version 4, with
// p_aoti in the policy, changed their provenance again: none of them is drawn with aoti.)
TEST(Generator, GoldenHashesOfSeedsOneToFive) {
  const std::vector<std::string> golden = {
      "df498e925fbe87c71fc3bd697fc04d8ab9d8c12f5168bc903d84e07401470fe8",
      "43f1fa5ee206f48c5d2a976740a4ef4c5dca0825a7aaf73a204f1de04607ca22",
      "004a590ae8a2ccd8839dd85347cdd4c461f7b42ffe843dc1535c7d9727c84568",
      "955cd95b88273628612a6fed9f59c0f13dc8019d94075269d1f7821012154804",
      "cc16480448d312f5295542e7cd062fc0e41b07c0750cc3c83a78a81b92987d80"};
  for (std::uint64_t seed = 1; seed <= 5; ++seed)
    EXPECT_EQ(
        generate::StableCaseHash(generate::GenerateCase({seed, 0, "any command line"}, kPolicy).c),
        golden[seed - 1])
        << "seed " << seed;
}

// Call sequences come from their own random stream: a case the default policy draws without one
// is exactly the case a policy without sequences draws, and one with a sequence closes over the
// constants its later calls change.
TEST(Generator, CallSequencesLeaveOtherCasesAsTheyWereAndChangeWhatTheyClose) {
  generate::GenerationPolicy no_sequences = generate::GenerationPolicy::Default();
  no_sequences.Override(nlohmann::json::parse(R"({"numbers": {"p_call_sequence": 0}})"));
  int sequences = 0, with_constants = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    corpus::Case c = generate::GenerateCase({seed, 0, ""}, kPolicy).c;
    corpus::Case plain = generate::GenerateCase({seed, 0, ""}, no_sequences).c;
    SCOPED_TRACE("seed " + std::to_string(seed));
    if (c.calls.empty()) {
      c.provenance.erase("policy_sha256");
      plain.provenance.erase("policy_sha256");
      EXPECT_EQ(c, plain);
      continue;
    }
    ++sequences;
    EXPECT_EQ(corpus::FormatVersionOf(c), 2);
    for (const auto &[name, value] : c.constants.items()) {
      ++with_constants;
      const std::string sources =
          (c.mask_mod ? c.mask_mod->source : "") + (c.score_mod ? c.score_mod->source : "");
      EXPECT_NE(sources.find(name), std::string::npos) << name << " is used by a function";
    }
    for (const auto &call : c.calls)
      for (const auto &[name, value] : call.constants.items())
        EXPECT_NE(value, c.constants[name]) << "a call changes the constant it names";
  }
  EXPECT_GT(sequences, 30);
  EXPECT_LT(sequences, 100);
  EXPECT_GT(with_constants, 20);
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

// Whether a mask's source reads the index `name` anywhere but in a def's parameter list: as a
// leaf, in a table's index (head_offset_0[h]), in any expression.
bool MaskReads(const std::string &source, const std::string &name) {
  const std::regex word("\\b" + name + "\\b");
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);)
    if (!line.starts_with("def ") && std::regex_search(line, word))
      return true;
  return false;
}

// create_block_mask's contract (docs/contracts.md): B=None (H=None) means the mask is the same
// for every batch element (head). `gen` never makes a mask that reads b with B=None or h with
// H=None, on the seeds a default and the README's nightly campaign start from; the shapes agree
// (block mask and inputs, GQA heads) and masks still read b and h where B and H are given.
TEST(Generator, GenMakesNoMaskThatReadsAnIndexItsBlockMaskBroadcasts) {
  for (const char *seed : {"1", "20261122"}) {
    SCOPED_TRACE(std::string("seed ") + seed);
    const auto run = testing::RunInductorFuzz({"gen", "--seed", seed, "--count", "2000"},
                                              std::chrono::seconds(120), {}, 64 << 20);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::istringstream lines(run.out);
    int cases = 0, broadcast_masks = 0;
    std::map<std::string, int> reads; // "b", "h": masks reading it where it is given
    for (std::string line; std::getline(lines, line); ++cases) {
      const corpus::Case c = corpus::CaseFromJson(nlohmann::json::parse(line));
      SCOPED_TRACE(c.name);
      const auto &mask = c.create_block_mask;
      if (c.attention) {
        EXPECT_EQ(c.attention->q_heads % c.attention->kv_heads, 0);
        EXPECT_EQ(c.attention->enable_gqa, c.attention->q_heads != c.attention->kv_heads);
        if (c.attention->use_block_mask) {
          EXPECT_EQ(mask.q_len, c.attention->q_len);
          EXPECT_EQ(mask.kv_len, c.attention->kv_len);
          EXPECT_EQ(mask.batch.value_or(c.attention->batch), c.attention->batch);
          EXPECT_EQ(mask.heads.value_or(c.attention->q_heads), c.attention->q_heads);
        }
      }
      if (!c.mask_mod)
        continue;
      for (const auto &[index, given] :
           {std::pair{"b", mask.batch.has_value()}, std::pair{"h", mask.heads.has_value()}}) {
        const bool read = MaskReads(c.mask_mod->source, index);
        if (!given) {
          ++broadcast_masks;
          EXPECT_FALSE(read) << index << "=None, and the mask reads " << index << ":\n"
                             << c.mask_mod->source;
        } else if (read) {
          ++reads[index];
        }
      }
    }
    EXPECT_EQ(cases, 2000);
    EXPECT_GT(broadcast_masks, 300) << "B=None and H=None still come with masks";
    EXPECT_GT(reads["b"], 20) << "masks still read b where B is given";
    EXPECT_GT(reads["h"], 20) << "masks still read h where H is given";
  }
}

// AOTInductor is drawn from its own stream, last: a case drawn with aoti is the case p_aoti 0
// gives but for compile_with, and only where it applies (one call, nothing expected to raise).
TEST(Generator, AotiIsDrawnAloneOnCasesOfOneCallAndShowsInTheStats) {
  generate::GenerationPolicy no_aoti = generate::GenerationPolicy::Default();
  no_aoti.Override(nlohmann::json::parse(R"({"numbers": {"p_aoti": 0}})"));
  int aoti = 0, applicable = 0;
  std::set<std::string> apis;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    corpus::Case c = generate::GenerateCase({seed, 0, ""}, kPolicy).c;
    corpus::Case plain = generate::GenerateCase({seed, 0, ""}, no_aoti).c;
    EXPECT_EQ(plain.compile_with, corpus::kTorchCompile);
    applicable += generate::AotiApplies(c);
    if (c.compile_with != corpus::kAoti)
      continue;
    ++aoti;
    apis.insert(c.api);
    EXPECT_TRUE(c.calls.empty());
    EXPECT_TRUE(c.expect_raises.empty());
    EXPECT_EQ(corpus::FormatVersionOf(c), 2);
    c.compile_with = corpus::kTorchCompile;
    c.provenance.erase("policy_sha256");
    plain.provenance.erase("policy_sha256");
    EXPECT_EQ(c, plain);
  }
  EXPECT_GT(aoti, applicable / 20); // p_aoti is 0.1
  EXPECT_LT(aoti, applicable / 5);
  EXPECT_EQ(apis.size(), 3u) << "every API is drawn with aoti";
  const auto totals = generate::CountFeatures(kPolicy, 1, 200);
  EXPECT_GT(totals.at("compile_with:aoti"), 0);
  EXPECT_GT(totals.at("compile_with:torch.compile"), totals.at("compile_with:aoti"));
  EXPECT_EQ(generate::CountFeatures(no_aoti, 1, 50).at("compile_with:aoti"), 0)
      << "listed even when never drawn";
}

TEST(Generator, PolicyOverridesSteerGenerationAndRejectUnknownNames) {
  generate::GenerationPolicy policy = generate::GenerationPolicy::Default();
  policy.Override(nlohmann::json::parse(
      R"({"weights": {"api": {"create_block_mask": 0, "create_mask": 0}}, "numbers": {"p_dynamic": 1, "p_call_sequence": 0}})"));
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
