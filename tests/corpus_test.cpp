// corpus/: the typed Finding and its one signature, the formats' readers and writers.
#include "corpus/capture_origin.h"
#include "corpus/case.h"
#include "corpus/delivery.h"
#include "corpus/finding.h"
#include "corpus/knobs.h"
#include "corpus/known_issues.h"
#include "corpus/matrix_record.h"
#include "corpus/run_record.h"
#include "corpus/surface_table.h"
#include "support/scratch_dir.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace corpus {
namespace {

using nlohmann::json;

const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

Finding Exception(const std::string &type, const std::string &message, const std::string &frame) {
  Finding finding{.kind = FindingKind::kException};
  finding.essence.Add("type", type).Add("message", message).Add("frame", frame);
  return finding;
}

TEST(Signature, StableAcrossPathsAddressesNumbersAndLineNumbers) {
  const auto a = Exception("IndexError", "index 37 is out of bounds for dimension 0 with size 12",
                           "torch/_refs/__init__.py:index_select");
  const auto b = Exception("IndexError", "index 5 is out of bounds for dimension 0 with size 9",
                           "torch/_refs/__init__.py:index_select");
  EXPECT_EQ(Signature(a), Signature(b));
  const auto c = Exception("torch._inductor.exc.LoweringException",
                           "AssertionError: at 0x7f3a12 in /tmp/torchinductor_root/ab/x.py",
                           "torch/_inductor/lowering.py:123:wrapped");
  const auto d = Exception("torch._inductor.exc.LoweringException",
                           "AssertionError: at 0x55aa00 in /home/ci/.cache/q/y.py",
                           "torch/_inductor/lowering.py:456:wrapped");
  EXPECT_EQ(Signature(c), Signature(d));
  EXPECT_EQ(Signature(c).find("0x7f"), std::string::npos);
  EXPECT_EQ(Signature(c).find("/tmp"), std::string::npos);
}

// The outer wrapper is the same for every fake-tensor failure; the innermost cause and the
// raising frame are what tell them apart.
TEST(Signature, DifferentInnermostCausesDoNotCollide) {
  const auto index_error = Exception("IndexError", "index 512 is out of bounds",
                                     "torch/_subclasses/fake_impls.py:index_tensor");
  const auto meta_missing =
      Exception("NotImplementedError",
                "aten::_local_scalar_dense: attempted to run this operator with Meta tensors",
                "torch/_subclasses/fake_tensor.py:dispatch");
  const auto same_type_other_frame =
      Exception("IndexError", "index 512 is out of bounds", "torch/_refs/__init__.py:select");
  EXPECT_NE(Signature(index_error), Signature(meta_missing));
  EXPECT_NE(Signature(index_error), Signature(same_type_other_frame));
}

// One heap overflow in flex_attention aborted with six different glibc texts, or segfaulted,
// in one campaign: one signature. The essence keeps what happened.
TEST(Signature, MemoryCorruptionCrashesAreOneSignatureOtherAbortsAreNot) {
  auto crash = [](const std::string &signal, const std::string &abort) {
    Finding finding{.kind = FindingKind::kCrash};
    finding.essence.Add("api", "flex_attention").Add("signal", signal).Add("abort", abort);
    return Signature(finding);
  };
  const std::string memory = crash("6", "corrupted size vs. prev_size");
  EXPECT_EQ(memory, "crash|api=flex_attention|signal=memory|abort=memory error");
  for (const char *abort :
       {"free(): invalid next size (normal)", "double free or corruption (!prev)",
        "malloc(): unaligned tcache chunk detected", "munmap_chunk(): invalid pointer",
        "corrupted double-linked list", "malloc_consolidate(): invalid chunk size",
        "Fatal glibc error: malloc assertion failure in _int_malloc: chunk_main_arena (bck->bk)"})
    EXPECT_EQ(crash("6", abort), memory) << abort;
  EXPECT_EQ(crash("11", ""), memory) << "a segfault";
  EXPECT_EQ(crash("7", ""), memory) << "a bus error";
  EXPECT_NE(crash("6", "python: kernel.cpp:12: void f(): Assertion `x < 4' failed."), memory);
  EXPECT_NE(crash("6", ""), memory);
  EXPECT_NE(crash("6", "terminate called after throwing an instance of 'c10::Error'"), memory);
  EXPECT_NE(crash("9", "resident memory over the worker limit"), memory);
}

TEST(Signature, KindsAndStatusesRoundTripTheirNames) {
  for (const auto kind : AllFindingKinds())
    EXPECT_EQ(KindFromName(KindName(kind)), kind);
  for (const auto status :
       {CaseStatus::kPass, CaseStatus::kExpected, CaseStatus::kFinding, CaseStatus::kInvalidCase})
    EXPECT_EQ(StatusFromName(StatusName(status)), status);
  EXPECT_FALSE(KindFromName("no-such-kind"));
}

TEST(FindingFormat, RoundTripsAndReSignsASignatureAnotherVersionWrote) {
  Finding finding = Exception("RuntimeError", "boom 3", "torch/x.py:f");
  finding.summary = "RuntimeError: boom 3";
  finding.source_lines.push_back({"k.cpp", 12, "float tmp0 = 1;"});
  finding.compilers = {"g++-12"};
  finding.provenance = {{"tool_version", "test"}};
  const json stored = FindingToJson(finding);
  EXPECT_EQ(FindingFromJson(stored), finding);
  EXPECT_EQ(stored["signature_id"].get<std::string>().size(), 16u);
  // The essence is the record: a signature an older normaliser wrote is re-made, not refused.
  json older = stored;
  older["signature"] = "exception|type=RuntimeError|message=boom 3|frame=torch/x.py:f";
  EXPECT_EQ(FindingFromJson(older), finding);
  EXPECT_EQ(FindingToJson(FindingFromJson(older))["signature"], stored["signature"]);
  json unknown = stored;
  unknown["kind"] = "bogus";
  EXPECT_THROW(FindingFromJson(unknown), FormatError);
}

// A list fact stays a list of words until the signature joins them: stored as a JSON list, and
// a finding of format version 1, which stored it comma-joined, reads as the same list.
TEST(FindingFormat, AListFactIsStoredAsAListAndSignsAsItsJoinedWords) {
  Finding wrong{.kind = FindingKind::kWrongResult};
  wrong.essence.Add("api", "flex_attention")
      .Add("fields", FactValue::List({"call1.output", "lse"}))
      .Add("problems", FactValue::List({"values differ"}))
      .Add("how", FactValue::List({}))
      .Add("where", FactValue::List({"everywhere"}));
  const json stored = FindingToJson(wrong);
  EXPECT_EQ(stored["format_version"], 2);
  EXPECT_EQ(stored["essence"][1], json::array({"fields", {"call1.output", "lse"}}));
  EXPECT_EQ(stored["essence"][3], json::array({"how", json::array()}));
  EXPECT_EQ(FindingFromJson(stored), wrong);
  EXPECT_EQ(Signature(wrong), "wrong-result|api=flex_attention|fields=call1.output,lse|"
                              "problems=values differ|how=|where=everywhere");

  json version1 = stored;
  version1["format_version"] = 1;
  for (auto &fact : version1["essence"])
    if (fact[1].is_array())
      fact[1] = FactValue::List(fact[1].get<std::vector<std::string>>()).Text();
  EXPECT_EQ(version1["essence"][1][1], "call1.output,lse");
  const Finding read = FindingFromJson(version1);
  EXPECT_EQ(read, wrong);
  ASSERT_TRUE(read.essence.facts[1].second.IsList());
  EXPECT_EQ(read.essence.facts[1].second.Members().size(), 2u);
  EXPECT_FALSE(read.essence.facts[0].second.IsList()) << "api is a text, not a list";

  json bad = stored;
  bad["essence"][1][1] = json::array({"output", 3});
  try {
    FindingFromJson(bad);
    ADD_FAILURE() << "a list with a number in it was read";
  } catch (const FormatError &error) {
    EXPECT_NE(std::string(error.what()).find("list of strings"), std::string::npos) << error.what();
  }
  json newer = stored;
  newer["format_version"] = 3;
  EXPECT_THROW(FindingFromJson(newer), FormatError);
}

TEST(CaseFormat, Int64TablesAreExact) {
  json document = json::parse(std::ifstream(kSourceDir / "corpus/seeds/causal-151290.json"));
  document["tensors"] = json::array(
      {{{"name", "offsets"},
        {"dtype", "int64"},
        {"shape", {3}},
        {"values", {9007199254740993LL, -9223372036854775807LL - 1, 9223372036854775807LL}}}});
  const Case c = CaseFromJson(document);
  ASSERT_EQ(c.tensors[0].integers.size(), 3u);
  EXPECT_EQ(c.tensors[0].integers[0], 9007199254740993LL);
  EXPECT_EQ(CaseToJson(c)["tensors"][0]["values"][0].get<std::int64_t>(), 9007199254740993LL);
  EXPECT_EQ(CaseFromJson(CaseToJson(c)), c);
  document["tensors"][0]["values"][0] = 1.5;
  EXPECT_THROW(CaseFromJson(document), CaseError);
}

TEST(CaseFormat, EveryStoredCaseLoads) {
  int loaded = 0;
  for (const char *folder : {"corpus/seeds", "corpus/findings", "tests/cases"})
    for (const auto &entry : std::filesystem::directory_iterator(kSourceDir / folder))
      if (entry.path().extension() == ".json") {
        SCOPED_TRACE(entry.path().string());
        EXPECT_NO_THROW(LoadCaseFile(entry.path()));
        ++loaded;
      }
  EXPECT_GE(loaded, 8);
}

TEST(Knobs, TheTableDrivesTheCaseAndTheConfig) {
  InductorKnobs knobs;
  knobs.cpp_threads = 8;
  knobs.cpp_simdlen = 512;
  knobs.dynamic = true;
  const json config = InductorConfig(knobs);
  EXPECT_EQ(config["cpp.threads"], 8);
  EXPECT_EQ(config["cpp.simdlen"], 512);
  EXPECT_FALSE(config.contains("dynamic")) << "dynamic is torch.compile's argument";
  EXPECT_EQ(config["compile_threads"], 1);
  knobs.optional["max_fusion_size"] = 8;
  EXPECT_EQ(InductorConfig(knobs)["max_fusion_size"], 8);
  const json stored = KnobsToJson(knobs);
  // Every knob, but the optional ones only when set (issue 32).
  for (const auto &knob : InductorKnobTable())
    EXPECT_EQ(stored.contains(std::string(knob.name)),
              !knob.optional || knob.name == "max_fusion_size")
        << knob.name;
  EXPECT_FALSE(InductorConfig(knobs).contains("aggressive_fusion"));
}

class RunRecordTest : public ::testing::Test {
protected:
  support::ScratchDir scratch_{"corpus-test"};
};

TEST_F(RunRecordTest, WrittenRecordReadsBackWithItsFindingAndCommands) {
  const Case c = LoadCaseFile(kSourceDir / "corpus/seeds/causal-151290.json");
  const json worker_result = {
      {"status", "finding"},
      {"kind", "exception"},
      {"builds",
       {{{"argv", {"g++", "/tmp/x/k.cpp", "-shared", "-o", "/tmp/x/k.so"}},
         {"cwd", "/tmp/x"},
         {"compiler", {{"path", "/usr/bin/g++"}, {"version", "g++ 12"}}},
         {"exit_code", 0},
         {"output", ""},
         {"sources", {{{"path", "/tmp/x/k.cpp"}, {"text", "int k() { return 1; }\n"}}}}}}}};
  RunResult run{.status = CaseStatus::kFinding,
                .finding = Exception("RuntimeError", "boom", "torch/x.py:f"),
                .worker_result = worker_result};
  const std::filesystem::path folder = scratch_ / "records" / "one";
  std::filesystem::create_directories(folder);
  WriteRunRecord(folder, c, run, {{"tool_version", "test"}});
  const RunRecord record = ReadRunRecord(folder);
  EXPECT_EQ(record.status, CaseStatus::kFinding);
  ASSERT_TRUE(record.finding);
  EXPECT_EQ(Signature(*record.finding), Signature(*run.finding));
  EXPECT_EQ(record.c, c);
  ASSERT_EQ(record.commands.size(), 1u);
  EXPECT_EQ(record.commands[0].Output(), "/tmp/x/k.so");
  ASSERT_EQ(record.commands[0].sources.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(record.commands[0].sources[0].stored));
  // Found under a folder above it, and an unreadable sibling folder does not end the walk.
  std::filesystem::create_directories(scratch_ / "records" / "closed");
  std::filesystem::permissions(scratch_ / "records" / "closed", std::filesystem::perms::none);
  EXPECT_EQ(FindRunRecords({scratch_.path()}),
            std::vector<std::filesystem::path>{std::filesystem::absolute(folder)});
  std::filesystem::permissions(scratch_ / "records" / "closed", std::filesystem::perms::owner_all);
}

TEST_F(RunRecordTest, OldRecordsAreRefusedWithAMessageToReRun) {
  std::ofstream(scratch_ / "result.json") << R"({"status": "pass", "kind": null})";
  try {
    ReadRunRecord(scratch_.path());
    FAIL() << "an old record was read";
  } catch (const FormatError &error) {
    EXPECT_NE(std::string(error.what()).find("re-run"), std::string::npos) << error.what();
  }
}

TEST_F(RunRecordTest, CommandsFilesOfVersionOneStillLoadAndBadOnesNameTheEntry) {
  std::ofstream(scratch_ / "commands.json")
      << R"([{"argv": ["g++", "a.cpp", "-o", "a.so"], "sources": [{"captured_path": "/t/a.cpp", "stored": "sources/a.cpp"}]}])";
  const auto commands = ReadCommandsFile(scratch_ / "commands.json");
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0].sources[0].stored, scratch_ / "sources/a.cpp");
  std::ofstream(scratch_ / "commands.json") << R"([{"argv": "g++ a.cpp"}])";
  try {
    ReadCommandsFile(scratch_ / "commands.json");
    FAIL() << "a bad commands.json was read";
  } catch (const FormatError &error) {
    EXPECT_NE(std::string(error.what()).find("commands[0].argv"), std::string::npos)
        << error.what();
  }
}

