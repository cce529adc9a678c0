#include "corpus/case.h"
#include "reducers/case/case_passes.h"
#include "reducers/case/minimal_repro.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>

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
  document["format_version"] = 4;
  EXPECT_NE(ErrorFor(document).find("format_version 4 is not supported"), std::string::npos);
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

// A version 2 flex_attention case: the shape given once, knobs left to Inductor, a closure
// constant and a second call.
json Version2Flex() {
  return json::parse(R"({
    "format_version": 2, "name": "v2", "api": "flex_attention",
    "mask_mod": {"name": "causal", "source": "def causal(b, h, q, kv):\n    return q >= kv\n"},
    "score_mod": {"name": "softcap",
                  "source": "def softcap(s, b, h, q, kv):\n    return cap * torch.tanh(s / cap)\n"},
    "tensors": [],
    "constants": {"cap": 50.0},
    "calls": [{"constants": {"cap": 30.0}}],
    "create_block_mask": {"B": 1, "H": null, "Q_LEN": 128, "KV_LEN": 96, "BLOCK_SIZE": 128,
                          "device": "cpu"},
    "attention": {"Hq": 2, "Hkv": 2, "E": 16, "Ev": 16, "dtype": "float32", "input_seed": 0,
                  "use_block_mask": true, "enable_gqa": false, "scale": 0.5, "return_lse": true,
                  "kernel_options": {"PRESCALE_QK": true}},
    "inductor": {"cpp.simdlen": null}
  })");
}

TEST(CaseVersion2, VersionOneCasesKeepTheirBytesAndVersion) {
  EXPECT_EQ(corpus::CaseToJson(corpus::LoadCaseFile(kSeed)), SeedJson());
  EXPECT_EQ(corpus::FormatVersionOf(corpus::LoadCaseFile(kSeed)), 1);
}

TEST(CaseVersion2, TheShapeIsGivenOnceAndOmittedKnobsAreLeftToInductor) {
  const corpus::Case c = corpus::CaseFromJson(Version2Flex());
  EXPECT_EQ(c.attention->batch, 1);
  EXPECT_EQ(c.attention->q_len, 128);
  EXPECT_EQ(c.attention->kv_len, 96);
  EXPECT_EQ(c.attention->scale, 0.5);
  EXPECT_TRUE(c.attention->return_lse);
  EXPECT_EQ(c.attention->kernel_options, json({{"PRESCALE_QK", true}}));
  EXPECT_TRUE(c.inductor.IsDefaulted("cpp.threads"));
  EXPECT_TRUE(c.inductor.IsDefaulted("dynamic"));
  EXPECT_FALSE(c.inductor.IsDefaulted("cpp.simdlen"));
  const json config = corpus::InductorConfig(c);
  EXPECT_FALSE(config.contains("cpp.threads"));
  EXPECT_FALSE(config.contains("cpp_wrapper"));
  EXPECT_TRUE(config.contains("cpp.simdlen"));
  EXPECT_TRUE(corpus::DynamicArgument(c).is_null());
  ASSERT_EQ(c.calls.size(), 1u);
  EXPECT_EQ(c.calls[0].constants["cap"], 30.0);
  const json written = corpus::CaseToJson(c);
  EXPECT_EQ(written["format_version"], 2);
  EXPECT_FALSE(written["attention"].contains("Q_LEN")) << "the shape is written once";
  EXPECT_FALSE(written["inductor"].contains("cpp.threads"));
  EXPECT_EQ(corpus::CaseFromJson(written), c);
}

