// The feedback's mutations (fuzzer/generate/mutator.h): deterministic, each kind changes what it
// names and leaves a case that loads, its sources parse, and its provenance names its parents.
#include "fuzzer/generate/generator.h"
#include "fuzzer/generate/mutator.h"
#include "support/child_process.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace fuzzer::generate {
namespace {

// The module's source as the campaign passes it (from the package compiled into the binary).
const std::string kMutator =
    support::ReadTextFile(std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                              "fuzzer/worker/python/inductor_fuzz_worker/mutate_source.py",
                          "mutate_source.py", 1 << 20);

MutationRequest Request(std::uint64_t index) {
  return {.seed = 9,
          .index = index,
          .command_line = "test",
          .parent_id = "q-parent",
          .donor_id = "q-donor",
          .source_mutator = kMutator};
}

// A policy that draws only `kind`, one mutation per case.
GenerationPolicy Only(const std::string &kind) {
  GenerationPolicy policy = GenerationPolicy::Default();
  nlohmann::json weights = nlohmann::json::object();
  for (const auto &[name, weight] : policy.weights.at("mutation"))
    weights[name] = name == kind ? 1.0 : 0.0;
  policy.Override({{"weights", {{"mutation", weights}}}, {"numbers", {{"mutation_stack", 1}}}});
  return policy;
}

bool Parses(const std::string &source) {
  return support::RunCommand({"python3", "-c", "import ast, sys; ast.parse(sys.argv[1])", source},
                             {}, std::chrono::seconds(20))
      .status.Succeeded();
}

// The first generated case of seed 9 from `from` on that is a flex_attention with a mask, a
// score_mod, a closure constant and a captured table (every mutation has something to change).
corpus::Case FlexCase(std::uint64_t from) {
  for (std::uint64_t i = from;; ++i) {
    auto c = GenerateCase({9, i, "test"}, GenerationPolicy::Default()).c;
    if (c.api == "flex_attention" && c.mask_mod && c.score_mod && !c.constants.empty() &&
        !c.tensors.empty())
      return c;
  }
}

corpus::Case WithoutCalls(corpus::Case c) {
  c.calls.clear();
  return c;
}

TEST(Mutator, SameParentsAndIndexSameCase) {
  const auto parent = FlexCase(0), donor = FlexCase(50);
  const auto policy = GenerationPolicy::Default();
  const auto once = MutateCase(parent, donor, Request(7), policy);
  const auto again = MutateCase(parent, donor, Request(7), policy);
  EXPECT_EQ(corpus::CaseToJson(once.c), corpus::CaseToJson(again.c));
  EXPECT_FALSE(once.mutations.empty());
  const auto other = MutateCase(parent, donor, Request(8), policy);
  EXPECT_NE(corpus::CaseToJson(once.c), corpus::CaseToJson(other.c));
}

TEST(Mutator, EveryKindChangesTheCaseAndLeavesOneThatLoads) {
  const auto flex = FlexCase(0), donor = FlexCase(50);
  const auto defaults = GenerationPolicy::Default();
  for (const auto &[kind, weight] : defaults.weights.at("mutation")) {
    SCOPED_TRACE(kind);
    if (kind == "api")
      continue; // flex_attention has no other API to turn into; below on a mask case
    const auto policy = Only(kind);
    // AOTInductor takes one call: the parent's call sequence would leave nothing to change.
    corpus::Case parent = kind == "compile_path" ? WithoutCalls(flex) : flex;
    bool changed = false;
    for (std::uint64_t index = 0; index < 6 && !changed; ++index) {
      const auto mutated = MutateCase(parent, donor, Request(index), policy);
      if (mutated.mutations.empty())
        continue;
      changed = true;
      auto expected_parent = parent;
      expected_parent.name = mutated.c.name;
      expected_parent.provenance = mutated.c.provenance;
      EXPECT_NE(corpus::CaseToJson(mutated.c), corpus::CaseToJson(expected_parent))
          << mutated.mutations.front();
      const auto json = corpus::CaseToJson(mutated.c);
      EXPECT_EQ(corpus::CaseToJson(corpus::CaseFromJson(json)), json);
      EXPECT_TRUE(Parses(mutated.c.mask_mod->source)) << mutated.c.mask_mod->source;
      EXPECT_TRUE(Parses(mutated.c.score_mod->source)) << mutated.c.score_mod->source;
      EXPECT_EQ(mutated.c.provenance["parent"], "q-parent");
      EXPECT_EQ(mutated.c.provenance["origin"], "mutation");
      EXPECT_EQ(mutated.c.provenance["mutations"].size(), mutated.mutations.size());
      if (mutated.mutations.front().starts_with("constant"))
        EXPECT_NE(mutated.c.mask_mod->source + mutated.c.score_mod->source,
                  parent.mask_mod->source + parent.score_mod->source);
    }
    EXPECT_TRUE(changed) << "no index of six made a " << kind << " mutation";
  }
}

TEST(Mutator, ASpliceBringsTheDonorsTablesAlong) {
  corpus::Case parent = FlexCase(0);
  parent.score_mod.reset();
  parent.mask_mod = corpus::MaskFunction{
      "mask_mod", "def mask_mod(b, h, q_idx, kv_idx):\n    return q_idx >= kv_idx\n"};
  parent.tensors.clear();
  corpus::Case donor = parent;
  donor.mask_mod->source =
      "def mask_mod(b, h, q_idx, kv_idx):\n    return kv_idx < lengths_0[b] + WINDOW\n";
  donor.tensors = {{.name = "lengths_0", .dtype = "int64", .shape = {1}, .integers = {5}}};
  donor.constants = {{"WINDOW", 3}};
  const auto mutated = MutateCase(parent, donor, Request(1), Only("splice"));
  ASSERT_EQ(mutated.mutations.size(), 1u);
  EXPECT_NE(mutated.c.mask_mod->source.find("lengths_0[b]"), std::string::npos)
      << mutated.c.mask_mod->source;
  ASSERT_EQ(mutated.c.tensors.size(), 1u);
  EXPECT_EQ(mutated.c.tensors[0].name, "lengths_0");
  EXPECT_EQ(mutated.c.constants["WINDOW"], 3);
  EXPECT_EQ(mutated.c.provenance["donor"], "q-donor");
}

// An index program takes no closure constants: a donor's constant stays out of it, and every
// mutant still loads (seed 12 of the injected-bug bench stored one that replay refused).
TEST(Mutator, AnIndexProgramTakesNoConstantFromItsDonor) {
  corpus::Case parent;
  for (std::uint64_t i = 0;; ++i) {
    parent = GenerateCase({9, i, "test"}, GenerationPolicy::Default()).c;
    if (parent.api == corpus::kIndexProgram && parent.mask_mod)
      break;
  }
  corpus::Case donor = FlexCase(0);
  donor.score_mod.reset();
  donor.tensors.clear();
  donor.mask_mod->source =
      "def mask_mod(b, h, q_idx, kv_idx):\n    return kv_idx < q_idx + WINDOW\n";
  donor.constants = {{"WINDOW", 3}};
  for (const char *kind : {"splice", "subexpression"})
    for (std::uint64_t index = 0; index < 4; ++index) {
      SCOPED_TRACE(fmt::format("{} {}", kind, index));
      const auto mutated = MutateCase(parent, donor, Request(index), Only(kind));
      EXPECT_TRUE(mutated.c.constants.empty()) << mutated.c.mask_mod->source;
      EXPECT_EQ(mutated.c.mask_mod->source.find("WINDOW"), std::string::npos);
      const auto json = corpus::CaseToJson(mutated.c);
      EXPECT_EQ(corpus::CaseToJson(corpus::CaseFromJson(json)), json);
    }
}

TEST(Mutator, ApiTurnsABlockMaskIntoADenseMask) {
  for (std::uint64_t i = 0;; ++i) {
    const auto c = GenerateCase({9, i, "test"}, GenerationPolicy::Default()).c;
    if (c.api != "create_block_mask")
      continue;
    const auto mutated = MutateCase(c, c, Request(1), Only("api"));
    EXPECT_EQ(mutated.c.api, "create_mask");
    break;
  }
}

// A detour that rounds a score through a 16-bit float also sets emulate_precision_casts: off,
// Inductor elides the rounding (documented), and compiled would differ from eager by design.
TEST(Mutator, ARoundingDetourAsksInductorToKeepTheRounding) {
  const auto flex = FlexCase(0), donor = FlexCase(50);
  ASSERT_FALSE(flex.inductor.optional.contains("emulate_precision_casts"));
  int rounding = 0, other = 0;
  for (std::uint64_t index = 0; index < 80 && (rounding == 0 || other == 0); ++index) {
    const auto mutated = MutateCase(flex, donor, Request(index), Only("detour"));
    if (mutated.mutations.empty())
      continue;
    const std::string &what = mutated.mutations.front();
    const bool rounds = what.find("through torch.bfloat16") != std::string::npos ||
                        what.find("through torch.float16") != std::string::npos;
    (rounds ? rounding : other) += 1;
    EXPECT_EQ(mutated.c.inductor.optional.contains("emulate_precision_casts"), rounds) << what;
    if (rounds)
      EXPECT_NE(what.find("knob emulate_precision_casts=true"), std::string::npos) << what;
  }
  EXPECT_GT(rounding, 0);
  EXPECT_GT(other, 0);
}

} // namespace
} // namespace fuzzer::generate