// A capture from another machine: its torch root is mapped by release onto this machine's,
// even where the other machine's path exists here holding another release (a collision), and a
// release not installed here is named as missing, never followed.
TEST_F(RunRecordTest, ACaptureFromAnotherMachineHasItsRootsMappedByReleaseNeverFollowed) {
  const auto fake_venv = [&](const std::string &name) {
    const auto root = scratch_ / name / "lib/python3.11/site-packages/torch";
    std::filesystem::create_directories(root / "include");
    return root;
  };
  const auto here_26 = fake_venv("venv-26");
  const auto here_215 = fake_venv("venv-215");
  const std::vector<support::TorchEnvironment> local = {{scratch_ / "venv-215", "2.15.0+cu132"},
                                                        {scratch_ / "venv-26", "2.6.0+cu124"}};
  const auto capture = scratch_ / "cap";
  std::filesystem::create_directories(capture / "sources");
  std::ofstream(capture / "sources/00-k.cpp") << "int k;";
  // The other machine's torch 2.6.0 sat where this machine's 2.15.0 is.
  const auto write_capture = [&](const std::string &torch, const std::string &machine) {
    std::ofstream(capture / "capture.json")
        << json{{"format_version", 1},
                {"provenance",
                 {{"torch", torch},
                  {"python", "3.11.2"},
                  {"machine", machine},
                  {"paths",
                   {{"torch", here_215.string()}, {"python_include", "/opt/py/include"}}}}}}
               .dump();
  };
  write_capture("2.6.0", "x86_64");
  std::ofstream(capture / "commands.json") << json{
      {"format_version", 2},
      {"commands",
       {{{"argv",
          {"g++", "/other/cache/k.cpp", "-I" + here_215.string() + "/include",
           "-I" + here_215.string() + "x/include", "-I/opt/py/include", "-o", "/other/k.so"}},
         {"sources", {{{"captured_path", "/other/cache/k.cpp"}, {"stored", "sources/00-k.cpp"}}}},
         {"recording", "recordings/00-k.pt"}}}}}.dump();
  const auto origin = ReadCaptureOrigin(capture, local);
  ASSERT_TRUE(origin.has_value());
  EXPECT_TRUE(origin->missing.empty());
  std::vector<std::string> mapped;
  for (const auto &argument :
       {"-I" + here_215.string() + "/include", "-I" + here_215.string() + "x/include",
        std::string("-I/opt/py/include")})
    mapped.push_back(MapArgument(argument, origin->mappings));
  EXPECT_EQ(mapped[0], "-I" + here_26.string() + "/include");
  EXPECT_EQ(mapped[1], "-I" + here_215.string() + "x/include") << "only at a path boundary";
  EXPECT_EQ(mapped[2], "-I/usr/include/python3.11");

  write_capture("2.16.0+cu130", "aarch64");
  const auto missing = ReadCaptureOrigin(capture, local);
  ASSERT_EQ(missing->missing.size(), 1u);
  EXPECT_NE(missing->missing[0].find("scripts/setup --with-torch 2.16.0"), std::string::npos);
  EXPECT_FALSE(missing->runs_here);
  EXPECT_FALSE(ReadCaptureOrigin(scratch_ / "venv-26", local).has_value()) << "no capture.json";
}

