// corpus/bug_key.h and corpus/bugs.h: the bug level above signatures. The pairs are fixtures
// (tests/fixtures/bug_keys/*.json, found by the driver): each names two findings, whether they
// are one bug or two, and whether one case showed them together.
#include "corpus/bug_key.h"
#include "corpus/bugs.h"
#include "corpus/finding_store.h"
#include "corpus/known_issues.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"

#include <gtest/gtest.h>

#include <fstream>

namespace corpus {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

Finding FromFixture(const json &entry) {
  Finding finding;
  finding.kind = *KindFromName(entry.at("kind").get<std::string>());
  for (const auto &fact : entry.at("essence"))
    finding.essence.Add(fact[0], FactValueFromJson(fact[1]));
  finding.message = entry.value("message", "");
  for (const auto &line : entry.value("source_lines", json::array()))
    finding.source_lines.push_back({line.at("file"), line.at("line").get<unsigned>(), ""});
  finding.detail = entry.value("detail", json::object()); // a probe's record, a crash's path
  return finding;
}

struct Pair {
  std::string name, why;
  bool one_bug = false, one_case = false;
  Finding a, b;
};

std::vector<Pair> Pairs() {
  std::vector<Pair> pairs;
  for (const auto &entry : fs::directory_iterator(kSourceDir / "tests/fixtures/bug_keys")) {
    if (entry.path().extension() != ".json")
      continue;
    const json document = json::parse(std::ifstream(entry.path()));
    pairs.push_back({.name = entry.path().stem().string(),
                     .why = document.at("why"),
                     .one_bug = document.at("expect") == "one bug",
                     .one_case = document.value("seen_in_one_case", false),
                     .a = FromFixture(document.at("findings")[0]),
                     .b = FromFixture(document.at("findings")[1])});
  }
  std::sort(pairs.begin(), pairs.end(),
            [](const Pair &x, const Pair &y) { return x.name < y.name; });
  return pairs;
}

// Each pair: one bug exactly when expected, by the key or by what one case showed. A pair that
// merges has two signatures (else it tests nothing); one that splits may share its signature
// (two heap corruptions that need two settings).
TEST(BugKey, EveryFixturePairIsOneBugOrTwoAsAnnotated) {
  const auto pairs = Pairs();
  std::size_t merging = 0, splitting = 0;
  for (const auto &pair : pairs) {
    SCOPED_TRACE(pair.name + ": " + pair.why);
    if (pair.one_bug)
      EXPECT_NE(Signature(pair.a), Signature(pair.b));
    const bool same_key = BugKey(pair.a) == BugKey(pair.b);
    const bool joined = pair.one_case && SameCauseInOneCase(pair.a, pair.b);
    EXPECT_EQ(same_key || joined, pair.one_bug)
        << "keys:\n  " << BugKey(pair.a) << "\n  " << BugKey(pair.b);
    // Keys never hold what names the program.
    for (const auto *finding : {&pair.a, &pair.b}) {
      EXPECT_EQ(BugKey(*finding).find("cpp_fused_"), std::string::npos) << BugKey(*finding);
      EXPECT_EQ(BugKey(*finding).find("int64_t*, int64_t*"), std::string::npos);
    }
    (pair.one_bug ? merging : splitting) += 1;
  }
  // Both directions are covered (a key that merges everything passes half of them).
  EXPECT_GE(merging, 5u);
  EXPECT_GE(splitting, 5u);
}

TEST(BugKey, NormalisersKeepTheRoleAndDropTheProgram) {
  EXPECT_EQ(KernelNameShape("cpp_fused__to_copy_arange_index_put_lt_new_zeros_<N>"), "<kernel>");
  EXPECT_EQ(KernelNameShape("call cpp_fused_add_mul_3(x)"), "call <kernel>(x)");
  EXPECT_EQ(KernelNameShape("cpp_fused_flex_attention_<N>_fill_stub"), "<kernel>_fill_stub");
  EXPECT_EQ(CollapseArgumentLists("(s<N>, zf<N>) can only be"), "(<symbols>) can only be");
  EXPECT_EQ(CollapseArgumentLists("field 'kernel(const bool*, int<N>_t*)'"), "field 'kernel(...)'");
  EXPECT_EQ(CollapseArgumentLists("got (<class 'torch.SymInt'>, <class 'torch.SymFloat'>)"),
            "got (<types>)");
  EXPECT_EQ(support::Demangle("_ZN2at10TensorBase14const_data_ptrIlLi0EEEPKT_v"),
            "long const* at::TensorBase::const_data_ptr<long, 0>()");
  EXPECT_EQ(support::Demangle("not_mangled"), "not_mangled");
  EXPECT_EQ(NameRole("tmp_acc<N>_vec"), "tmp_acc<N>");
  EXPECT_EQ(NameRole("tmp_acc3_arr"), "tmp_acc3");
  EXPECT_EQ(NameRole("tmp<N>_vec"), "tmp<N>_vec"); // only an accumulator has forms
  EXPECT_EQ(RedeclarationShape("redeclaration of 'int<N>_t tmp_acc<N>_arr [<N>]'"),
            "redeclaration of '<type> tmp_acc<N>'");
  EXPECT_EQ(
      RedeclarationShape(
          "conflicting declaration 'at::vec::CPU_CAPABILITY::VectorizedN<long int, <N>> tmp<N>'"),
      "conflicting declaration '<type> tmp<N>'");
  EXPECT_EQ(RedeclarationShape("no matching function for call to 'clamp_index(long int&)'"),
            "no matching function for call to 'clamp_index(long int&)'");
}

// The known soft-cap SymFloat bug is known with one more captured SymInt in the tuple: the
// project's known-issues.json names it by a signature or a key of the bug.
TEST(BugKey, TheProjectsKnownIssuesNameTheSoftCapBugWithAnyArgumentTuple) {
  const auto known = ReadKnownIssues(kSourceDir / "corpus/known-issues.json");
  for (const auto &pair : Pairs()) {
    if (pair.name != "merge_softcap_with_one_more_symint")
      continue;
    for (const auto *finding : {&pair.a, &pair.b}) {
      const auto *issue = known.Match(Signature(*finding));
      if (!issue)
        issue = known.Match(BugKey(*finding));
      ASSERT_NE(issue, nullptr) << Signature(*finding);
      EXPECT_EQ(issue->id, "flex-closure-float-symfloat-recompile");
    }
    return;
  }
  FAIL() << "the soft-cap fixture pair is missing";
}

// A crash its sanitizer rerun explains becomes the memory error's evidence, not a bug of its own;
// a crash the rerun finds nothing in stays.
TEST(Bugs, ACrashItsSanitizerRerunExplainsIsTheMemoryErrorsEvidence) {
  const auto pairs = Pairs();
  const auto memory = std::find_if(pairs.begin(), pairs.end(), [](const Pair &pair) {
    return pair.name == "merge_overflow_and_use_after_free_on_one_statement";
  });
  ASSERT_NE(memory, pairs.end());
  Finding crash{.kind = FindingKind::kCrash};
  crash.essence.Add("api", "flex_attention").Add("signal", "11").Add("abort", "");
  crash.summary = "worker died: signal 11";
  std::vector<Finding> findings = {crash};
  const json evidence = FoldExplainedCrash(findings, {memory->a});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kMemoryError);
  ASSERT_EQ(evidence.size(), 1u);
  EXPECT_EQ(evidence[0]["signature"], Signature(crash));
  EXPECT_EQ(evidence[0]["detector"], "worker");
  std::vector<Finding> unexplained = {crash};
  EXPECT_TRUE(FoldExplainedCrash(unexplained, {}).empty());
  EXPECT_EQ(unexplained, std::vector<Finding>{crash});
}

