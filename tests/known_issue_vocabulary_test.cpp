// A known issue's match names only what exists (issue 83, bad input): a `first` of an
// operation no tensor program has, or a `needs` of a probe that does not exist, is refused with
// the issue and the field named. The two vocabularies (corpus/known_issues.h) are kept in step
// with what they name: the operations first_wrong.py names in generated programs, and the
// settings the probes put back. No torch: first_wrong.py's statement reader is plain Python.
#include "binary_runner.h"
#include "corpus/field_reader.h"
#include "corpus/knobs.h"
#include "corpus/known_issues.h"
#include "fuzzer/campaign/probe.h"
#include "fuzzer/generate/generator.h"
#include "support/child_process.h"
#include "support/scratch_dir.h"

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

// What ValidateKnownIssueMatch says of a match: "" when it takes it.
std::string Refusal(const std::string &match) {
  try {
    corpus::ValidateKnownIssueMatch(match);
    return "";
  } catch (const corpus::FormatError &error) {
    return error.what();
  }
}

TEST(KnownIssueVocabulary, AFirstNamingNoOperationIsRefused) {
  const std::string kind = "wrong-result|api=tensor_program|";
  EXPECT_EQ(Refusal(kind + "first=amax(int8)->int8"), "");
  EXPECT_EQ(Refusal(kind + "first=am*(*int8)->*int8"), "") << "am* matches amax and amin";
  EXPECT_EQ(Refusal(kind + "first=max(*int8)->*int8"), "");
  EXPECT_EQ(Refusal(kind + "first=*(uint8)->int64"), "");
  EXPECT_EQ(Refusal(kind + "first=*int8*"), "") << "no operation said";
  EXPECT_EQ(Refusal(kind + "first=index_put_(float32,int64,float32)->float32|needs="), "");
  const std::string unknown = Refusal(kind + "first=amx(int8)->int8");
  EXPECT_NE(unknown.find("first=amx(int8)->int8, whose operation 'amx' no tensor program has"),
            std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("amax, amin"), std::string::npos) << "it lists the operations";
  EXPECT_NE(Refusal(kind + "first=foo*(int8)->int8").find("'foo*'"), std::string::npos);
  EXPECT_NE(Refusal(kind + "first=foo").find("'foo'"), std::string::npos);
}

TEST(KnownIssueVocabulary, ANeedsNamingNoProbeIsRefused) {
  const std::string kind = "crash|api=flex_attention|";
  for (const std::string needs :
       {"needs=", "needs=cpp.threads=1", "needs=block_mask=from_kv_blocks",
        "needs=cpp.threads>1,dtype=16-bit", "needs=*dynamic=true*", "needs=*", "needs=layout=*"})
    EXPECT_EQ(Refusal(kind + needs), "") << needs;
  const std::string unknown = Refusal(kind + "needs=dtype=16-bit,colour=red");
  EXPECT_NE(unknown.find("needs=dtype=16-bit,colour=red, whose probe 'colour' does not exist"),
            std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("cpp.threads"), std::string::npos) << "it lists the probes";
  EXPECT_NE(Refusal(kind + "needs=vec*=off").find("'vec*'"), std::string::npos);
}

// The file is refused naming the issue and the field, and reading it changes nothing in it.
TEST(KnownIssueVocabulary, AFileWithSuchAMatchIsRefusedNamingTheIssueAndTheField) {
  const support::ScratchDir scratch("known-vocabulary");
  const fs::path file = scratch / "known.json";
  const std::string text = R"({"format_version": 1, "issues": [{"id": "int8-lanes",
    "match": "wrong-result|api=tensor_program|first=amx(int8)->int8", "status": "unreported",
    "link": "", "title": "t"}]})";
  std::ofstream(file, std::ios::binary) << text;
  try {
    corpus::ReadKnownIssues(file);
    ADD_FAILURE() << "read";
  } catch (const corpus::FormatError &error) {
    EXPECT_NE(std::string(error.what()).find("'issues[0].match' of 'int8-lanes' has first="),
              std::string::npos)
        << error.what();
  }
  std::stringstream after;
  after << std::ifstream(file, std::ios::binary).rdbuf();
  EXPECT_EQ(after.str(), text);
  // The project's own file names only what exists.
  EXPECT_NO_THROW(corpus::ReadKnownIssues(kSourceDir / "corpus/known-issues.json"));
}

// A command that reads the file (run-case, fuzz) stops before it runs anything: one line on
// stderr naming the issue and the field, exit 2, nothing written, the file as it was.
TEST(KnownIssueVocabulary, ACommandGivenSuchAFileSaysSoInOneLineAndKeepsIt) {
  const support::ScratchDir scratch("known-vocabulary-cli");
  const fs::path known = scratch / "known.json", out = scratch / "out", corpus = scratch / "corpus";
  const fs::path seed = kSourceDir / "corpus/seeds/causal-151290.json";
  for (const std::string fact : {"first=amx(int8)->int8", "needs=colour=red"}) {
    SCOPED_TRACE(fact);
    const std::string text = R"({"format_version": 1, "issues": [{"id": "mine", "match": )"
                             R"("wrong-result|api=tensor_program|)" +
                             fact + R"(", "status": "unreported", "link": "", "title": "t"}]})";
    std::ofstream(known, std::ios::binary) << text;
    const std::string named = fact.starts_with("first") ? "operation 'amx' no tensor program has"
                                                        : "probe 'colour' does not exist";
    for (const auto &arguments : std::vector<std::vector<std::string>>{
             {"run-case", seed.string(), "--out", out.string(), "--known-issues", known.string()},
             {"fuzz", "--cases", "1", "--corpus", corpus.string(), "--known-issues",
              known.string()}}) {
      const auto run = test_support::RunInductorFuzz(arguments);
      EXPECT_EQ(run.exit_code, 2) << arguments[0] << ": " << run.out << run.err;
      EXPECT_NE(run.err.find("'issues[0].match' of 'mine' has " + fact + ", whose " + named),
                std::string::npos)
          << run.err;
      EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    }
    EXPECT_FALSE(fs::exists(out) || fs::exists(corpus));
    std::stringstream after;
    after << std::ifstream(known, std::ios::binary).rdbuf();
    EXPECT_EQ(after.str(), text);
  }
}