// Issue 32's families in the format: the inputs' layout (left out when contiguous) and the
// optional knobs (left out, and left to Inductor, when not set) round-trip, make the case a
// version 2 one, and a wrong value is a one-line error.
TEST(CaseFamilies, LayoutAndOptionalKnobsRoundTripAndAreLeftOutWhenPlain) {
  const corpus::Case plain = corpus::CaseFromJson(Version2Flex());
  EXPECT_EQ(plain.attention->layout, "contiguous");
  EXPECT_TRUE(plain.inductor.optional.empty());
  EXPECT_FALSE(corpus::CaseToJson(plain)["attention"].contains("layout"));
  EXPECT_FALSE(corpus::InductorConfig(plain).contains("cpp.min_chunk_size"))
      << "an optional knob a case does not set is left to Inductor";

  for (const auto &layout : corpus::kLayouts) {
    json document = Version2Flex();
    document["attention"]["layout"] = layout;
    const corpus::Case c = corpus::CaseFromJson(document);
    EXPECT_EQ(c.attention->layout, layout);
    EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(c)), c);
    EXPECT_EQ(corpus::CaseToJson(c)["attention"].contains("layout"), layout != "contiguous");
  }

  json document = Version2Flex();
  document["inductor"]["cpp.min_chunk_size"] = 64;
  document["inductor"]["cpp.enable_floating_point_contract_flag"] = "fast";
  document["inductor"]["size_asserts"] = false;
  const corpus::Case knobs = corpus::CaseFromJson(document);
  EXPECT_EQ(knobs.inductor.optional.at("cpp.min_chunk_size"), 64);
  EXPECT_EQ(knobs.inductor.optional.at("cpp.enable_floating_point_contract_flag"), "fast");
  EXPECT_EQ(knobs.inductor.optional.at("size_asserts"), false);
  const json config = corpus::InductorConfig(knobs);
  EXPECT_EQ(config["cpp.min_chunk_size"], 64);
  EXPECT_EQ(config["size_asserts"], false);
  EXPECT_FALSE(config.contains("aggressive_fusion"));
  EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(knobs)), knobs);

  // A version 1 case with one set is written as version 2: an older reader would refuse it.
  corpus::Case seed = corpus::LoadCaseFile(kSeed);
  seed.inductor.optional["aggressive_fusion"] = true;
  EXPECT_EQ(corpus::FormatVersionOf(seed), 2);
  EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(seed)), seed);
}

TEST(CaseFamilies, WrongLayoutsAndKnobValuesAreOneLineErrors) {
  json document = Version2Flex();
  document["attention"]["layout"] = "bhsd";
  EXPECT_EQ(ErrorFor(document), "field 'attention.layout' is 'bhsd'; use one of contiguous, "
                                "bshd-transposed, sliced, expanded-kv");
  document = Version2Flex();
  document["inductor"]["cpp.enable_floating_point_contract_flag"] = "always";
  EXPECT_EQ(ErrorFor(document), "field 'inductor.cpp.enable_floating_point_contract_flag' is "
                                "\"always\"; use one of off, on, fast");
  document = Version2Flex();
  document["inductor"]["max_fusion_size"] = "8";
  EXPECT_EQ(ErrorFor(document), "field 'inductor.max_fusion_size' must be an integer, got string");
  document = Version2Flex();
  document["inductor"]["aggressive_fusion"] = 1;
  EXPECT_EQ(ErrorFor(document),
            "field 'inductor.aggressive_fusion' must be true or false, got integer");
}

