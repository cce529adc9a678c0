#include "apis/api.h"
#include "binary_runner.h"
#include "fuzzer/generate/generator.h"
#include "fuzzer/worker/repro_script.h"
#include "fuzzer/worker/worker_python.h"
#include "support/text_file.h"
#include "workflows/gen.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>
#include <sstream>

namespace fuzzer {
namespace {

// The families before op programs: with p_op_program 0 (and p_tensor_program 0) every case is
// the case version 7 drew (op programs and tensor programs come from their own streams and
// replace a case whole), so that the tests of the other families below see them as they were.
// OpPrograms* test the default policy; tests/tensor_program_test.cpp the tensor programs.
generate::GenerationPolicy WithoutOpPrograms() {
  generate::GenerationPolicy policy = generate::GenerationPolicy::Default();
  policy.Override({{"numbers", {{"p_op_program", 0}, {"p_tensor_program", 0}}}});
  return policy;
}
const generate::GenerationPolicy kPolicy = WithoutOpPrograms();
const generate::GenerationPolicy kDefaultPolicy = generate::GenerationPolicy::Default();

// Op programs replace a case whole, from their own stream: every case the default policy draws
// that is not one is the case the policy without them draws; about p_op_program of the cases
// are one, each loads back.
TEST(OpPrograms, LeaveOtherCasesAsTheyWereAndLoadBack) {
  int programs = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const auto generated = generate::GenerateCase({seed, 0, ""}, kDefaultPolicy);
    corpus::Case c = generated.c;
    corpus::Case plain = generate::GenerateCase({seed, 0, ""}, kPolicy).c;
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(c)), c);
    if (c.api == corpus::kTensorProgram)
      continue; // drawn first, from their own stream: no op program is drawn for them
    if (generated.features.contains("op_program")) {
      ++programs;
      EXPECT_EQ(c.api, corpus::kIndexProgram);
      EXPECT_TRUE(c.calls.empty() && c.constants.empty() && !c.attention);
      continue;
    }
    c.provenance.erase("policy_sha256");
    plain.provenance.erase("policy_sha256");
    EXPECT_EQ(c, plain);
  }
  EXPECT_GT(programs, 40); // p_op_program of the 65% that are no tensor program
  EXPECT_LT(programs, 110);
}

TEST(Generator, SameSeedSameCaseWhateverElseRan) {
  const auto alone = corpus::CaseToJson(generate::GenerateCase({42, 3, "x"}, kPolicy).c).dump();
  for (std::uint64_t i = 0; i < 3; ++i)
    generate::GenerateCase({42, i, "x"}, kPolicy);
  EXPECT_EQ(corpus::CaseToJson(generate::GenerateCase({42, 3, "x"}, kPolicy).c).dump(), alone);
  EXPECT_NE(corpus::CaseToJson(generate::GenerateCase({43, 3, "x"}, kPolicy).c).dump(), alone);
}

// An API drawn on its own has a random stream of its own (fuzzer/generate/api_row.h): its salt
// differs from every RandomStream's and every other row's, and every API is one row in each layer.
TEST(Apis, EveryStreamIsItsOwn) {
  using generate::RandomStream;
  std::set<std::uint64_t> salts;
  for (const RandomStream stream :
       {RandomStream::kStructure, RandomStream::kCallSequence, RandomStream::kFamily,
        RandomStream::kReach, RandomStream::kOpProgram, RandomStream::kCompilePath,
        RandomStream::kMutation, RandomStream::kPoolChoice})
    EXPECT_TRUE(salts.insert(static_cast<std::uint64_t>(stream)).second);
  std::set<std::string_view> names;
  for (const apis::Api &api : apis::Apis()) {
    EXPECT_TRUE(names.insert(api.name).second) << api.name;
    EXPECT_EQ(api.corpus.name, api.name);
    EXPECT_EQ(api.generate.name, api.name);
    EXPECT_EQ(api.reduce.name, api.name);
    if (api.generate.draw) {
      EXPECT_TRUE(salts.insert(static_cast<std::uint64_t>(api.generate.stream)).second)
          << api.name << "'s stream is another's";
      EXPECT_TRUE(
          generate::GenerationPolicy::Default().numbers.contains(std::string(api.generate.chance)))
          << api.name;
    }
  }
  EXPECT_EQ(corpus::ApiNames().size(), apis::Apis().size());
}