TEST(BugGrouper, GroupsDoNotDependOnTheOrderMembersAndJoinsArrive) {
  auto group = [](bool reversed) {
    BugGrouper grouper;
    std::vector<std::pair<std::string, std::string>> members = {
        {"a", "k1"}, {"b", "k2"}, {"c", "k1"}, {"d", "k3"}, {"e", "k4"}};
    if (reversed)
      std::reverse(members.begin(), members.end());
    for (const auto &[member, key] : members)
      grouper.Add(member, key);
    grouper.Join(reversed ? "d" : "b", reversed ? "b" : "d");
    grouper.Join("e", "unknown member"); // ignored
    std::set<std::vector<std::string>> groups;
    for (const auto &[root, members_of] : grouper.Groups())
      groups.insert(members_of);
    return groups;
  };
  const std::set<std::vector<std::string>> expected = {{"a", "c"}, {"b", "d"}, {"e"}};
  EXPECT_EQ(group(false), expected);
  EXPECT_EQ(group(true), expected);
}

Case Generated(std::uint64_t index) {
  Case c;
  c.name = fmt::format("s1-{}", index);
  c.mask_mod = MaskFunction{"mask", "def mask(b, h, q_idx, kv_idx):\n    return q_idx >= kv_idx\n"};
  c.create_block_mask.batch = 1;
  c.create_block_mask.heads = 1;
  c.create_block_mask.q_len = 128;
  c.create_block_mask.kv_len = 128;
  c.provenance = {{"seed", 1}, {"index", index}};
  return c;
}