TEST(CaseVersion2, DisagreementsAndUndeclaredChangesAreOneLineErrors) {
  json document = Version2Flex();
  document["attention"]["Q_LEN"] = 64;
  EXPECT_EQ(ErrorFor(document), "create_block_mask.Q_LEN is 128 but attention.Q_LEN is 64; give "
                                "the shape once (version 2 cases may leave attention's out)");
  // The heads of a block mask are 1, null (broadcast) or the query heads; GQA's query heads are
  // a multiple of the key heads (docs/contracts.md).
  document = Version2Flex();
  document["create_block_mask"]["H"] = 3;
  EXPECT_EQ(ErrorFor(document),
            "create_block_mask.H is 3 but attention.Hq is 2; use 1, null or Hq");
  document = Version2Flex();
  document["attention"]["Hq"] = 3;
  EXPECT_EQ(ErrorFor(document), "field 'attention.Hq' must be a multiple of 'attention.Hkv'");
  document = Version2Flex();
  document["calls"][0]["constants"] = {{"window", 3}};
  EXPECT_NE(ErrorFor(document).find("changes 'window', which the case's 'constants' does not"),
            std::string::npos);
  document = Version2Flex();
  document["constants"] = {{"cap", "fifty"}};
  EXPECT_EQ(ErrorFor(document), "field 'constants.cap' must be an int, a float or a bool, got "
                                "string");
  document = Version2Flex();
  document["format_version"] = 1;
  EXPECT_NE(ErrorFor(document).find("is missing"), std::string::npos) << ErrorFor(document);
  document = Version2Flex();
  document["tensors"] = json::parse(R"([{"name": "t", "dtype": "int8", "shape": [2],
                                         "values": [1, 300]}])");
  EXPECT_EQ(ErrorFor(document), "field 'tensors[0].values' must hold int8 integers, got 300");
  document["tensors"][0]["dtype"] = "complex64";
  EXPECT_NE(ErrorFor(document).find("use one of int8, int16, int32, int64, bool, float16"),
            std::string::npos);
}

corpus::CapturedTensor Table(const std::string &name, const std::string &dtype,
                             std::int64_t length) {
  corpus::CapturedTensor tensor{name, dtype, {length}, {}, {}};
  for (std::int64_t i = 0; i < length; ++i) {
    if (tensor.IsFloating()) // exact in every floating dtype: few significant bits
      tensor.reals.push_back(static_cast<double>((i % 37) - 18) * 0.0625 * (i % 2 ? 1 : 64));
    else if (dtype == "bool")
      tensor.integers.push_back(i % 3 == 0);
    else if (dtype == "int8")
      tensor.integers.push_back((i % 255) - 127);
    else if (dtype == "int16")
      tensor.integers.push_back((i * 7919) % 65535 - 32767);
    else if (dtype == "int32")
      tensor.integers.push_back((i * 7919) % 2000003 - 1000001);
    else if (dtype == "uint8")
      tensor.integers.push_back((i * 37) % 256);
    else
      tensor.integers.push_back(9007199254740993LL - i);
  }
  return tensor;
}

TEST(CaseVersion2, EveryDtypeRoundTripsExactlyInlineAndThroughSidecars) {
  const auto folder = std::filesystem::temp_directory_path() / "inductor-fuzz-case-v2-test";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  corpus::Case c = corpus::CaseFromJson(Version2Flex());
  for (const auto &dtype : corpus::TensorDtypes()) {
    c.tensors.push_back(Table("small_" + std::string(dtype.name), std::string(dtype.name), 100));
    c.tensors.push_back(Table("large_" + std::string(dtype.name), std::string(dtype.name), 5000));
  }
  c.calls[0].tensors.push_back(Table("large_int32", "int32", 6000));
  EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(c)), c);

  corpus::SaveCaseFile(folder / "big.json", c);
  const json written = json::parse(std::ifstream(folder / "big.json"));
  for (const auto &entry : written["tensors"])
    EXPECT_EQ(entry.contains("file"), entry["name"].get<std::string>().starts_with("large_"))
        << entry["name"];
  EXPECT_TRUE(written["calls"][0]["tensors"][0].contains("sha256"));
  EXPECT_EQ(std::filesystem::file_size(folder / "big.large_int32.bin"), 5000u * 4);
  EXPECT_EQ(std::filesystem::file_size(folder / "big.large_bfloat16.bin"), 5000u * 2);
  EXPECT_EQ(corpus::LoadCaseFile(folder / "big.json"), c);

  // The bfloat16 sidecar holds the upper halves of the float32 values, as torch stores them.
  std::ifstream bf16(folder / "big.large_bfloat16.bin", std::ios::binary);
  std::uint16_t first_two[2];
  bf16.read(reinterpret_cast<char *>(first_two), sizeof first_two);
  EXPECT_EQ(first_two[0], 0xC290); // -18 * 0.0625 * 64 = -72
  EXPECT_EQ(first_two[1], 0xBF88); // -17 * 0.0625 = -1.0625

  // A changed sidecar is refused, and so is a missing one; the case file is left as it was.
  const auto before = std::filesystem::file_size(folder / "big.json");
  std::ofstream(folder / "big.large_int8.bin", std::ios::binary | std::ios::in | std::ios::out)
      << 'x';
  try {
    corpus::LoadCaseFile(folder / "big.json");
    ADD_FAILURE() << "a changed sidecar loaded";
  } catch (const corpus::CaseError &error) {
    EXPECT_NE(std::string(error.what()).find("does not match its sha256"), std::string::npos)
        << error.what();
  }
  std::filesystem::remove(folder / "big.large_int8.bin");
  try {
    corpus::LoadCaseFile(folder / "big.json");
    ADD_FAILURE() << "a missing sidecar loaded";
  } catch (const corpus::CaseError &error) {
    EXPECT_NE(std::string(error.what()).find("keep the sidecar next to the case file"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(std::filesystem::file_size(folder / "big.json"), before);
  std::filesystem::remove_all(folder);
}

} // namespace
} // namespace fuzzer

