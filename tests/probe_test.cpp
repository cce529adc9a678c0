// fuzzer/campaign/probe.h: which settings of a case a probe puts back, in what order, and what
// it concludes from the reruns; fuzzer/worker/case_runner.h: the code path read from what
// Inductor built. The reruns here are answered by a table (the real worker's are in
// oracle_test's end-to-end probe).
#include "fuzzer/campaign/probe.h"
#include "fuzzer/worker/case_runner.h"

#include <gtest/gtest.h>

#include <map>

namespace fuzzer::campaign {
namespace {

using nlohmann::json;

corpus::Case Flex() {
  corpus::Case c;
  c.name = "probe";
  c.api = "flex_attention";
  c.mask_mod = corpus::MaskFunction{"m", "def m(b, h, q_idx, kv_idx):\n    return True\n"};
  c.attention = corpus::AttentionArguments{};
  return c;
}

std::vector<std::string> Names(const std::vector<ProbeSetting> &settings) {
  std::vector<std::string> names;
  for (const auto &setting : settings)
    names.push_back(setting.name);
  return names;
}

TEST(Probe, PutsBackEachNonDefaultSettingOnceMostTellingFirst) {
  corpus::Case c = Flex();
  EXPECT_EQ(Names(ProbeSettings(c)), (std::vector<std::string>{"shape=decode", "cpp.threads=1"}));
  // A call sequence that keeps one query row, or changes the dtype only, goes to prefill whole;
  // one that moves to a prefill shape itself has no decode shape to put back.
  c.calls = {corpus::CallChange{.dtype = "float32"}, corpus::CallChange{.q_len = 1}};
  const auto decode = ProbeSettings(c);
  ASSERT_EQ(decode.front().name, "shape=decode");
  EXPECT_EQ(decode.front().reverted.attention->q_len, 16);
  EXPECT_FALSE(decode.front().reverted.calls[0].q_len);
  EXPECT_EQ(decode.front().reverted.calls[1].q_len, 16);
  c.calls = {corpus::CallChange{.q_len = 32}};
  EXPECT_EQ(Names(ProbeSettings(c)), std::vector<std::string>{"cpp.threads=1"});
  c.calls.clear();
  c.attention->q_len = 64;
  c.attention->dtype = "bfloat16";
  c.inductor.dynamic = true;
  c.inductor.cpp_wrapper = true;
  c.inductor.cpp_threads = 8;
  c.inductor.cpp_simdlen = 256;
  c.inductor.freezing = true;
  c.inductor.optional["cpp.force_inline_kernel"] = true;
  c.attention->layout = "sliced";
  const auto settings = ProbeSettings(c);
  EXPECT_EQ(Names(settings),
            (std::vector<std::string>{"dtype=16-bit", "dynamic=true", "cpp_wrapper=true",
                                      "layout=sliced", "cpp.threads>1", "cpp.simdlen=256",
                                      "freezing=true", "cpp.force_inline_kernel=true"}));
  // Each reverted case differs from the case in that setting alone.
  EXPECT_EQ(settings[0].reverted.attention->dtype, "float32");
  EXPECT_FALSE(settings[1].reverted.inductor.dynamic);
  EXPECT_TRUE(settings[1].reverted.inductor.cpp_wrapper);
  EXPECT_FALSE(settings[2].reverted.inductor.cpp_wrapper);
  EXPECT_EQ(settings[3].reverted.attention->layout, corpus::kContiguousLayout);
  EXPECT_TRUE(settings[4].reverted.inductor.IsDefaulted("cpp.threads"));
  EXPECT_FALSE(settings[4].reverted.inductor.IsDefaulted("cpp.simdlen"));
  EXPECT_TRUE(settings[5].reverted.inductor.IsDefaulted("cpp.simdlen"));
  EXPECT_FALSE(settings[6].reverted.inductor.freezing);
  EXPECT_FALSE(settings[7].reverted.inductor.optional.contains("cpp.force_inline_kernel"));
  // A block mask rebuilt from its tensors, create_block_mask without separate full blocks, a
  // compiled function: each put back before the knobs, alone.
  c.attention->from_kv_blocks =
      corpus::FromKvBlocks{.partial = "strided", .full = "expanded-heads"};
  c.create_block_mask.separate_full_blocks = false;
  c.compile_scope = corpus::kCompileFunction;
  const auto built = ProbeSettings(c);
  const auto built_names = Names(built);
  ASSERT_GE(built_names.size(), 6u);
  EXPECT_EQ(std::vector<std::string>(built_names.begin() + 3, built_names.begin() + 6),
            (std::vector<std::string>{"block_mask=from_kv_blocks", "separate_full_blocks=false",
                                      "compile_scope=function"}));
  EXPECT_FALSE(built[3].reverted.attention->from_kv_blocks);
  EXPECT_FALSE(built[3].reverted.create_block_mask.separate_full_blocks);
  EXPECT_TRUE(built[4].reverted.create_block_mask.separate_full_blocks);
  EXPECT_TRUE(built[4].reverted.attention->from_kv_blocks);
  EXPECT_EQ(built[5].reverted.compile_scope, corpus::kCompileApi);
  // An exported module stays a module: AOTInductor compiles no bare API call of a function scope.
  c.compile_with = corpus::kAoti;
  c.compile_scope = corpus::kCompileModule;
  for (const auto &name : Names(ProbeSettings(c)))
    EXPECT_FALSE(name.starts_with("compile_scope=")) << name;
  c.compile_with = corpus::kTorchCompile;
  c.compile_scope = corpus::kCompileApi;
  c.attention->from_kv_blocks.reset();
  c.create_block_mask.separate_full_blocks = true;
  // A knob already left to Inductor is no setting of the case.
  c.inductor.defaulted.insert("cpp.threads");
  EXPECT_EQ(Names(ProbeSettings(c)).size(), settings.size() - 1);
}

worker::CaseOutcome Outcome(corpus::CaseStatus status,
                            corpus::FindingKind kind = corpus::FindingKind::kWrongResult) {
  worker::CaseOutcome outcome{.status = status};
  if (status == corpus::CaseStatus::kFinding) {
    outcome.finding = corpus::Finding{.kind = kind};
    outcome.finding->essence.Add("api", "flex_attention");
  }
  return outcome;
}

TEST(Probe, NeedsWhatTheCasePassesWithoutAndStopsAtItsBudget) {
  corpus::Case c = Flex();
  c.attention->q_len = 64;
  c.attention->dtype = "float16";
  c.inductor.dynamic = true;
  c.inductor.cpp_wrapper = true;
  const corpus::Finding finding{.kind = corpus::FindingKind::kWrongResult};
  // dtype: passes (needed); dynamic: fails the same; cpp_wrapper: crashes (says nothing);
  // cpp.threads: invalid (says nothing).
  const std::map<std::string, worker::CaseOutcome> answers = {
      {"probe-0", Outcome(corpus::CaseStatus::kPass)},
      {"probe-1", Outcome(corpus::CaseStatus::kFinding)},
      {"probe-2", Outcome(corpus::CaseStatus::kFinding, corpus::FindingKind::kCrash)},
      {"probe-3", Outcome(corpus::CaseStatus::kInvalidCase)}};
  std::vector<std::string> ran;
  const auto run = [&](const corpus::Case &, const std::string &label) {
    ran.push_back(label);
    return answers.at(label);
  };
  const json record = ProbeFinding(c, finding, run, {});
  EXPECT_EQ(record["needs"], json::array({"dtype=16-bit"}));
  EXPECT_TRUE(record["complete"].get<bool>());
  ASSERT_EQ(record["runs"].size(), 4u);
  EXPECT_EQ(record["runs"][0]["outcome"], "passes");
  EXPECT_EQ(record["runs"][1]["outcome"], "fails-the-same");
  EXPECT_EQ(record["runs"][2]["outcome"], "fails-otherwise");
  EXPECT_EQ(record["runs"][3]["outcome"], "invalid");
  corpus::Finding probed = finding;
  probed.detail["probe"] = record;
  EXPECT_EQ(ProbedNeeds(probed), std::vector<std::string>{"dtype=16-bit"});

  // A crash whose rerun computes a wrong result ran past it: the crash needs the setting. A wrong
  // result whose rerun crashes says nothing (the crash may hide it).
  // The wrong result the crash hid is handed back with the reverted case that shows it.
  const corpus::Finding crash{.kind = corpus::FindingKind::kCrash};
  std::vector<RevealedFailure> revealed;
  const auto crash_record = ProbeFinding(
      c, crash,
      [](const corpus::Case &, const std::string &label) {
        return label == "probe-1"
                   ? Outcome(corpus::CaseStatus::kFinding)
                   : Outcome(corpus::CaseStatus::kFinding, corpus::FindingKind::kCrash);
      },
      {}, &revealed);
  EXPECT_EQ(crash_record["needs"], json::array({"dynamic=true"}));
  EXPECT_EQ(crash_record["runs"][1]["outcome"], "ran-past-the-crash");
  ASSERT_EQ(revealed.size(), 1u);
  EXPECT_EQ(revealed[0].setting, "dynamic=true");
  EXPECT_EQ(revealed[0].label, "probe-1");
  EXPECT_FALSE(revealed[0].c.inductor.dynamic);
  EXPECT_TRUE(revealed[0].c.inductor.cpp_wrapper);
  ASSERT_TRUE(revealed[0].outcome.finding);
  EXPECT_EQ(revealed[0].outcome.finding->kind, corpus::FindingKind::kWrongResult);
  // A wrong result's reruns reveal nothing: a crash there may hide it, not the other way.
  revealed.clear();
  ProbeFinding(c, finding, run, {}, &revealed);
  EXPECT_TRUE(revealed.empty());

  ran.clear();
  const json capped = ProbeFinding(c, finding, run, {.max_runs = 2});
  EXPECT_EQ(ran, (std::vector<std::string>{"probe-0", "probe-1"}));
  EXPECT_FALSE(capped["complete"].get<bool>());
  EXPECT_EQ(capped["settings"].size(), 4u);
  ran.clear();
  const json none = ProbeFinding(c, finding, run, {.max_runs = 0});
  EXPECT_TRUE(ran.empty());
  EXPECT_EQ(none["needs"], json::array());
}

// A 16-bit, dynamic flex_attention case, and a failure of `kind` with one fact.
corpus::Case SixteenBitDynamic() {
  corpus::Case c = Flex();
  c.attention->dtype = "float16";
  c.inductor.dynamic = true;
  return c;
}

corpus::Finding FailureWith(corpus::FindingKind kind, const char *fact, const char *value) {
  corpus::Finding finding{.kind = kind};
  finding.essence.Add(fact, value);
  return finding;
}

TEST(Probe, ALaterFailureOfTheSameSignatureAndSettingsGetsTheEarlierProbe) {
  const corpus::Case c = SixteenBitDynamic();
  const corpus::Finding wrong = FailureWith(corpus::FindingKind::kWrongResult, "fields", "output");
  std::size_t reruns = 0;
  const CaseRerun rerun = [&](const corpus::Case &reverted, const std::filesystem::path &) {
    ++reruns; // passes as float32: the failure needs the 16-bit dtype
    return Outcome(reverted.attention->dtype == "float32" ? corpus::CaseStatus::kPass
                                                          : corpus::CaseStatus::kFinding);
  };
  ProbeMemo memo;
  std::vector<corpus::Finding> first = {wrong};
  const auto probed = ProbeCase(c, "/tmp/first", first, std::nullopt, {}, rerun, &memo);
  const std::size_t settings = ProbeSettings(c).size();
  ASSERT_GE(settings, 2u);
  EXPECT_EQ(probed.reruns, settings);
  EXPECT_EQ(reruns, settings);
  EXPECT_EQ(ProbedNeeds(first[0]), std::vector<std::string>{"dtype=16-bit"});

  // Another case, the same signature and settings to put back: the probe's record, no rerun.
  corpus::Case later = c;
  later.name = "later";
  std::vector<corpus::Finding> again = {wrong};
  EXPECT_EQ(ProbeCase(later, "/tmp/later", again, std::nullopt, {}, rerun, &memo).reruns, 0u);
  EXPECT_EQ(reruns, settings);
  EXPECT_EQ(ProbedNeeds(again[0]), std::vector<std::string>{"dtype=16-bit"});
  EXPECT_EQ(again[0].detail["probe"]["reused_from"], "probe");
  EXPECT_EQ(memo.Reused(), 1u);

  // Other settings to put back, or another signature: probed on its own.
  corpus::Case other = c;
  other.inductor.dynamic = false;
  std::vector<corpus::Finding> otherwise = {wrong};
  ProbeCase(other, "/tmp/other", otherwise, std::nullopt, {}, rerun, &memo);
  EXPECT_EQ(reruns, 2 * settings - 1);
  const corpus::Finding elsewhere = FailureWith(corpus::FindingKind::kWrongResult, "fields", "lse");
  std::vector<corpus::Finding> different = {elsewhere};
  ProbeCase(later, "/tmp/different", different, std::nullopt, {}, rerun, &memo);
  EXPECT_EQ(reruns, 3 * settings - 1);
  EXPECT_FALSE(different[0].detail["probe"].contains("reused_from"));
}

// A crash met again with other settings reruns only what the earlier probe did not show
// irrelevant: the settings it needed (so another bug behind the signature still shows) and the
// ones it did not try.
TEST(Probe, ACrashMetAgainRerunsOnlyWhatItsEarlierProbeDidNotShowIrrelevant) {
  const corpus::Case c = SixteenBitDynamic();
  const corpus::Finding crash = FailureWith(corpus::FindingKind::kCrash, "signal", "memory");
  std::vector<std::string> reverted;
  const CaseRerun rerun = [&](const corpus::Case &r, const std::filesystem::path &folder) {
    reverted.push_back(folder.filename().string());
    return r.inductor.dynamic ? Outcome(corpus::CaseStatus::kFinding, corpus::FindingKind::kCrash)
                              : Outcome(corpus::CaseStatus::kPass); // needs dynamic=true
  };
  ProbeMemo memo;
  std::vector<corpus::Finding> first = {crash};
  const auto settings = ProbeSettings(c).size();
  EXPECT_EQ(ProbeCase(c, "/tmp/first", first, std::nullopt, {}, rerun, &memo).reruns, settings);
  EXPECT_EQ(ProbedNeeds(first[0]), std::vector<std::string>{"dynamic=true"});

  // The same crash in a case that also has cpp_wrapper on: dynamic (needed before) and
  // cpp_wrapper (not tried) run again, the rest is not rerun.
  corpus::Case other = c;
  other.name = "other";
  other.inductor.cpp_wrapper = true;
  ASSERT_EQ(ProbeSettings(other).size(), settings + 1);
  reverted.clear();
  std::vector<corpus::Finding> again = {crash};
  const auto probed = ProbeCase(other, "/tmp/other", again, std::nullopt, {}, rerun, &memo);
  EXPECT_EQ(probed.reruns, 2u);
  EXPECT_EQ(probed.spared, settings - 1);
  EXPECT_EQ(reverted.size(), 2u);
  EXPECT_EQ(ProbedNeeds(again[0]), std::vector<std::string>{"dynamic=true"});
  std::size_t not_rerun = 0;
  for (const auto &run : again[0].detail["probe"]["runs"])
    if (run["status"] == "not-rerun") {
      ++not_rerun;
      EXPECT_EQ(run["outcome"], "fails-the-same");
      EXPECT_EQ(run["as_in"], "probe");
    }
  EXPECT_EQ(not_rerun, settings - 1);

  // Another bug behind the same signature, one that dynamic does not make: the rerun of what
  // the earlier probe needed shows it, and its key needs nothing.
  const CaseRerun always_crashes = [](const corpus::Case &, const std::filesystem::path &) {
    return Outcome(corpus::CaseStatus::kFinding, corpus::FindingKind::kCrash);
  };
  corpus::Case third = other;
  third.name = "third";
  third.inductor.cpp_wrapper = false;
  third.inductor.freezing = true;
  std::vector<corpus::Finding> elsewhere = {crash};
  ProbeCase(third, "/tmp/third", elsewhere, std::nullopt, {}, always_crashes, &memo);
  EXPECT_TRUE(ProbedNeeds(elsewhere[0]).empty());
}

json Built(const std::vector<std::string> &texts) {
  json sources = json::array();
  for (const auto &text : texts)
    sources.push_back({{"path", "/tmp/x.cpp"}, {"text", text}});
  return {{"builds", json::array({{{"argv", {"g++"}}, {"sources", sources}}})}};
}

TEST(CodePath, IsReadFromTheCodeInductorBuilt) {
  const corpus::Case c = Flex();
  const auto path = [&](const json &result) {
    const auto p = worker::CodePathOf(c, result);
    return p.template_kind + "," + p.wrapper + "," + p.shapes;
  };
  EXPECT_EQ(path(json::object()), "none,python,static");
  EXPECT_EQ(path(Built({"extern \"C\" void kernel(const float* in_ptr0, bool* out_ptr0)"})),
            "generic,python,static");
  EXPECT_EQ(path(Built({"int64_t qSplitSize = 32;", "void kernel(const int64_t ks0)"})),
            "flex-prefill,python,dynamic");
  EXPECT_EQ(path(Built({"qSplitSize; num_kvblocks_per_partition"})), "flex-decoding,python,static");
  EXPECT_EQ(path(Built({"void inductor_entry_impl(AtenTensorHandle* input_handles)"})),
            "generic,cpp_wrapper,static");
  EXPECT_EQ(path(Built({"class AOTInductorModel : public AOTInductorModelBase"})),
            "generic,aoti,static");
  corpus::Case aoti = c;
  aoti.compile_with = corpus::kAoti;
  EXPECT_EQ(worker::CodePathOf(aoti, json::object()).wrapper, "aoti");
}

// A reply of a kind no reader row names carries its facts: a new worker kind needs no C++. The
// kinds with rows read as before: a wrong result's lists from its mismatches.
TEST(WorkerReply, AKindWithoutAReaderIsReadFromItsOwnFacts) {
  const corpus::Case c = Flex();
  const json reply = {{"status", "finding"},
                      {"kind", "timeout"},
                      {"facts", json::array({json::array({"template", "flex-prefill"}),
                                             json::array({"where", json::array({"a", "b"})})})},
                      {"summary", "hung in the kernel"},
                      {"detail", {{"seconds", 3}}}};
  const auto finding = worker::FindingOfResult(c, reply);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->kind, corpus::FindingKind::kTimeout);
  EXPECT_EQ(corpus::Signature(*finding),
            "timeout|api=flex_attention|template=flex-prefill|where=a,b");
  EXPECT_TRUE(finding->essence.facts[2].second.IsList());
  EXPECT_EQ(finding->summary, "hung in the kernel");
  EXPECT_EQ(finding->detail["seconds"], 3);
  json bad = reply;
  bad["facts"][0][1] = 3;
  EXPECT_THROW(worker::FindingOfResult(c, bad), corpus::FormatError);

  const json wrong = {
      {"status", "finding"},
      {"kind", "wrong-result"},
      {"mismatches",
       {{{"field", "output"}, {"problem", "values differ"}, {"where", "everywhere"}},
        {{"field", "lse"}, {"problem", "values differ"}, {"how", "nan"}}}}};
  const auto read = worker::FindingOfResult(c, wrong);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->essence.facts[1].first, "fields");
  EXPECT_EQ(read->essence.facts[1].second, corpus::FactValue::List({"lse", "output"}));
  EXPECT_FALSE(worker::FindingOfResult(c, {{"status", "pass"}}).has_value());
}

} // namespace
} // namespace fuzzer::campaign