// In a corpus: two kernels' conflicts are one bug by key; a compiler error joins the check
// finding its hit names; an unrelated finding stays its own bug; hits count cases once.
TEST(Bugs, AStoreGroupsItsSignaturesIntoBugs) {
  const support::ScratchDir scratch("bugs");
  FindingStore store(scratch.path());
  const auto pairs = Pairs();
  auto find = [&](const std::string &name) {
    return *std::find_if(pairs.begin(), pairs.end(),
                         [&](const Pair &pair) { return pair.name == name; });
  };
  const Pair kernels = find("merge_two_kernel_names");
  const Pair one_line = find("merge_compiler_and_check_on_one_line");
  const Pair roles = find("split_two_redeclared_roles");
  const Pair gcc_and_clang = find("merge_gcc_and_clang_errors_on_one_line");
  auto record = [&](const Finding &finding, std::uint64_t index,
                    std::vector<std::string> same = {}) {
    Hit hit = MakeHit(Generated(index), {{"torch_version", "2.15.0"}}, "2026-11-25T00:00:00Z");
    hit.same_bug_as = std::move(same);
    store.Record(finding, hit, [](const fs::path &) {});
  };
  record(kernels.a, 1);
  record(kernels.b, 2);
  record(one_line.a, 3, {StoredFindingId(one_line.b)});
  record(one_line.b, 3, {StoredFindingId(one_line.a)});
  record(roles.b, 4);
  // No same_bug_as (a corpus written before the join existed): judged again when grouped.
  record(gcc_and_clang.a, 5);
  record(gcc_and_clang.b, 5);
  const auto bugs = GroupIntoBugs(store.List());
  ASSERT_EQ(bugs.size(), 4u);
  std::map<std::size_t, std::size_t> by_size; // signatures -> hits
  for (const auto &bug : bugs)
    by_size[bug.members.size()] += bug.hit_ids.size();
  EXPECT_EQ(by_size[2], 4u); // kernels: 2 cases; compiler + check: 1; g++ + Clang: 1
  EXPECT_EQ(by_size[1], 1u);
  for (const auto &bug : bugs)
    if (bug.members.size() == 2 && bug.detectors.contains("worker"))
      EXPECT_EQ(bug.detectors, (std::set<std::string>{"check", "worker"}));
}