namespace fuzzer {
namespace {

// compile_with: "aoti" survives a round trip and makes the case version 2; the default
// torch.compile is left out, so a case without the field keeps its bytes.
TEST(Case, CompileWithRoundTripsAndTheDefaultIsLeftOut) {
  const json seed = SeedJson();
  corpus::Case c = corpus::CaseFromJson(seed);
  EXPECT_EQ(c.compile_with, corpus::kTorchCompile);
  EXPECT_FALSE(corpus::CaseToJson(c).contains("compile_with"));
  EXPECT_EQ(corpus::CaseToJson(c).dump(), corpus::CaseToJson(corpus::CaseFromJson(seed)).dump());
  EXPECT_EQ(corpus::FormatVersionOf(c), 1);

  c.compile_with = corpus::kAoti;
  const json written = corpus::CaseToJson(c);
  EXPECT_EQ(written["compile_with"], "aoti");
  EXPECT_EQ(written["format_version"], 2);
  EXPECT_EQ(corpus::CaseFromJson(written), c);
  EXPECT_EQ(corpus::CaseFromJson(json::parse(written.dump())).compile_with, corpus::kAoti);

  json explicit_default = written;
  explicit_default["compile_with"] = "torch.compile";
  EXPECT_EQ(corpus::CaseFromJson(explicit_default).compile_with, corpus::kTorchCompile);
}

TEST(Case, CompileWithRejectsUnknownPathsVersionOneAndCallSequences) {
  corpus::Case c = corpus::CaseFromJson(SeedJson());
  c.compile_with = corpus::kAoti;
  json document = corpus::CaseToJson(c);
  document["compile_with"] = "aot";
  EXPECT_EQ(ErrorFor(document), "field 'compile_with' is 'aot'; use one of torch.compile, aoti");
  document = SeedJson();
  document["compile_with"] = "aoti";
  EXPECT_EQ(ErrorFor(document), "'compile_with' needs format_version 2");
  document = corpus::CaseToJson(c);
  document["calls"] = json::array({json{{"Q_LEN", 64}, {"KV_LEN", 64}}});
  EXPECT_NE(ErrorFor(document).find("an aoti case compiles one call"), std::string::npos);
}

// Issue 47's dimensions: a block mask rebuilt with from_kv_blocks, separate_full_blocks, a
// compiled function. Each round-trips, is left out when plain, and a value that does not fit its
// API is a one-line error naming the field.
TEST(CaseFamilies, BlockMaskBuildsAndCompileScopeRoundTripAndRejectWhatDoesNotFit) {
  const std::filesystem::path cases =
      std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) / "tests/cases";
  const corpus::Case rebuilt = corpus::LoadCaseFile(cases / "from-kv-blocks-expanded.json");
  ASSERT_TRUE(rebuilt.attention->from_kv_blocks);
  EXPECT_EQ(rebuilt.attention->from_kv_blocks->partial, "expanded-heads");
  EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(rebuilt)), rebuilt);
  const corpus::Case scoped = corpus::LoadCaseFile(cases / "function-scope-constants.json");
  EXPECT_EQ(scoped.compile_scope, corpus::kCompileFunction);
  EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(scoped)), scoped);
  corpus::Case merged = corpus::CaseFromJson(SeedJson());
  EXPECT_FALSE(corpus::CaseToJson(merged)["create_block_mask"].contains("separate_full_blocks"));
  EXPECT_FALSE(corpus::CaseToJson(merged).contains("compile_scope"));
  merged.create_block_mask.separate_full_blocks = false;
  EXPECT_EQ(corpus::FormatVersionOf(merged), 2);
  EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(merged)), merged);

  json document = corpus::CaseToJson(rebuilt);
  document["attention"]["from_kv_blocks"]["partial"] = "transposed";
  EXPECT_EQ(ErrorFor(document), "field 'attention.from_kv_blocks.partial' is 'transposed'; use one "
                                "of contiguous, expanded-heads, strided");
  document = corpus::CaseToJson(rebuilt);
  document["create_block_mask"]["separate_full_blocks"] = false;
  EXPECT_NE(ErrorFor(document).find("separate_full_blocks is false"), std::string::npos);
  document = corpus::CaseToJson(scoped);
  document["constants"] = {{"lambda", 3}};
  document.erase("calls");
  EXPECT_NE(ErrorFor(document).find("'lambda', which is not a Python name"), std::string::npos);
  document["constants"] = {{"3n", 3}};
  EXPECT_NE(ErrorFor(document).find("'3n', which is not a Python name"), std::string::npos);
  document["constants"] = {{"kv_idx", 3}};
  EXPECT_NE(ErrorFor(document).find("'kv_idx', a name the case's functions already use"),
            std::string::npos);
  document["constants"] = {{"score_mod", 3}};
  EXPECT_NE(ErrorFor(document).find("also names a tensor or a function"), std::string::npos);
  document = corpus::CaseToJson(scoped);
  document["compile_scope"] = "modul";
  EXPECT_EQ(ErrorFor(document),
            "field 'compile_scope' is 'modul'; use one of api, function, module");
  document.erase("calls");
  document["compile_scope"] = "function";
  document["compile_with"] = "aoti";
  EXPECT_NE(ErrorFor(document).find("compile_scope \"function\" is torch.compile's"),
            std::string::npos);
}