MatrixRecord TwoCompilerMatrix() {
  Finding divergence{.kind = FindingKind::kCompilerDivergence};
  divergence.essence.Add("built", FactValue::List({"g++-12"}))
      .Add("failed", FactValue::List({"clang++-14"}))
      .Add("crashed", FactValue::List({}));
  divergence.essence.Add("error", "use of undeclared identifier 'x'");
  divergence.detail = {{"built_by", {"g++-12"}}, {"failed_on", {"clang++-14"}}};
  MatrixRow row{.tu = "gcc-only/kernel.cpp",
                .source = "/corpus/gcc-only/sources/00-kernel.cpp",
                .recording = "",
                .reference_runtime = "",
                .builds = {{.compiler = "g++-12",
                            .argv = {"g++-12", "-c", "k.cpp"},
                            .built = true,
                            .exit = "exit 0",
                            .seconds = 1.5,
                            .object_size = 9007199254740993},
                           {.compiler = "clang++-14",
                            .argv = {"clang++-14", "-c", "k.cpp"},
                            .exit = "exit 1",
                            .errors = 1,
                            .warnings = {"unused variable '<name>'"},
                            .first_error = "use of undeclared identifier 'x'",
                            .runtime_detail = nullptr}},
                .divergence = divergence,
                .runtime_finding = std::nullopt,
                .load_findings = {}};
  return {.provenance = {{"torch_version", "2.15.0"}}, .rows = {row}};
}