// Keys are never stored as truth: a corpus whose findings a build with older key rules grouped
// apart is grouped by the rules of the build that opens it, and says which rules those are.
TEST(Bugs, AStoredCorpusIsKeyedAgainWhenOpened) {
  const support::ScratchDir scratch("rekey");
  const auto pairs = Pairs();
  const Pair dtypes = *std::find_if(pairs.begin(), pairs.end(), [](const Pair &pair) {
    return pair.name == "merge_a_redeclared_accumulator_of_two_dtypes";
  });
  {
    FindingStore store(scratch.path());
    for (const auto *finding : {&dtypes.a, &dtypes.b})
      store.Record(*finding,
                   MakeHit(Generated(finding == &dtypes.a ? 1 : 2), {{"torch_version", "2.15.0"}},
                           "2026-11-25T00:00:00Z"),
                   [](const fs::path &) {});
  }
  const FindingStore reopened(scratch.path());
  const auto bugs = GroupIntoBugs(reopened.List());
  ASSERT_EQ(bugs.size(), 1u) << "version 1 keyed the two spelled types apart";
  EXPECT_EQ(bugs[0].members.size(), 2u);
  EXPECT_EQ(bugs[0].Summary()["key_version"], kBugKeyVersion);
  EXPECT_EQ(bugs[0].key,
            "compile-error|family=gcc|message=redeclaration of '<type> tmp_acc<N>'|option=");
}

// A corpus an earlier release wrote (tests/fixtures/corpus_80cc65d/README.md) opens: folders an
// older normaliser named are re-signed and merged, every hit and record kept, and a second open
// changes nothing.
TEST(CorpusMigration, AnOldCorpusOpensMigratesAndKeepsItsHits) {
  const support::ScratchDir scratch("migrate");
  const fs::path root = scratch.path() / "old";
  fs::copy(kSourceDir / "tests/fixtures/corpus_80cc65d", root, fs::copy_options::recursive);
  std::size_t hits_before = 0;
  for (const auto &entry : fs::recursive_directory_iterator(root / "findings"))
    hits_before += entry.path().parent_path().filename() == "hits";
  ASSERT_EQ(hits_before, 4u);
  ASSERT_FALSE(fs::exists(root / "corpus.json"));

  const FindingStore store(root);
  EXPECT_EQ(store.migration().from_signature_version, 1);
  EXPECT_EQ(store.migration().moved, 2u);
  EXPECT_EQ(store.migration().hits, hits_before);
  const auto findings = store.List();
  ASSERT_EQ(findings.size(), 2u);
  std::size_t hits_after = 0;
  for (const auto &finding : findings) {
    EXPECT_EQ(finding.id, StoredFindingId(finding.finding));
    hits_after += finding.HitCount();
    EXPECT_FALSE(finding.smallest.empty()) << finding.id;
    if (finding.finding.kind == FindingKind::kCrash) {
      EXPECT_EQ(finding.signature, "crash|api=create_block_mask|signal=memory|abort=memory error");
      EXPECT_EQ(finding.HitCount(), 3u);
      EXPECT_EQ(finding.smallest.filename(), "s1-i1"); // the record the old folder held
    }
  }
  EXPECT_EQ(hits_after, hits_before);
  EXPECT_TRUE(fs::exists(root / "corpus.json"));
  const FindingStore again(root);
  EXPECT_EQ(again.migration().from_signature_version, 0);
  EXPECT_EQ(again.List().size(), 2u);
  EXPECT_EQ(GroupIntoBugs(again.List()).size(), 2u);
}

TEST(CorpusMigration, ACorpusFromANewerVersionIsRefusedAndLeftAlone) {
  const support::ScratchDir scratch("newer");
  fs::create_directories(scratch.path() / "findings");
  std::ofstream(scratch.path() / "corpus.json")
      << R"({"format_version": 9, "signature_version": 99})";
  try {
    const FindingStore store(scratch.path());
    FAIL() << "a newer corpus was opened";
  } catch (const support::InputError &error) {
    EXPECT_NE(std::string(error.what()).find("newer inductor-fuzz"), std::string::npos)
        << error.what();
  }
}