// An index program's case: its reduction round-trips; a wrong reduction, a missing one, and what
// an index program does not use (calls, aoti) are one-line errors.
TEST(CaseFamilies, IndexProgramsRoundTripAndRejectWhatTheyDoNotUse) {
  const std::filesystem::path path = std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                                     "tests/cases/index-program-odd-reduction.json";
  const corpus::Case c = corpus::LoadCaseFile(path);
  EXPECT_EQ(c.api, corpus::kIndexProgram);
  EXPECT_EQ(c.index_reduction, "sum");
  EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(c)), c);
  json document = corpus::CaseToJson(c);
  document["index_program"]["reduction"] = "mean";
  EXPECT_EQ(ErrorFor(document), "field 'index_program.reduction' is 'mean'; use one of none, sum, "
                                "amax, any, prod, amin, all, "
                                "argmax, value_sum, value_amax");
  document.erase("index_program");
  EXPECT_NE(ErrorFor(document).find("field 'index_program'"), std::string::npos);
  document = corpus::CaseToJson(c);
  document["compile_with"] = "aoti";
  EXPECT_NE(ErrorFor(document).find("one torch.compile call of the program itself"),
            std::string::npos);
  document = SeedJson();
  document["index_program"] = {{"reduction", "sum"}};
  EXPECT_NE(ErrorFor(document).find("only used by api \"index_program\""), std::string::npos);
}