TEST(MatrixFormat, RoundTripsExactlyWithItsFindings) {
  const support::ScratchDir scratch("corpus-test");
  const MatrixRecord record = TwoCompilerMatrix();
  WriteMatrixRecord(scratch / "matrix.json", record);
  const MatrixRecord read = ReadMatrixRecord(scratch / "matrix.json");
  EXPECT_EQ(read, record);
  EXPECT_EQ(read.rows[0].builds[0].object_size, 9007199254740993u);
  ASSERT_EQ(read.rows[0].Findings().size(), 1u);
  EXPECT_EQ(Signature(read.rows[0].Findings()[0]), Signature(*record.rows[0].divergence));
}

TEST(MatrixFormat, RefusesOtherVersionsUnknownFieldsAndBadFindings) {
  const support::ScratchDir scratch("corpus-test");
  auto refuses = [&](json document, const std::string &expected) {
    std::ofstream(scratch / "matrix.json") << document.dump();
    try {
      ReadMatrixRecord(scratch / "matrix.json");
      ADD_FAILURE() << "accepted " << document.dump();
    } catch (const FormatError &error) {
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
    }
  };
  const json good = MatrixRecordToJson(TwoCompilerMatrix());
  json old = good;
  old["format_version"] = 0;
  refuses(old, "re-run the command");
  json unknown = good;
  unknown["tus"][0]["builds"][1]["bulit"] = true;
  refuses(unknown, "tus[0].builds[1].bulit");
  // A finding's signature from another normaliser is re-made from its essence, not refused.
  json older = good;
  older["tus"][0]["finding"]["signature"] = "compiler-divergence|built=g++-11";
  std::ofstream(scratch / "matrix.json") << older.dump();
  EXPECT_EQ(ReadMatrixRecord(scratch / "matrix.json"), TwoCompilerMatrix());
  json bad_essence = good;
  bad_essence["tus"][0]["finding"]["essence"] = json::array({"built"});
  refuses(bad_essence, "essence");
  json mistyped = good;
  mistyped["tus"][0]["builds"][0]["seconds"] = "fast";
  refuses(mistyped, "tus[0].builds[0].seconds");
  std::ofstream(scratch / "matrix.json") << std::string("\x7f"
                                                        "ELF\0\0",
                                                        6);
  EXPECT_THROW(ReadMatrixRecord(scratch / "matrix.json"), support::InputError);
}