// Pins generation: a change here means every stored seed now names a different case, so it
// must come with a bump of kGeneratorVersion. (Version 3 changed only the provenance of these
// five: none of them has a mask that reads an index its block mask broadcasts. Version 4 changed
// the provenance of all five, the default policy having the families' entries, and seed 3 also
// sets an optional knob; the rest is what version 3 drew. The feedback's mutation weights and
// p_aoti (none of the five is drawn with aoti) changed the policy hash again, and so did
// the dtype mutation's weight 2, the wrap and table_dtype mutations, the detour mutation
// with wrap's weight 4, p_mutate 0.7 with mutation_stack 4, p_mutate_min/max, and the mutation
// weights of stop 42. Version 5: the optional knob emulate_precision_casts, one more draw, moved
// the draws after it in about a third of the cases. Version 6: issue 47's entries in the policy
// change every case's provenance; seed 2 also takes a family. Version 7: the KV-cache decode
// family's entries change every provenance again; seed 4 also takes that family. Version 8: op
// programs, drawn from their own stream; with p_op_program 0, as here, each case is version 7's
// but for its provenance. Version 9: longer op programs, padded tables, new weights and the
// number p_op_padded_source: with p_op_program 0, each case is version 8's but for its
// provenance. Version 10: tensor programs from their own stream (kTensorProgram); with
// p_tensor_program 0 too, as here, each case is version 9's but for its provenance, the policy
// having the tensor programs' entries.)
TEST(Generator, GoldenHashesOfSeedsOneToFive) {
  const std::vector<std::string> golden = {
      "b2dd09ba940450af44fb2ceb48796eb92412683eec97a7bdc2e449f17ded2295",
      "207ae06cb00ae4b16f7daccf181b7ed4188c897d7cfdc0309db9f1e6c823457a",
      "bbf97dda1ea0281e251e0a91707e41e722e793b32139fcea77eabc6da747ef0e",
      "28e8ddb25508b635888a2d693f51d30866d3c986e1729913bda8370148ab7ad1",
      "cead1ce682155272685c775da1f5120982d0bc047fd657d629a25c881a0d39d0"};
  for (std::uint64_t seed = 1; seed <= 5; ++seed)
    EXPECT_EQ(
        generate::StableCaseHash(generate::GenerateCase({seed, 0, "any command line"}, kPolicy).c),
        golden[seed - 1])
        << "seed " << seed;
}

// Issue 47's families come from their own stream: with their probabilities at 0 every case is
// the case the default policy draws without them, and the cases that take them load back through
// the case reader (named constants, rebuilt block masks, compiled functions). That policy is
// bench/policies/before-issue-47.json, the baseline of bench/coverage_growth.sh.
TEST(Generator, ReachFamiliesLeaveOtherCasesAsTheyWereAndLoadBack) {
  const generate::GenerationPolicy without = generate::LoadPolicyFile(
      std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) / "bench/policies/before-issue-47.json");
  std::map<std::string, int> taken;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    const auto generated = generate::GenerateCase({seed, 0, ""}, kPolicy);
    corpus::Case c = generated.c;
    corpus::Case plain = generate::GenerateCase({seed, 0, ""}, without).c;
    SCOPED_TRACE("seed " + std::to_string(seed));
    bool reached = false;
    for (const auto &[feature, count] : generated.features)
      if (feature.starts_with("reach:") || feature.starts_with("compile_scope:") ||
          feature == "api:index_program") {
        reached = true;
        ++taken[feature];
      }
    EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(c)), c);
    if (reached)
      continue;
    c.provenance.erase("policy_sha256");
    plain.provenance.erase("policy_sha256");
    EXPECT_EQ(c, plain);
  }
  for (const char *feature :
       {"reach:sparse_mask", "reach:score_program", "reach:separate_full_blocks=False",
        "reach:from_kv_blocks", "compile_scope:function", "compile_scope:module",
        "reach:closure_constants", "reach:named_constants", "api:index_program",
        "reach:kv_cache_decode", "reach:kv_cache_bias"})
    EXPECT_GT(taken[feature], 0) << feature;
}