// Every operation first_wrong.py names in 1,000 generated tensor programs is one of
// ProgramOperations, and every one of those (but max and min, written by hand) is an operation
// the generator's sources or first_wrong.py's operators name.
TEST(KnownIssueVocabulary, TheOperationsAreThoseOfGeneratedPrograms) {
  const auto policy = generate::LoadPolicyFile(kSourceDir / "bench/policies/programs.json");
  const support::ScratchDir scratch("known-operations");
  {
    std::ofstream programs(scratch / "programs.jsonl");
    for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
      const auto generated = generate::GenerateCase({seed, 0, ""}, policy);
      ASSERT_TRUE(generated.c.mask_mod);
      programs << json{{"name", generated.c.mask_mod->name},
                       {"source", generated.c.mask_mod->source}}
                      .dump()
               << "\n";
    }
  }
  const std::string script = R"(import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("first_wrong", sys.argv[1])
first_wrong = importlib.util.module_from_spec(spec)
spec.loader.exec_module(first_wrong)
names = set()
for line in open(sys.argv[2]):
    program = json.loads(line)
    _, statements = first_wrong.program_statements(program["source"], program["name"])
    names.update(statement.operation for statement in statements)
print(" ".join(sorted(names)))
print("OPERATORS " + " ".join(sorted(first_wrong._OPERATORS.values())))
)";
  const fs::path venv_python = kSourceDir / ".venv/bin/python";
  const auto run = support::RunCommand(
      {fs::exists(venv_python) ? venv_python.string() : "python3", "-c", script,
       (kSourceDir / "fuzzer/worker/python/inductor_fuzz_worker/first_wrong.py").string(),
       (scratch / "programs.jsonl").string()},
      {}, std::chrono::seconds(120));
  ASSERT_EQ(run.status.exit_code.value_or(-1), 0) << run.output;
  std::istringstream lines(run.output);
  std::string reached_line, operators_line;
  std::getline(lines, reached_line);
  std::getline(lines, operators_line);
  const auto &operations = corpus::ProgramOperations();
  std::set<std::string> reached;
  std::istringstream words(reached_line);
  for (std::string word; words >> word;) {
    reached.insert(word);
    EXPECT_TRUE(std::binary_search(operations.begin(), operations.end(), word))
        << "a program's statement ends in " << word
        << ", which corpus::ProgramOperations lacks: add it";
  }
  EXPECT_GT(reached.size(), 90u);
  std::string named = operators_line;
  for (const auto &entry : fs::directory_iterator(kSourceDir / "fuzzer/generate"))
    if (entry.path().filename().string().starts_with("tensor_program")) {
      std::stringstream text;
      text << std::ifstream(entry.path()).rdbuf();
      named += text.str();
    }
  for (const auto &operation : operations) {
    if (operation == "max" || operation == "min" || reached.contains(operation))
      continue;
    const std::string bare = operation.ends_with('_') && operation != "_"
                                 ? operation.substr(0, operation.size() - 1)
                                 : operation;
    EXPECT_NE(named.find(bare), std::string::npos)
        << operation << " is in corpus::ProgramOperations, and no program has it";
  }
}

// Every setting the probes put back, in generated cases and in one that sets every knob, is
// named by ProbeNames.
TEST(KnownIssueVocabulary, TheProbesAreThoseTheCampaignRuns) {
  const auto &probes = corpus::ProbeNames();
  auto check = [&](const corpus::Case &c) {
    for (const auto &setting : campaign::ProbeSettings(c)) {
      const std::string probe = setting.name.substr(0, setting.name.find_first_of("=>"));
      EXPECT_TRUE(std::binary_search(probes.begin(), probes.end(), probe))
          << "the probe " << setting.name << " is not in corpus::ProbeNames: add " << probe;
    }
  };
  const auto policy = generate::GenerationPolicy::Default();
  for (std::uint64_t seed = 1; seed <= 300; ++seed)
    check(generate::GenerateCase({seed, 0, ""}, policy).c);
  corpus::Case c;
  c.api = "flex_attention";
  c.mask_mod = corpus::MaskFunction{"m", "def m(b, h, q_idx, kv_idx):\n    return True\n"};
  c.attention = corpus::AttentionArguments{};
  c.attention->q_len = 1;
  c.attention->dtype = "bfloat16";
  c.attention->layout = "sliced";
  c.attention->from_kv_blocks = corpus::FromKvBlocks{.partial = "strided", .full = "strided"};
  c.create_block_mask.separate_full_blocks = false;
  c.compile_scope = corpus::kCompileFunction;
  for (const auto &knob : corpus::InductorKnobTable()) {
    const std::string name(knob.name);
    if (knob.optional && !knob.policy_weights.empty())
      c.inductor.optional[name] = corpus::OptionalKnobValue(knob, knob.policy_weights[0].first);
    else if (knob.flag)
      c.inductor.*knob.flag = !(c.inductor.*knob.flag);
    else if (knob.number)
      c.inductor.*knob.number = 2;
    else if (knob.optional_number)
      c.inductor.*knob.optional_number = 256;
    c.inductor.defaulted.erase(name);
  }
  EXPECT_GT(campaign::ProbeSettings(c).size(), 10u);
  check(c);
}

} // namespace
} // namespace fuzzer