// A tensor program's case: its inputs (strided views of its tensors) round-trip, it is
// format version 3 and has no block mask; a view reaching past its storage, a tensor it does
// not hold, a stride missing, a dynamic mark of no dimension and what a program does not use
// are one-line errors naming the field.
TEST(CaseFamilies, TensorProgramsRoundTripAndRefuseViewsOutsideTheirStorage) {
  const std::filesystem::path path = std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                                     "tests/cases/tensor-program-transposed-mm.json";
  const corpus::Case c = corpus::LoadCaseFile(path);
  EXPECT_EQ(c.api, corpus::kTensorProgram);
  ASSERT_TRUE(c.tensor_program);
  ASSERT_EQ(c.tensor_program->inputs.size(), 2u);
  EXPECT_EQ(c.tensor_program->inputs[0].stride, (std::vector<std::int64_t>{1, 9}));
  EXPECT_EQ(c.tensor_program->inputs[0].offset, 3);
  EXPECT_EQ(corpus::FormatVersionOf(c), 3);
  EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(c)), c);
  EXPECT_FALSE(corpus::CaseToJson(c).contains("create_block_mask"));
  EXPECT_FALSE(corpus::CaseToJson(c)["tensor_program"]["inputs"][1].contains("offset"));

  json document = corpus::CaseToJson(c);
  document["tensor_program"]["inputs"][0]["offset"] = 4;
  EXPECT_EQ(ErrorFor(document), "field 'tensor_program.inputs[0]' reaches element 156 of tensor "
                                "'t0', which holds 156; fix its 'size', 'stride' or 'offset'");
  document = corpus::CaseToJson(c);
  document["tensor_program"]["inputs"][1]["tensor"] = "t9";
  EXPECT_NE(ErrorFor(document).find("'t9', which the case's 'tensors' does not hold"),
            std::string::npos);
  document = corpus::CaseToJson(c);
  document["tensor_program"]["inputs"][1]["stride"] = json::array({8});
  EXPECT_NE(ErrorFor(document).find("has 2 sizes and 1 strides"), std::string::npos);
  document = corpus::CaseToJson(c);
  document["tensor_program"]["inputs"][1]["stride"] = json::array({-8, 1});
  EXPECT_NE(ErrorFor(document).find("tensor_program.inputs[1].stride"), std::string::npos);
  document = corpus::CaseToJson(c);
  document["tensor_program"]["dynamic"] = json::array({json::array({1, 2})});
  EXPECT_NE(ErrorFor(document).find("marks dimension 2 of input 1"), std::string::npos);
  document = corpus::CaseToJson(c);
  document["format_version"] = 2;
  EXPECT_NE(ErrorFor(document).find("needs format_version 3"), std::string::npos);
  document = corpus::CaseToJson(c);
  document["compile_with"] = "aoti";
  EXPECT_NE(ErrorFor(document).find("one torch.compile call of the program itself"),
            std::string::npos);
  document = corpus::CaseToJson(c);
  document.erase("tensor_program");
  EXPECT_NE(ErrorFor(document).find("field 'tensor_program'"), std::string::npos);
  document = SeedJson();
  document["tensor_program"] = corpus::CaseToJson(c)["tensor_program"];
  EXPECT_NE(ErrorFor(document).find("only used by api \"tensor_program\""), std::string::npos);
}

// A ready-made block mask lists KV blocks that exist: an index past the last block is refused.
TEST(CaseFamilies, BlockIndicesOutOfRangeAreOneLineErrors) {
  json document = json::parse(std::ifstream(std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                                            "tests/cases/flex-options-v2.json"));
  ASSERT_EQ(ErrorFor(document), "");
  const std::string indices = document["attention"]["block_mask_tensors"][1];
  for (auto &tensor : document["tensors"])
    if (tensor["name"] == indices)
      tensor["values"][0] = 99;
  EXPECT_NE(ErrorFor(document).find("holds 99, outside 0.."), std::string::npos)
      << ErrorFor(document);
}

} // namespace
} // namespace fuzzer