// Call sequences come from their own random stream: a case the default policy draws without one
// is exactly the case a policy without sequences draws, and one with a sequence closes over the
// constants its later calls change.
TEST(Generator, CallSequencesLeaveOtherCasesAsTheyWereAndChangeWhatTheyClose) {
  generate::GenerationPolicy no_sequences = WithoutOpPrograms();
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

// The families of issue 32 come from their own random stream: with their probabilities at 0,
// every case is the case the default policy draws when it draws none of them.
const char *const kFamilyFeatures[] = {"shape:decode", "kernel_options", "layout",
                                       "score:float_table", "knob:optional"};

generate::GenerationPolicy WithoutFamilies() {
  nlohmann::json numbers = {
      {"p_decode_shape", 0}, {"p_kernel_options", 0}, {"p_layout", 0}, {"p_float_table_score", 0}};
  for (const auto &knob : corpus::InductorKnobTable())
    if (knob.optional)
      numbers[std::string(knob.policy_probability)] = 0;
  generate::GenerationPolicy policy = WithoutOpPrograms();
  policy.Override({{"numbers", numbers}});
  return policy;
}

TEST(GeneratorFamilies, LeaveTheCasesWithoutThemAsTheyWere) {
  const generate::GenerationPolicy none = WithoutFamilies();
  int with_families = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const auto generated = generate::GenerateCase({seed, 0, ""}, kPolicy);
    corpus::Case c = generated.c;
    corpus::Case plain = generate::GenerateCase({seed, 0, ""}, none).c;
    SCOPED_TRACE("seed " + std::to_string(seed));
    const bool family = std::any_of(std::begin(kFamilyFeatures), std::end(kFamilyFeatures),
                                    [&](const char *f) { return generated.features.contains(f); });
    EXPECT_TRUE(plain.inductor.optional.empty());
    if (plain.attention) {
      EXPECT_TRUE(plain.attention->kernel_options.is_null());
      EXPECT_EQ(plain.attention->layout, corpus::kContiguousLayout);
    }
    if (family) {
      ++with_families;
      continue;
    }
    c.provenance.erase("policy_sha256");
    plain.provenance.erase("policy_sha256");
    EXPECT_EQ(c, plain);
  }
  EXPECT_GT(with_families, 60);
  EXPECT_LT(with_families, 240);
}

// Decode shapes: Q_LEN 1 to 16 against KV_LEN 512 to 4096, and in a good share of them the
// CPU template's flash decoding (which the end-to-end test sees in the generated C++).
TEST(GeneratorFamilies, DecodeShapesReachFlashDecodingInAGoodShare) {
  int decode = 0, flash = 0, long_queries = 0;
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    const auto generated = generate::GenerateCase({seed, 0, ""}, kPolicy);
    if (!generated.features.contains("shape:decode"))
      continue;
    ++decode;
    const corpus::AttentionArguments &a = *generated.c.attention;
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_GE(a.q_len, 1);
    EXPECT_LE(a.q_len, 16);
    EXPECT_GE(a.kv_len, 512);
    EXPECT_LE(a.kv_len, 4096);
    EXPECT_EQ(generated.c.create_block_mask.q_len, a.q_len);
    long_queries += a.q_len > 1;
    const bool expected = generate::FlashDecodingExpected(generated.c);
    flash += expected;
    EXPECT_EQ(generated.features.contains("decode:flash_decoding_expected"), expected);
  }
  EXPECT_GT(decode, 150);
  EXPECT_GT(long_queries, 10);
  EXPECT_GT(flash * 100, decode * 35) << flash << " of " << decode << " decode cases";
}

