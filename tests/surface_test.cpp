// Inductor's C++ op surface (issue 63): the cells a compile reaches, read from Inductor's codegen
// by the real worker; the table against the release's universe; op programs from the generator;
// the table in a campaign's reports and in `corpus report` of a merged corpus; the refusal of a
// case naming what the release does not have.
#include "binary_runner.h"
#include "corpus/case.h"
#include "corpus/surface_table.h"
#include "fuzzer/generate/generator.h"
#include "fuzzer/generate/op_program.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

namespace {

using nlohmann::json;
using test_support::RunInductorFuzz;
namespace fs = std::filesystem;
namespace generate = fuzzer::generate;

const fs::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

json ReadJson(const fs::path &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

fs::path Scratch(const std::string &name) {
  const auto path = fs::temp_directory_path() /
                    ("inductor-fuzz-surface-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(path);
  fs::create_directories(path);
  return path;
}

corpus::SurfaceUniverse TwoOpUniverse() {
  return corpus::SurfaceUniverseFromJson(
      {{"torch_version", "test"},
       {"derived_from", "eager+inductor-codegen"},
       {"dtypes", {"int8", "int16", "float32"}},
       {"ops",
        {{{"op", "abs"},
          {"vectorized", true},
          {"dtypes", {{"int8", "supported"}, {"int16", "scalar-only"}, {"float32", "supported"}}}},
         {{"op", "sin"},
          {"vectorized", true},
          {"dtypes", {{"int8", "promoted"}, {"int16", "promoted"}, {"float32", "supported"}}}},
         {{"op", "square"},
          {"vectorized", true},
          {"dtypes",
           {{"int8", "not-emitted"}, {"int16", "not-emitted"}, {"float32", "not-emitted"}}}}}}});
}

// The table: cells from features, vector_tail counted as vector, casts apart, the share over
// the paths the universe counts (both for "supported", one for "scalar-only", none for what
// Inductor does not emit) and the ones reached beyond them.
TEST(SurfaceTable, CountsReachedCellsAgainstTheUniverse) {
  const auto universe = TwoOpUniverse();
  const std::set<std::string> features = {
      corpus::SurfaceFeature("abs", "int8", "scalar"),
      corpus::SurfaceFeature("abs", "int8", "vector_tail"),
      corpus::SurfaceFeature("sin", "float32", "vector"),
      corpus::SurfaceFeature("to_dtype->float32", "int8", "cast"),
      corpus::SurfaceFeature("bitwise_xor", "int8", "scalar"), // beyond the universe
      corpus::SurfaceFeature("abs", "int16", "vector"),        // beyond its scalar-only
      "at::vec::Vectorized<float>"};                           // not a cell
  const auto table = corpus::SurfaceTableOf(features, universe);
  EXPECT_EQ(table.StateOf("abs", "int8"), "both");
  EXPECT_EQ(table.StateOf("sin", "float32"), "vector");
  EXPECT_EQ(table.StateOf("sin", "int8"), "none");
  EXPECT_EQ(table.StateOf("abs", "float32"), "none");
  EXPECT_EQ(table.StateOf("abs", "int16"), "vector");
  // 3 supported (op, dtype) x 2 paths, abs on int16: its scalar path and the vector one
  // reached beyond it, bitwise_xor reached beyond the universe; square none.
  EXPECT_EQ(table.SupportedCells(), 9u);
  EXPECT_EQ(table.ReachedSupportedCells(), 5u);
  EXPECT_EQ(corpus::CountedPaths("scalar-only"), std::set<std::string>{"scalar"});
  EXPECT_TRUE(corpus::CountedPaths("not-emitted").empty());
  const json document = table.ToJson();
  EXPECT_NEAR(document["share"].get<double>(), 5.0 / 9.0, 1e-9);
  EXPECT_EQ(document["derived_from"], "eager+inductor-codegen");
  EXPECT_EQ(document["casts"], json::array({json::array({"int8", "float32"})}));
  EXPECT_EQ(document["rows"][1]["cells"]["int8"]["eager"], "promoted");
  const auto round_trip = corpus::SurfaceUniverseFromJson(corpus::SurfaceUniverseToJson(universe));
  EXPECT_EQ(round_trip.ops.size(), 3u);
  EXPECT_EQ(round_trip.derived_from, "eager+inductor-codegen");
  // A universe an older worker wrote (eager alone) still reads.
  EXPECT_EQ(corpus::SurfaceUniverseFromJson({{"torch_version", "t"}, {"ops", json::array()}})
                .derived_from,
            "eager");
  EXPECT_THROW(corpus::SurfaceUniverseFromJson({{"ops", 3}}), corpus::FormatError);
}

// Op programs: about p_op_program of the cases, every dtype drawn, edge tables and index
// sources, every reduction, the CPU capability knob; each case round-trips through the format.
TEST(SurfaceGenerator, OpProgramsDrawEveryDtypeAndRoundTrip) {
  // Without tensor programs, which take their share from the other cases first.
  auto policy = generate::GenerationPolicy::Default();
  policy.numbers["p_tensor_program"] = 0;
  std::map<std::string, int> seen;
  int programs = 0;
  const int cases = 400;
  for (int index = 0; index < cases; ++index) {
    const auto generated =
        generate::GenerateCase({63, static_cast<std::uint64_t>(index), "t"}, policy);
    if (!generated.features.contains("op_program"))
      continue;
    ++programs;
    for (const auto &[feature, times] : generated.features)
      seen[feature] += times;
    const corpus::Case &c = generated.c;
    EXPECT_EQ(c.api, corpus::kIndexProgram);
    ASSERT_TRUE(c.mask_mod.has_value());
    EXPECT_EQ(corpus::CaseFromJson(corpus::CaseToJson(c)), c) << corpus::CaseToJson(c).dump(1);
  }
  EXPECT_GT(programs, cases / 5);
  EXPECT_LT(programs, cases / 2);
  for (const auto &dtype : generate::OpProgramDtypes())
    EXPECT_GT(seen["op_dtype:" + dtype], 0) << dtype;
  for (const auto &reduction : corpus::kIndexReductions)
    EXPECT_GT(seen["op_reduction:" + reduction], 0) << reduction;
  EXPECT_GT(seen["op_source:edges"], 0);
  EXPECT_GT(seen["op_source:padded"], 0);
  EXPECT_GT(seen["op_source:indices"], 0);
  EXPECT_GT(seen["ATEN_CPU_CAPABILITY:avx2"] + seen["ATEN_CPU_CAPABILITY:avx512"], 0);
  for (const auto &op : {"op_int:lshift", "op_float:atan2", "op_float:nextafter",
                         "op_float:frexp_mantissa", "op_int:bitcast", "op_float:erfinv"})
    EXPECT_GT(seen[op], 0) << op;
}

// The real worker on an int8 op program: the cells are Inductor's own overrides, by the dtype
// they saw and the path (the 33-lane loop has a vector body and a tail), in result.json.
TEST(SurfaceRecorder, RunCaseRecordsTheOverridesInductorEmitted) {
  const auto out = Scratch("run-case");
  const auto run =
      RunInductorFuzz({"run-case", (kSourceDir / "tests/cases/op-program-int8-shift.json").string(),
                       "--out", (out / "run").string()});
  ASSERT_LE(run.exit_code, 1) << run.out << run.err;
  const json result = ReadJson(out / "run" / "result.json");
  const json &worker = result.contains("worker_result") ? result["worker_result"] : result;
  std::set<std::vector<std::string>> cells;
  for (const auto &cell : worker.at("surface"))
    cells.insert(cell.get<std::vector<std::string>>());
  EXPECT_TRUE(cells.contains({"bitwise_right_shift", "int8", "vector"}) ||
              cells.contains({"bitwise_right_shift", "int8", "scalar"}))
      << worker["surface"].dump();
  EXPECT_TRUE(cells.contains({"bitwise_xor", "int8", "vector"}) ||
              cells.contains({"bitwise_xor", "int8", "scalar"}))
      << worker["surface"].dump();
  std::set<std::string> paths;
  for (const auto &cell : cells)
    paths.insert(cell[2]);
  EXPECT_TRUE(paths.contains("vector")) << worker["surface"].dump();
  EXPECT_TRUE(paths.contains("scalar") || paths.contains("vector_tail"))
      << worker["surface"].dump();
  fs::remove_all(out);
}

// A case naming a torch op this release does not have is refused before it runs: one line,
// exit 2, nothing written under --out.
TEST(SurfaceRecorder, RunCaseRefusesAnOpTheReleaseLacks) {
  const auto out = Scratch("refuse");
  json c = ReadJson(kSourceDir / "tests/cases/op-program-int8-shift.json");
  c["mask_mod"]["source"] =
      "def mask_mod(b, h, q_idx, kv_idx):\n    return torch.no_such_op(q_idx) > kv_idx\n";
  std::ofstream(out / "case.json") << c.dump(1);
  const auto run =
      RunInductorFuzz({"run-case", (out / "case.json").string(), "--out", (out / "run").string()});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("names torch.no_such_op, which torch"), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_FALSE(fs::exists(out / "run" / "result.json"));
  fs::remove_all(out);
}

// A campaign of op programs: summary.json and report.html carry the table, with the universe
// the worker gave; `corpus report` of the corpus merged into another gives the same table.
TEST(SurfaceCampaign, ReportsTheTableAndCorpusReportMergesIt) {
  const auto out = Scratch("campaign");
  std::ofstream(out / "policy.json") << json{{"numbers", {{"p_op_program", 1.0}}}}.dump();
  std::ofstream(out / "known.json") << R"({"format_version": 1, "issues": []})";
  const auto run = RunInductorFuzz(
      {"fuzz", "--cases", "4", "--seed", "63", "--jobs", "1", "--matrix-every", "0", "--reduce",
       "none", "--policy", (out / "policy.json").string(), "--known-issues",
       (out / "known.json").string(), "--corpus", (out / "corpus").string()});
  ASSERT_LE(run.exit_code, 1) << run.out << run.err;
  const json summary = ReadJson(out / "corpus" / "report" / "summary.json");
  const json &surface = summary.at("surface");
  EXPECT_GT(surface["cells"].get<int>(), 300) << surface.dump().substr(0, 400);
  EXPECT_GT(surface["reached"].get<int>(), 5);
  EXPECT_GT(surface["share"].get<double>(), 0.0);
  EXPECT_TRUE(surface["torch_version"].is_string());
  // The universe is Inductor's: what its codegen emitted when the worker probed every op.
  EXPECT_EQ(surface["derived_from"], "eager+inductor-codegen");
  std::ifstream html(out / "corpus" / "report" / "report.html");
  std::stringstream page;
  page << html.rdbuf();
  EXPECT_NE(page.str().find("id=\"surface-table\""), std::string::npos);

  const auto merge = RunInductorFuzz(
      {"corpus", "merge", (out / "corpus").string(), "--into", (out / "merged").string()});
  ASSERT_EQ(merge.exit_code, 0) << merge.out << merge.err;
  const auto report = RunInductorFuzz({"corpus", "report", "--corpus", (out / "merged").string(),
                                       "--known-issues", (out / "known.json").string(), "--report",
                                       (out / "merged-report").string()});
  ASSERT_LE(report.exit_code, 1) << report.out << report.err;
  const json merged = ReadJson(out / "merged-report" / "summary.json").at("surface");
  EXPECT_EQ(merged["reached"], surface["reached"]);
  EXPECT_EQ(merged["cells"], surface["cells"]);
  fs::remove_all(out);
}

} // namespace