namespace fuzzer {
namespace {

// The case reducer's use-torch-compile pass: an aoti case's one candidate is the same case under
// torch.compile (the reducer keeps it only if it fails the same way); it is in the pass order.
TEST(Case, TheReducerTriesAnAotiCaseUnderTorchCompile) {
  const reducers::CasePass *pass = reducers::FindCasePass("use-torch-compile");
  ASSERT_NE(pass, nullptr);
  corpus::Case c = corpus::CaseFromJson(SeedJson());
  EXPECT_TRUE(pass->candidates(c, {}).empty()) << "nothing to undo under torch.compile";
  c.compile_with = corpus::kAoti;
  const auto candidates = pass->candidates(c, {});
  ASSERT_EQ(candidates.size(), 1u);
  corpus::Case expected = c;
  expected.compile_with = corpus::kTorchCompile;
  EXPECT_EQ(candidates[0], expected);
  const auto order = reducers::LoadCasePassOrder(std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                                                 "reducers/case/passes.json");
  EXPECT_NE(std::find(order.begin(), order.end(), pass), order.end());
}

// A call sequence's repro.py as a person writes it: the calls unrolled, each saying only what
// changes, no table of calls and no runner (the real finding's case, two calls of a soft-capping
// score_mod; the general form of the same case was 44 lines, repro-tool.py beside it).
TEST(MinimalRepro, ACallSequenceIsUnrolledWithOnlyWhatChanges) {
  const std::filesystem::path finding =
      std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
      "corpus/findings/reduced/exception-softcap-symfloat-recompile";
  auto c = corpus::LoadCaseFile(finding / "case.json");
  const std::string signature = "exception|type=builtins.AssertionError|message=x|frame=y";
  constexpr auto kException = corpus::FindingKind::kException;
  const auto script =
      reducers::EmitMinimalRepro(c, kException, signature, reducers::ReproConfig::kMinimal);
  EXPECT_LE(std::count(script.begin(), script.end(), '\n'), 25) << script;
  EXPECT_EQ(script.find("CALLS"), std::string::npos) << script;
  EXPECT_EQ(script.find("def run"), std::string::npos) << script;
  EXPECT_NE(script.find("softcap = functions(50.0)"), std::string::npos) << script;
  EXPECT_NE(script.find("softcap = functions(30.0)"), std::string::npos) << script;
  // The inputs do not change: drawn once; two calls of the one compiled function.
  const std::regex draws("torch\\.randn");
  EXPECT_EQ(std::distance(std::sregex_iterator(script.begin(), script.end(), draws),
                          std::sregex_iterator()),
            1)
      << script;
  const std::regex calls("compiled\\(q, k, v");
  EXPECT_EQ(std::distance(std::sregex_iterator(script.begin(), script.end(), calls),
                          std::sregex_iterator()),
            2)
      << script;
  // A table the functions do not read is left out; one a later call replaces is set again.
  c.tensors.push_back({.name = "unused_table", .dtype = "int64", .shape = {2}, .integers = {1, 2}});
  EXPECT_EQ(reducers::EmitMinimalRepro(c, kException, signature, reducers::ReproConfig::kMinimal)
                .find("unused_table"),
            std::string::npos);
  // A wrong result compares every call with eager, and a divergence between compilers runs the
  // case as it is: the general form.
  for (const auto &[kind, other] :
       {std::pair{corpus::FindingKind::kWrongResult, "wrong-result|field=output"},
        std::pair{corpus::FindingKind::kCompilerDivergence, "compiler-divergence|built=g++-12"}})
    EXPECT_NE(
        reducers::EmitMinimalRepro(c, kind, other, reducers::ReproConfig::kMinimal).find("CALLS"),
        std::string::npos)
        << other;
}

} // namespace
} // namespace fuzzer