// The KV-cache decode family: every case it takes is a decode step against a long cache with a
// block mask, mostly limited per head; the ones with the additive bias end their score_mod on it;
// and a good number of them are flash-decoding cases with both, where an empty partition's max
// decides the result (the end-to-end test runs one).
TEST(GeneratorFamilies, KvCacheDecodeStepsHaveACacheMaskAndSomeALargeBias) {
  int taken = 0, biased = 0, per_head = 0, flash_biased_per_head = 0;
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    const auto generated = generate::GenerateCase({seed, 0, ""}, kPolicy);
    if (!generated.features.contains("reach:kv_cache_decode"))
      continue;
    ++taken;
    const corpus::Case &c = generated.c;
    SCOPED_TRACE("seed " + std::to_string(seed));
    ASSERT_TRUE(c.attention.has_value());
    EXPECT_LE(c.attention->q_len, 16);
    EXPECT_GE(c.attention->kv_len, 512);
    ASSERT_TRUE(c.mask_mod.has_value());
    EXPECT_TRUE(c.attention->use_block_mask);
    const bool bias = generated.features.contains("reach:kv_cache_bias");
    const bool head = generated.features.contains("kv_cache_mask:head_prefix") &&
                      c.mask_mod->source.find("(h + 1)") != std::string::npos;
    if (bias) {
      ++biased;
      ASSERT_TRUE(c.score_mod.has_value());
      // The bias is a literal, or a constant the functions close over.
      bool found = c.score_mod->source.find("00.0)") != std::string::npos;
      for (const auto &[name, value] : c.constants.items())
        found = found || value == 200.0 || value == 1000.0 || value == 10000.0;
      EXPECT_TRUE(found) << c.score_mod->source;
    }
    per_head += head;
    flash_biased_per_head += bias && head && generate::FlashDecodingExpected(c);
  }
  EXPECT_GT(taken, 80);
  EXPECT_GT(biased * 100, taken * 40);
  EXPECT_GT(per_head * 100, taken * 35);
  EXPECT_GT(flash_biased_per_head, 5);
}

TEST(GeneratorFamilies, KernelOptionsLayoutsAndFloatTablesAreWellFormed) {
  int partition = 0, skip = 0, bfloat16_tables = 0, two_dimensional = 0;
  std::set<std::string> layouts;
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    const auto generated = generate::GenerateCase({seed, 0, ""}, kPolicy);
    const corpus::Case &c = generated.c;
    SCOPED_TRACE("seed " + std::to_string(seed));
    if (!c.attention)
      continue;
    const auto &options = c.attention->kernel_options;
    if (options.is_object() && options.contains("PARTITION_SIZE")) {
      ++partition;
      EXPECT_GT(options["PARTITION_SIZE"].get<int>(), 0);
    }
    if (options.is_object() && options.contains("SKIP_MASK_SCORE")) {
      ++skip; // no score_mod, and a mask of whole blocks: the case means the same with it
      EXPECT_FALSE(c.score_mod.has_value());
      ASSERT_TRUE(c.mask_mod.has_value());
      EXPECT_NE(c.mask_mod->source.find(fmt::format("((q_idx // {}) >= (kv_idx // {}))",
                                                    c.create_block_mask.block_size.front(),
                                                    c.create_block_mask.block_size.back())),
                std::string::npos)
          << c.mask_mod->source;
    }
    layouts.insert(c.attention->layout);
    if (!generated.features.contains("score:float_table"))
      continue;
    ASSERT_TRUE(c.score_mod.has_value());
    bool reads_float_table = false;
    for (const auto &tensor : c.tensors) {
      if (!tensor.IsFloating() || c.score_mod->source.find(tensor.name + "[") == std::string::npos)
        continue;
      reads_float_table = true;
      bfloat16_tables += tensor.dtype == "bfloat16";
      if (tensor.shape.size() == 2) {
        ++two_dimensional;
        EXPECT_NE(c.score_mod->source.find(tensor.name + "[h, "), std::string::npos);
        EXPECT_EQ(tensor.shape[0], c.attention->q_heads);
      }
      for (double value : tensor.reals) // multiples of 1/32 in [-2, 2], or powers of two
        EXPECT_EQ(value * 4096, std::round(value * 4096)) << tensor.name;
    }
    EXPECT_TRUE(reads_float_table) << c.score_mod->source;
  }
  EXPECT_GT(partition, 100);
  EXPECT_GT(skip, 10);
  EXPECT_GT(bfloat16_tables, 20);
  EXPECT_GT(two_dimensional, 20);
  EXPECT_EQ(layouts, std::set<std::string>(corpus::kLayouts.begin(), corpus::kLayouts.end()));
}