TEST(CompareFormat, RoundTripsAndDerivesCountsFromVerdicts) {
  const support::ScratchDir scratch("corpus-test");
  CompareRecord record{.provenance = {{"command_line", "inductor-fuzz compare"}},
                       .baseline = {"g++-12", "12.2.0"},
                       .candidate = {"clang++-14", "14.0.6"},
                       .rows = {}};
  record.rows.push_back({.tu = "a/k.cpp",
                         .verdict = CompareVerdict::kRegression,
                         .baseline = {.built = true, .seconds = 2.0, .object_size = 100},
                         .candidate = {.seconds = 1.0, .first_error = "error: x"}});
  record.rows.push_back({.tu = "b/k.cpp",
                         .verdict = CompareVerdict::kSame,
                         .baseline = {.built = true, .object_size = 10},
                         .candidate = {.built = true, .object_size = 30}});
  WriteCompareRecord(scratch / "compare.json", record);
  const auto read = ReadCompareRecord(scratch / "compare.json");
  EXPECT_EQ(read, record);
  EXPECT_EQ(read.Counts(), (std::map<std::string, int>{{"regression", 1}, {"same", 1}}));
  EXPECT_EQ(read.Regressions(), 1);
  EXPECT_EQ(read.rows[0].ObjectSizeDelta(), -100);
  EXPECT_EQ(read.rows[1].ObjectSizeDelta(), 20);

  json edited = CompareRecordToJson(record);
  edited["tus"][0]["verdict"] = "same";
  std::ofstream(scratch / "compare.json") << edited.dump();
  EXPECT_THROW(ReadCompareRecord(scratch / "compare.json"), FormatError)
      << "counts no longer match the verdicts";
  edited["tus"][0]["verdict"] = "worse";
  std::ofstream(scratch / "compare.json") << edited.dump();
  EXPECT_THROW(ReadCompareRecord(scratch / "compare.json"), FormatError);
}