// A key or signature taken apart by the facts its kind has: a bar inside a value stays there.
TEST(BugKey, KeysTakeApartIntoTheirKindsFacts) {
  const auto parsed = ParseKeyFacts(
      "wrong-result|api=flex_attention|fields=output|problems=off|how=zero|where=tail-rows|"
      "template=flex-decoding|wrapper=python|shapes=static|needs=dtype=16-bit,dynamic=true");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->kind, "wrong-result");
  ASSERT_EQ(parsed->facts.size(), 9u);
  EXPECT_EQ(parsed->facts[4], (std::pair<std::string, std::string>{"where", "tail-rows"}));
  EXPECT_EQ(parsed->facts[8].second, "dtype=16-bit,dynamic=true");
  const auto bar = ParseKeyFacts("compile-error|family=gcc|message=no match for 'operator|' "
                                 "(operand types)|option=");
  ASSERT_TRUE(bar);
  ASSERT_EQ(bar->facts.size(), 3u);
  EXPECT_EQ(bar->facts[1].second, "no match for 'operator|' (operand types)");
  const auto tables = ParseKeyFacts("wrong-result|api=create_block_mask|tables=counts|"
                                    "blocks=fewer|template=generic|needs=");
  ASSERT_TRUE(tables);
  EXPECT_EQ(tables->facts[1], (std::pair<std::string, std::string>{"tables", "counts"}));
  EXPECT_EQ(tables->facts[2], (std::pair<std::string, std::string>{"blocks", "fewer"}));
  const auto because = ParseKeyFacts(
      "analysis-error|check=unclassified-error|diagnostic=err_ovl_no_viable_function_in_call|"
      "origin=translation-unit|name=clamp_index|type=|previous_type=|because=note_ovl_candidate_"
      "arity");
  ASSERT_TRUE(because);
  EXPECT_EQ(because->facts.back().second, "note_ovl_candidate_arity");
  EXPECT_FALSE(ParseKeyFacts("no-such-kind|a=b"));
  EXPECT_FALSE(ParseKeyFacts("crash|colour=red"));
}

// What a probe found joins the key of a wrong result or a crash, and only when one ran; a
// crash's key also says which code the dying worker had built.
TEST(BugKey, AProbesNeedsAndADeathsCodePathJoinTheKey) {
  Finding wrong{.kind = FindingKind::kWrongResult};
  wrong.essence.Add("api", "flex_attention").Add("fields", "output");
  EXPECT_EQ(BugKey(wrong), Signature(wrong));
  wrong.detail["probe"] = {{"needs", {"dynamic=true", "dtype=16-bit"}}};
  EXPECT_EQ(BugKey(wrong), Signature(wrong) + "|needs=dtype=16-bit,dynamic=true");
  wrong.detail["probe"]["needs"] = json::array();
  EXPECT_EQ(BugKey(wrong), Signature(wrong) + "|needs=");

  Finding crash{.kind = FindingKind::kCrash};
  crash.essence.Add("api", "flex_attention")
      .Add("signal", "6")
      .Add("abort", "free(): invalid size");
  crash.detail["code_path"] = {
      {"template", "flex-prefill"}, {"wrapper", "cpp_wrapper"}, {"shapes", "static"}};
  crash.detail["probe"] = {{"needs", {"cpp.threads=1"}}};
  EXPECT_EQ(BugKey(crash), "crash|api=flex_attention|signal=memory|abort=memory error"
                           "|template=flex-prefill|needs=cpp.threads=1");
  // Unprobed, the key keeps the whole path: nothing says the wrapper does not matter.
  crash.detail.erase("probe");
  EXPECT_EQ(BugKey(crash), "crash|api=flex_attention|signal=memory|abort=memory error"
                           "|template=flex-prefill|wrapper=cpp_wrapper|shapes=static");
}