// Each optional knob is set in some cases and patched exactly when set.
TEST(GeneratorFamilies, OptionalKnobsArePatchedExactlyWhenSet) {
  std::map<std::string, int> set;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    const corpus::Case c = generate::GenerateCase({seed, 0, ""}, kDefaultPolicy).c;
    const nlohmann::json config = corpus::InductorConfig(c);
    for (const auto &knob : corpus::InductorKnobTable()) {
      if (!knob.optional)
        continue;
      const std::string name(knob.name);
      if (knob.target == corpus::KnobTarget::kEnvironment) { // set around the compile, not patched
        EXPECT_FALSE(config.contains(name)) << name;
        set[name] += c.inductor.optional.contains(name);
        continue;
      }
      EXPECT_EQ(config.contains(name), c.inductor.optional.contains(name)) << name;
      if (c.inductor.optional.contains(name)) {
        ++set[name];
        EXPECT_EQ(config[name], c.inductor.optional.at(name));
      }
    }
  }
  for (const auto &knob : corpus::InductorKnobTable()) {
    if (knob.optional) {
      EXPECT_GT(set[std::string(knob.name)], 10) << knob.name;
    }
  }
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
  const auto totals = generate::CountFeatures(kDefaultPolicy, 1, 2000);
  for (const auto &[category, options] : kDefaultPolicy.weights)
    for (const auto &[option, weight] : options)
      if (category != "mutation" && weight > 0) // mutation: the feedback's (mutator_test)
        EXPECT_GT(totals.at(category + ":" + option), 0) << category << ":" << option;
  for (const char *feature : {"compose:and_masks",
                              "compose:or_masks",
                              "shape:B=None",
                              "shape:H=None",
                              "shape:q_len!=kv_len",
                              "shape:grouped_query",
                              "shape:Ev!=E",
                              "data_dependent",
                              "negative_divisor",
                              "cpp_wrapper:true",
                              "dynamic:true",
                              "max_autotune:true",
                              "freezing:true",
                              "cpp.enable_loop_tail_vec:false",
                              "cpp.dynamic_threads:true",
                              "shape:decode",
                              "kernel_options",
                              "kernel_options:SKIP_MASK_SCORE",
                              "layout",
                              "score:float_table",
                              "knob:optional",
                              "decode:flash_decoding_expected"})
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
    const auto run = test_support::RunInductorFuzz({"gen", "--seed", seed, "--count", "2000"},
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
  generate::GenerationPolicy no_aoti = WithoutOpPrograms();
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
  generate::GenerationPolicy policy = WithoutOpPrograms();
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
    const std::string oracles(worker::WorkerModuleSource("inductor_fuzz_worker.comparisons"));
    const auto compare = oracles.find("def compare_block_masks(");
    ASSERT_NE(compare, std::string::npos);
    EXPECT_NE(script.find(oracles.substr(compare, oracles.find("\ndef ", compare + 1) - compare)),
              std::string::npos);
  }
}

} // namespace
} // namespace fuzzer