// Each record is written and read from one field list (corpus/record_fields.h): every field the
// writer writes, the reader needs (but the few an older record may lack), and a field no writer
// writes is refused, each named by its path.
TEST(RecordFields, EveryWrittenFieldIsReadBackAndNoOtherIsAccepted) {
  const auto check = [](const std::string &what, const json &written,
                        const std::function<void(const json &)> &read,
                        const std::set<std::string> &may_be_absent) {
    SCOPED_TRACE(what);
    EXPECT_NO_THROW(read(written));
    ASSERT_TRUE(written.is_object());
    for (const auto &[key, value] : written.items()) {
      json without = written;
      without.erase(key);
      if (may_be_absent.contains(key)) {
        EXPECT_NO_THROW(read(without)) << key;
        continue;
      }
      try {
        read(without);
        ADD_FAILURE() << "read without " << key;
      } catch (const FormatError &error) {
        EXPECT_NE(std::string(error.what()).find(key), std::string::npos) << error.what();
      }
    }
    json extra = written;
    extra["colour"] = "red";
    try {
      read(extra);
      ADD_FAILURE() << "read with an unknown field";
    } catch (const FormatError &error) {
      EXPECT_NE(std::string(error.what()).find("colour' is not a known field"), std::string::npos)
          << error.what();
    }
  };
  Finding finding{.kind = FindingKind::kCompileError, .summary = "s", .message = "m"};
  finding.essence.Add("family", "gcc").Add("message", "error: x");
  finding.source_lines.push_back({"k.cpp", 3, "int x;"});
  check("finding", FindingToJson(finding), [](const json &j) { FindingFromJson(j); }, {});
  Delivery delivery{.bug = "bug-1", .finding_id = "f", .signature = "s"};
  delivery.releases.push_back({.torch = "2.6.0", .venv = "v", .result = "passes", .how = "h"});
  check("delivery", DeliveryToJson(delivery), [](const json &j) { DeliveryFromJson(j); }, {});
  check("a delivery's release run", DeliveryToJson(delivery)["releases"][0],
        [&](const json &run) {
          json document = DeliveryToJson(delivery);
          document["releases"][0] = run;
          DeliveryFromJson(document);
        },
        {});
  const MatrixRecord matrix = TwoCompilerMatrix();
  check("matrix", MatrixRecordToJson(matrix), [](const json &j) { MatrixRecordFromJson(j); }, {});
  check("a matrix row", MatrixRecordToJson(matrix)["tus"][0],
        [&](const json &row) {
          json document = MatrixRecordToJson(matrix);
          document["tus"][0] = row;
          MatrixRecordFromJson(document);
        },
        {"memory_errors", "finding", "runtime_finding"});
  CompareRecord compare{.baseline = {"g++-12", "12.2.0"}, .candidate = {"clang++-19", "19"}};
  compare.rows.push_back(
      {.tu = "k.cpp", .baseline = {.built = true}, .candidate = {.built = true}});
  check("compare", CompareRecordToJson(compare), [](const json &j) { CompareRecordFromJson(j); },
        {});
  check("a compare row's side", CompareRecordToJson(compare)["tus"][0]["baseline"],
        [&](const json &side) {
          json document = CompareRecordToJson(compare);
          document["tus"][0]["baseline"] = side;
          CompareRecordFromJson(document);
        },
        {"float64_reference"});
}

