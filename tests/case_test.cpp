#include "corpus/case.h"

#include <gtest/gtest.h>

#include <fstream>

namespace fuzzer {
namespace {

using nlohmann::json;

const std::filesystem::path kSeed =
    std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) / "corpus/seeds/causal-151290.json";

json SeedJson() { return json::parse(std::ifstream(kSeed)); }

std::string ErrorFor(const json &document) {
  try {
    corpus::CaseFromJson(document);
  } catch (const corpus::CaseError &error) {
    return error.what();
  }
  return "";
}

TEST(Case, SeedLoadsWithTheFieldsOfPytorch151290) {
  const corpus::Case seed = corpus::LoadCaseFile(kSeed);
  EXPECT_EQ(seed.name, "causal-151290");
  EXPECT_EQ(seed.create_block_mask.batch, 1);
  EXPECT_EQ(seed.create_block_mask.heads, 1);
  EXPECT_EQ(seed.create_block_mask.q_len, 512);
  EXPECT_EQ(seed.create_block_mask.kv_len, 512);
  EXPECT_EQ(seed.inductor.cpp_threads, 8);
  EXPECT_EQ(seed.inductor.cpp_simdlen, 512);
  EXPECT_NE(seed.mask_mod->source.find("q_idx >= kv_idx"), std::string::npos);
}

TEST(Case, RoundTripsThroughJson) {
  corpus::Case c = corpus::LoadCaseFile(kSeed);
  EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(c)), c);
  c.create_block_mask.batch.reset();
  c.create_block_mask.block_size = {64, 128};
  c.inductor.cpp_simdlen.reset();
  c.inductor.dynamic = true;
  EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(c)), c);
}

TEST(Case, WrongFieldTypeNamesTheField) {
  json document = SeedJson();
  document["create_block_mask"]["Q_LEN"] = "512";
  EXPECT_EQ(ErrorFor(document), "field 'create_block_mask.Q_LEN' must be an integer, got string");
  document = SeedJson();
  document["inductor"]["cpp_wrapper"] = 1;
  EXPECT_EQ(ErrorFor(document), "field 'inductor.cpp_wrapper' must be true or false, got integer");
}

TEST(Case, UnknownAndMissingFieldsAreRejected) {
  json document = SeedJson();
  document["inductor"]["cpp.thread"] = 4;
  EXPECT_EQ(ErrorFor(document), "field 'inductor.cpp.thread' is not a known field (misspelt?)");
  document = SeedJson();
  document.erase("create_block_mask");
  EXPECT_EQ(ErrorFor(document), "field 'create_block_mask' is missing");
  document = SeedJson();
  document["mask_mod"] = nullptr;
  EXPECT_EQ(ErrorFor(document), "field 'mask_mod' is needed by create_block_mask");
  document = SeedJson();
  document["api"] = "flex_attention";
  EXPECT_NE(ErrorFor(document).find("field 'attention'"), std::string::npos);
}

TEST(Case, OutOfRangeValuesAndOtherVersionsAreRejected) {
  json document = SeedJson();
  document["create_block_mask"]["KV_LEN"] = 0;
  EXPECT_EQ(ErrorFor(document), "field 'create_block_mask.KV_LEN' must be at least 1, got 0");
  document = SeedJson();
  document["format_version"] = 2;
  EXPECT_NE(ErrorFor(document).find("format_version 2 is not supported"), std::string::npos);
  document = SeedJson();
  document["create_block_mask"]["BLOCK_SIZE"] = json::array({1, 2, 3});
  EXPECT_NE(ErrorFor(document).find("list of two integers"), std::string::npos);
}

TEST(Case, UnusableFilesGiveOneLineErrors) {
  const auto folder = std::filesystem::temp_directory_path() / "inductor-fuzz-case-test";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "binary.json", std::ios::binary) << std::string("{\0\x01", 3);
  std::ofstream(folder / "truncated.json") << R"({"format_version": 1, "name": )";
  std::ofstream(folder / "empty.json");
  for (const auto &[file, expected] :
       std::vector<std::pair<std::string, std::string>>{{"binary.json", "is a binary file"},
                                                        {"truncated.json", "is not valid JSON"},
                                                        {"empty.json", "is empty"},
                                                        {"missing.json", "does not exist"}}) {
    try {
      corpus::LoadCaseFile(folder / file);
      ADD_FAILURE() << file << " loaded";
    } catch (const support::InputError &error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(expected), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  std::filesystem::remove_all(folder);
}

} // namespace
} // namespace fuzzer