// A decode shape is wrong everywhere; its probe's rerun at a prefill shape says where. The run's
// facts say it; a run stored before its facts were kept says it in its signature.
TEST(BugKey, WhereADecodeShapeIsWrongComesFromItsPrefillRerunsFacts) {
  Finding wrong{.kind = FindingKind::kWrongResult};
  wrong.essence.Add("api", "flex_attention")
      .Add("fields", "output")
      .Add("problems", "values differ")
      .Add("how", "offset")
      .Add("where", "everywhere")
      .Add("template", "flex-decoding");
  const json rerun = {{"setting", "shape=decode"},
                      {"outcome", "fails-the-same"},
                      {"signature", "wrong-result|api=flex_attention|where=block-first-rows"},
                      {"facts", {{"api", "flex_attention"}, {"where", "block-first-rows"}}}};
  wrong.detail["probe"] = {{"needs", json::array()}, {"runs", {rerun}}};
  const std::string expected = "wrong-result|api=flex_attention|fields=output|problems=values "
                               "differ|how=offset|where=block-first-rows|template=flex-decoding|"
                               "needs=";
  EXPECT_EQ(BugKey(wrong), expected);
  json facts_only = rerun;
  facts_only["signature"] = "wrong-result|api=flex_attention";
  wrong.detail["probe"]["runs"] = {facts_only};
  EXPECT_EQ(BugKey(wrong), expected) << "the facts, not the signature, say where";
  json stored_before = rerun;
  stored_before.erase("facts");
  wrong.detail["probe"]["runs"] = {stored_before};
  EXPECT_EQ(BugKey(wrong), expected) << "an older record's signature still says where";
  stored_before["outcome"] = "passes";
  wrong.detail["probe"]["runs"] = {stored_before};
  EXPECT_NE(BugKey(wrong).find("|where=everywhere|"), std::string::npos);
}

KnownIssues KnownFrom(const std::string &match) {
  return KnownIssues{{KnownIssue{.id = "x", .match = match, .status = "unreported"}}};
}

// A match names facts; facts it leaves out may be anything, and each value is a pattern.
TEST(KnownIssues, AMatchNamesFactsAndLeavesTheRestFree) {
  const std::string key = "wrong-result|api=flex_attention|fields=output|problems=p|how=zero|"
                          "where=everywhere|template=flex-decoding|wrapper=python|shapes=static|"
                          "needs=";
  EXPECT_TRUE(KnownFrom("wrong-result|template=flex-decoding|how=zero").Match(key));
  EXPECT_TRUE(KnownFrom("wrong-result|template=flex-*|needs=").Match(key));
  EXPECT_FALSE(KnownFrom("wrong-result|template=flex-prefill|how=zero").Match(key));
  EXPECT_FALSE(KnownFrom("wrong-result|needs=dtype=16-bit").Match(key));
  EXPECT_FALSE(KnownFrom("crash|api=flex_attention").Match(key));
  // A whole signature is a match too.
  EXPECT_TRUE(KnownFrom(key).Match(key));
}

// A match that cannot be parsed, or names a fact its kind has not, is refused with the entry
// named; the file is not read at all.
TEST(KnownIssues, AMatchThatCannotBeParsedOrNamesAnUnknownFactIsRefused) {
  const support::ScratchDir scratch("known");
  const auto refused = [&](const std::string &match) -> std::string {
    const fs::path file = scratch.path() / "known.json";
    std::ofstream(file) << json{
        {"format_version", 1},
        {"issues",
         {{{"id", "mine"},
           {"match", match},
           {"status", "unreported"},
           {"link", ""},
           {"title", "t"}}}}}.dump();
    try {
      ReadKnownIssues(file);
    } catch (const FormatError &error) {
      return error.what();
    }
    return "";
  };
  for (const std::string bad : {"wrong-result|colour=red", "segfault|api=x",
                                "wrong-result api=flex_attention", "crash|signal"}) {
    const std::string error = refused(bad);
    EXPECT_NE(error.find("'mine'"), std::string::npos) << bad << ": " << error;
    EXPECT_NE(error.find("issues[0].match"), std::string::npos) << bad << ": " << error;
  }
  EXPECT_NE(refused("wrong-result|colour=red").find("'colour'"), std::string::npos);
  EXPECT_EQ(refused("wrong-result|how=zero"), "");
}

} // namespace
} // namespace corpus
