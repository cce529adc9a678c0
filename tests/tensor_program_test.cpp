#include "fuzzer/generate/generator.h"
#include "fuzzer/generate/tensor_program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

namespace fuzzer {
namespace {

generate::GenerationPolicy ProgramsPolicy() {
  return generate::LoadPolicyFile(std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                                  "bench/policies/programs.json");
}

// The inputs a program's source updates in place: `x3.add_(...)`, `x0[...] = ...`.
std::set<int> UpdatedInputs(const std::string &source) {
  static const std::regex update(R"(^    x(\d+)(\.[a-z_]+_\(|\[.*\] = ))");
  std::set<int> inputs;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);)
    if (std::smatch match; std::regex_search(line, match, update))
      inputs.insert(std::stoi(match[1]));
  return inputs;
}

// bench/policies/programs.json makes every case a tensor program; each loads back through the
// case reader (every view inside its storage), reaches every category and layout over 300
// seeds, updates in place only inputs without a stride-0 dimension, and is a pure function of
// its seed.
TEST(TensorPrograms, LoadBackReachEveryCategoryAndLayoutAndUpdateNoExpandedInput) {
  const auto policy = ProgramsPolicy();
  std::map<std::string, int> features;
  int updates = 0, dynamic = 0, autotuned = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto generated = generate::GenerateCase({seed, 0, ""}, policy);
    const corpus::Case &c = generated.c;
    for (const auto &[feature, times] : generated.features)
      features[feature] += times;
    ASSERT_EQ(c.api, corpus::kTensorProgram);
    ASSERT_TRUE(c.tensor_program && c.mask_mod);
    EXPECT_EQ(corpus::CaseFromJson(nlohmann::json::parse(corpus::CaseToJson(c).dump())), c);
    EXPECT_EQ(c.mask_mod->name, "program");
    EXPECT_TRUE(c.mask_mod->source.starts_with("def program("));
    EXPECT_NE(c.mask_mod->source.find(",)\n"), std::string::npos) << "returns a tuple";
    EXPECT_TRUE(c.calls.empty() && c.constants.empty() && !c.attention && !c.score_mod);
    EXPECT_EQ(c.compile_with, corpus::kTorchCompile);
    EXPECT_FALSE(generate::AotiApplies(c));
    EXPECT_EQ(c.tensors.size(), c.tensor_program->inputs.size());
    for (int input : UpdatedInputs(c.mask_mod->source)) {
      ++updates;
      const auto &stride = c.tensor_program->inputs.at(static_cast<std::size_t>(input)).stride;
      EXPECT_EQ(std::count(stride.begin(), stride.end(), 0), 0)
          << "x" << input << " is updated in place:\n"
          << c.mask_mod->source;
    }
    for (const auto &pair : c.tensor_program->dynamic) {
      ++dynamic;
      EXPECT_GE(c.tensor_program->inputs.at(pair[0]).size.at(pair[1]), 2);
    }
    if (c.inductor.max_autotune && generated.features.contains("program_max_autotune")) {
      ++autotuned;
      EXPECT_TRUE(std::regex_search(c.mask_mod->source, std::regex(R"(mm\(|linear|matmul)")));
    }
    const auto again = generate::GenerateCase({seed, 0, ""}, policy);
    EXPECT_EQ(generate::StableCaseHash(again.c), generate::StableCaseHash(c));
  }
  for (const auto &[category, weight] : policy.weights.at("program_category"))
    EXPECT_GT(features["program_category:" + category], 0) << category;
  for (const auto &layout : generate::TensorProgramLayouts())
    EXPECT_GT(features["program_layout:" + layout], 0) << layout;
  EXPECT_GT(updates, 10);
  EXPECT_GT(dynamic, 10);
  EXPECT_GT(autotuned, 0);
}

// The default policy gives tensor programs about p_tensor_program (0.35) of the cases.
TEST(TensorPrograms, TakeAFairShareOfTheDefaultPolicy) {
  const auto policy = generate::GenerationPolicy::Default();
  int programs = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed)
    programs += generate::GenerateCase({seed, 0, ""}, policy).c.api == corpus::kTensorProgram;
  EXPECT_GT(programs, 80);
  EXPECT_LT(programs, 130);
}

} // namespace
} // namespace fuzzer