// The surface universe is the worker's reply: what the tool reads of it is checked by name, what
// it does not read (the worker's `paths`) passes, and what the tool writes back reads the same.
TEST(RecordFields, TheWorkersUniverseIsReadLenientlyButWhatItNeedsIsChecked) {
  const SurfaceUniverse universe{
      .torch_version = "2.15.0",
      .derived_from = "eager+inductor-codegen",
      .dtypes = {"float32", "int8"},
      .ops = {{.name = "abs", .vectorized = true, .dtypes = {{"int8", "supported"}}},
              {.name = "sin", .dtypes = {{"float32", "scalar-only"}, {"int8", "promoted"}}}}};
  json written = SurfaceUniverseToJson(universe);
  const SurfaceUniverse read = SurfaceUniverseFromJson(written);
  EXPECT_EQ(read.ops[1].dtypes, universe.ops[1].dtypes);
  EXPECT_EQ(read.dtypes, universe.dtypes);
  EXPECT_EQ(read.derived_from, universe.derived_from);
  written["paths"] = {"scalar", "vector"};
  written["ops"][0]["note"] = "more than the table reads";
  EXPECT_NO_THROW(SurfaceUniverseFromJson(written));
  json without_dtypes = written;
  without_dtypes.erase("dtypes"); // the order the ops name them in
  EXPECT_EQ(SurfaceUniverseFromJson(without_dtypes).dtypes,
            (std::vector<std::string>{"int8", "float32"}));
  for (const auto &[where, key] :
       {std::pair{"", "torch_version"}, {"", "ops"}, {"ops", "vectorized"}, {"ops", "dtypes"}}) {
    json without = written;
    (std::string(where).empty() ? without : without["ops"][1]).erase(key);
    try {
      SurfaceUniverseFromJson(without);
      ADD_FAILURE() << "read without " << key;
    } catch (const FormatError &error) {
      EXPECT_NE(std::string(error.what()).find(key), std::string::npos) << error.what();
    }
  }
}

// The known-issues file is edited by people: it is written in its field list's order, an issue's
// `reduced` only where it has one, and reads back as it was.
TEST(RecordFields, TheKnownIssuesFileKeepsItsOrderAndReadsBack) {
  const support::ScratchDir scratch("corpus-test");
  KnownIssues known;
  known.issues.push_back({.id = "a",
                          .match = "crash|api=flex_attention|signal=memory",
                          .status = "reported",
                          .link = "https://github.com/pytorch/pytorch/issues/1",
                          .title = "t",
                          .reduced = "corpus/findings/reduced/a"});
  known.issues.push_back(
      {.id = "b", .match = "exception|type=x", .status = "unreported", .link = "", .title = "u"});
  WriteKnownIssues(scratch / "known.json", known);
  std::stringstream text;
  text << std::ifstream(scratch / "known.json").rdbuf();
  const std::string written = text.str();
  std::size_t at = 0;
  for (const char *key : {"format_version", "issues", "\"id\": \"a\"", "match", "status", "link",
                          "title", "reduced", "\"id\": \"b\""}) {
    const auto found = written.find(key, at);
    ASSERT_NE(found, std::string::npos) << key << " after " << at << " in " << written;
    at = found;
  }
  EXPECT_EQ(written.find("reduced", written.find("\"id\": \"b\"")), std::string::npos) << written;
  const KnownIssues read = ReadKnownIssues(scratch / "known.json");
  ASSERT_EQ(read.issues.size(), 2u);
  EXPECT_EQ(read.issues[0].reduced, "corpus/findings/reduced/a");
  EXPECT_EQ(read.issues[1].title, "u");
  EXPECT_EQ(read.issues[0].match, known.issues[0].match);
  // The project's own file, read and written again (as `replay` does), is the same text.
  const std::filesystem::path project = kSourceDir / "corpus/known-issues.json";
  WriteKnownIssues(scratch / "again.json", ReadKnownIssues(project));
  std::stringstream original, again;
  original << std::ifstream(project).rdbuf();
  again << std::ifstream(scratch / "again.json").rdbuf();
  EXPECT_EQ(again.str(), original.str());
}

} // namespace
} // namespace corpus
