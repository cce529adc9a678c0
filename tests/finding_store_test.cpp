// corpus::FindingStore: one folder per signature, hits as files, the smallest case kept,
// merge, and a corpus that survives concurrent writers and SIGKILL.
#include "corpus/bug_key.h"
#include "corpus/finding_store.h"
#include "corpus/known_issues.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <map>
#include <set>

#include <sys/wait.h>
#include <unistd.h>

namespace corpus {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

Finding Crash(const std::string &abort) {
  Finding finding{.kind = FindingKind::kCrash};
  finding.essence.Add("api", "flex_attention").Add("signal", "6").Add("abort", abort);
  finding.summary = "worker died: " + abort;
  return finding;
}

Case Generated(std::uint64_t seed, std::uint64_t index, std::size_t padding = 0) {
  Case c;
  c.name = fmt::format("s{}-{}", seed, index);
  c.mask_mod = MaskFunction{"mask", "def mask(b, h, q_idx, kv_idx):\n    return q_idx >= kv_idx" +
                                        std::string(padding, ' ') + "\n"};
  c.create_block_mask.batch = 1;
  c.create_block_mask.heads = 1;
  c.create_block_mask.q_len = 128;
  c.create_block_mask.kv_len = 128;
  c.provenance = {{"seed", seed}, {"index", index}};
  return c;
}

RecordWriter WriteCase(const Case &c) {
  return [c](const fs::path &dir) {
    support::WriteFileAtomically(dir / "case.json", CaseToJson(c).dump(2));
    support::WriteFileAtomically(dir / "repro.py", "# repro of " + c.name + "\n");
  };
}

StoreOutcome RecordCase(FindingStore &store, const Finding &finding, const Case &c,
                        const std::string &time = "2026-11-22T00:00:00Z") {
  return store.Record(finding, MakeHit(c, {{"torch_version", "2.15.0"}}, time), WriteCase(c));
}

std::map<std::string, std::size_t> HitCounts(const FindingStore &store) {
  std::map<std::string, std::size_t> counts;
  for (const auto &finding : store.List())
    counts[finding.signature] = finding.HitCount();
  return counts;
}

class FindingStoreTest : public ::testing::Test {
protected:
  support::ScratchDir scratch_{"store-test"};
};

TEST_F(FindingStoreTest, OneFolderPerSignatureCountingHitsAndKeepingTheSmallestCase) {
  FindingStore store(scratch_ / "corpus");
  const Finding heap = Crash("corrupted size vs. prev_size");
  EXPECT_EQ(RecordCase(store, heap, Generated(1, 13, 40), "2026-11-22T01:00:00Z"),
            StoreOutcome::kNew);
  // Another address in the message: the same signature, a known finding.
  Finding again = Crash("corrupted size vs. prev_size");
  again.message = "at 0x7f00deadbeef";
  EXPECT_EQ(RecordCase(store, again, Generated(1, 24), "2026-11-22T02:00:00Z"),
            StoreOutcome::kKnown);
  EXPECT_EQ(RecordCase(store, again, Generated(1, 24), "2026-11-22T02:00:00Z"),
            StoreOutcome::kKnown)
      << "the same case twice is one hit";
  EXPECT_EQ(RecordCase(store, Crash("Segmentation fault"), Generated(1, 19)), StoreOutcome::kNew);

  const auto findings = store.List();
  ASSERT_EQ(findings.size(), 2u);
  const auto &corrupted = findings[0].finding.essence == heap.essence ? findings[0] : findings[1];
  EXPECT_EQ(corrupted.HitCount(), 2u);
  EXPECT_EQ(corrupted.FirstSeen(), "2026-11-22T01:00:00Z");
  EXPECT_EQ(corrupted.LastSeen(), "2026-11-22T02:00:00Z");
  EXPECT_EQ(corrupted.Seeds(), std::vector<std::uint64_t>{1});
  EXPECT_EQ(corrupted.smallest.filename(), "s1-i24") << "index 24's case is the smaller";
  EXPECT_EQ(LoadCaseFile(corrupted.smallest / "case.json").name, "s1-24");
  EXPECT_FALSE(fs::exists(corrupted.folder / "records" / "s1-i13")) << "the larger one is gone";
  EXPECT_TRUE(corrupted.id.starts_with("crash-"));
  EXPECT_EQ(corrupted.Summary()["hit_count"], 2);
  EXPECT_EQ(corrupted.Summary()["torch_versions"], json::array({"2.15.0"}));
  EXPECT_EQ(store.Load(corrupted.id.substr(0, 12)).id, corrupted.id);
  EXPECT_THROW(store.Load("crash-"), support::InputError) << "ambiguous";
  EXPECT_THROW(store.Load("../../etc"), support::InputError) << "outside the corpus";
}

// A record that cannot be written (the disk full mid-way): a new finding is not stored at all,
// a known one keeps its hits and records as they were, and nothing is left in the staging
// folder. The hit that would name the missing record is never written.
TEST_F(FindingStoreTest, ARecordThatCannotBeWrittenLeavesNothingHalfStored) {
  FindingStore store(scratch_ / "corpus");
  const auto full = [](const fs::path &dir) {
    support::WriteFileAtomically(dir / "case.json", "{");
    throw fs::filesystem_error("cannot write", dir,
                               std::make_error_code(std::errc::no_space_on_device));
  };
  const Finding crash = Crash("Segmentation fault");
  const Case first = Generated(1, 5, 40);
  EXPECT_THROW(store.Record(crash, MakeHit(first, {}, "2026-11-22T00:00:00Z"), full),
               fs::filesystem_error);
  EXPECT_TRUE(store.List().empty());

  ASSERT_EQ(RecordCase(store, crash, first), StoreOutcome::kNew);
  const Case smaller = Generated(1, 6);
  EXPECT_THROW(store.Record(crash, MakeHit(smaller, {}, "2026-11-22T01:00:00Z"), full),
               fs::filesystem_error);
  const auto stored = store.List();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].HitCount(), 1u) << "no hit without its record";
  EXPECT_EQ(stored[0].smallest.filename(), "s1-i5");
  EXPECT_EQ(LoadCaseFile(stored[0].smallest / "case.json").name, "s1-5");
  std::error_code error;
  EXPECT_TRUE(fs::is_empty(scratch_ / "corpus" / ".staging", error) || error);
}

// corpus.json names the signature version the folders were written by: what this build writes
// it reads back (no migration), and a damaged one is refused by name, the folders untouched.
TEST_F(FindingStoreTest, TheCorpusMetadataReadsBackAndADamagedOneIsRefusedByName) {
  {
    FindingStore store(scratch_ / "corpus");
    ASSERT_EQ(RecordCase(store, Crash("Segmentation fault"), Generated(1, 5)), StoreOutcome::kNew);
  }
  const auto metadata = scratch_ / "corpus" / "corpus.json";
  const std::string written = support::ReadTextFile(metadata, "corpus.json", 1 << 16);
  EXPECT_EQ(nlohmann::json::parse(written)["signature_version"], kSignatureVersion);
  EXPECT_EQ(FindingStore(scratch_ / "corpus").migration().from_signature_version, 0);
  for (const char *damaged : {"[1]", R"({"signature_version": "x"})"}) {
    support::WriteFileAtomically(metadata, damaged);
    try {
      FindingStore store(scratch_ / "corpus");
      ADD_FAILURE() << "opened with corpus.json " << damaged;
    } catch (const support::InputError &error) {
      EXPECT_NE(std::string(error.what()).find("the corpus is damaged"), std::string::npos)
          << error.what();
    }
  }
  support::WriteFileAtomically(metadata, written);
  EXPECT_EQ(FindingStore(scratch_ / "corpus").List().size(), 1u);
}

TEST_F(FindingStoreTest, ShardsMergedEqualOneRunOverTheSameCases) {
  const std::vector<Finding> kinds = {Crash("a"), Crash("b"), Crash("c")};
  FindingStore whole(scratch_ / "whole");
  std::vector<std::unique_ptr<FindingStore>> shards;
  for (int shard = 0; shard < 3; ++shard)
    shards.push_back(std::make_unique<FindingStore>(scratch_ / fmt::format("shard{}", shard)));
  for (std::uint64_t index = 0; index < 30; ++index) {
    const Finding &finding = kinds[(index * 7) % 5 % 3];
    const Case c = Generated(5, index, index % 4);
    RecordCase(whole, finding, c);
    RecordCase(*shards[index % 3], finding, c);
  }
  FindingStore merged(scratch_ / "merged");
  std::size_t added = 0;
  for (int shard = 0; shard < 3; ++shard)
    added += merged.MergeFrom(scratch_ / fmt::format("shard{}", shard));
  EXPECT_EQ(added, 30u);
  EXPECT_EQ(HitCounts(merged), HitCounts(whole));
  EXPECT_EQ(merged.MergeFrom(scratch_ / "shard1"), 0u) << "merging again adds nothing";
  EXPECT_EQ(HitCounts(merged), HitCounts(whole));
  const auto merged_findings = merged.List(), whole_findings = whole.List();
  for (std::size_t i = 0; i < whole_findings.size(); ++i)
    EXPECT_EQ(merged_findings[i].smallest.filename(), whole_findings[i].smallest.filename());
  EXPECT_THROW(merged.MergeFrom(scratch_ / "nowhere"), support::InputError);
}

// Four processes record into one corpus at once; every hit lands, none is half-written.
TEST_F(FindingStoreTest, ConcurrentWritersLoseNothing) {
  const fs::path root = scratch_ / "shared";
  std::vector<pid_t> children;
  for (int writer = 0; writer < 4; ++writer) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      FindingStore store(root);
      for (std::uint64_t index = 0; index < 25; ++index)
        RecordCase(store, Crash(index % 2 ? "odd" : "even"), Generated(writer, index));
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const FindingStore store(root);
  std::size_t hits = 0;
  for (const auto &finding : store.List()) {
    hits += finding.HitCount();
    EXPECT_FALSE(finding.smallest.empty()) << finding.id;
  }
  EXPECT_EQ(store.List().size(), 2u);
  EXPECT_EQ(hits, 100u);
}

// The writer is killed with SIGKILL at twenty moments; the corpus loads each time and holds
// every hit the writer had reported as stored.
TEST_F(FindingStoreTest, SigkillDuringWritesLosesNoReportedHit) {
  const fs::path root = scratch_ / "killed";
  std::set<std::string> reported;
  for (int round = 0; round < 20; ++round) {
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(pipe_fds[0]);
      FindingStore store(root);
      for (std::uint64_t index = 0;; ++index) {
        const Case c = Generated(100 + round, index, index % 7);
        RecordCase(store, Crash(fmt::format("abort {}", index % 3 ? "x" : "y")), c);
        const std::string line = HitId(c) + "\n";
        if (::write(pipe_fds[1], line.data(), line.size()) < 0)
          ::_exit(1);
      }
    }
    ::close(pipe_fds[1]);
    ::usleep(20000 + 7919 * round % 60000);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
      text.append(buffer, static_cast<std::size_t>(n));
    ::close(pipe_fds[0]);
    for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos;
         start = end + 1)
      reported.insert(text.substr(start, end - start));

    const FindingStore store(root);
    std::set<std::string> stored;
    ASSERT_NO_THROW(for (const auto &finding : store.List()) for (const auto &hit : finding.hits)
                        stored.insert(hit.id))
        << "round " << round;
    for (const auto &id : reported)
      ASSERT_TRUE(stored.contains(id)) << id << " was reported stored, round " << round;
  }
  EXPECT_GT(reported.size(), 20u);
}

const fs::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

// The signatures below are what run-case printed for corpus/findings on torch 2.15.0.
TEST(KnownIssues, TheCheckedInListMatchesTheRealFailuresAndNothingElse) {
  const auto known = ReadKnownIssues(kSourceDir / "corpus/known-issues.json");
  ASSERT_GE(known.issues.size(), 3u);
  const KnownIssue *simdlen = known.Match(
      "exception|type=builtins.AssertionError|message=trans_b requires AVX512 or AVX2 vec ISA, "
      "got <class 'torch._inductor.cpu_vec_isa.InvalidVecISA'>|frame=_inductor/codegen/"
      "cpp_micro_gemm.py:__init__");
  ASSERT_NE(simdlen, nullptr);
  EXPECT_EQ(simdlen->status, "unreported") << "reduced, and not found upstream";
  // Each heap corruption glibc reported in the 308-case campaign of 2026-11-22 is known, as the
  // campaign keys it: in the flex template, gone when cpp.threads=1 is put back.
  const auto probed = [](Finding crash) {
    crash.detail["code_path"] = {
        {"template", "flex-prefill"}, {"wrapper", "python"}, {"shapes", "static"}};
    crash.detail["probe"] = {{"needs", {"cpp.threads=1"}}};
    return BugKey(crash);
  };
  for (const char *abort :
       {"free(): corrupted unsorted chunks", "corrupted double-linked list",
        "malloc(): unaligned tcache chunk detected", "munmap_chunk(): invalid pointer",
        "Fatal glibc error: malloc assertion failure in _int_malloc: chunk_main_arena (bck->bk)",
        "double free or corruption (!prev)", "free(): invalid next size (normal)"})
    EXPECT_NE(known.Match(probed(Crash(abort))), nullptr) << abort;
  // A heap corruption by another cause is not "the known one": by its signature alone, or with
  // other needs.
  EXPECT_EQ(known.Match(Signature(Crash("free(): invalid size"))), nullptr);
  Finding other = Crash("free(): invalid size");
  other.detail["probe"] = {{"needs", {"dtype=16-bit"}}};
  EXPECT_EQ(known.Match(BugKey(other)), nullptr);
  const KnownIssue *bool_score =
      known.Match("compile-error|family=gcc|message=cannot convert 'accum_t*' {aka 'float*'} to "
                  "'bool*'|option=");
  ASSERT_NE(bool_score, nullptr);
  EXPECT_EQ(bool_score->id, "flex-cpu-bool-score-mod");
  const KnownIssue *soft_cap = known.Match(
      "exception|type=builtins.AssertionError|message=(zf<N>,) can only be of (<class "
      "'torch.Tensor'>, <class 'int'>, <class 'torch.SymInt'>) but got (<class "
      "'torch.SymFloat'>,)|frame=_higher_order_ops/utils.py:validate_subgraph_args_types");
  ASSERT_NE(soft_cap, nullptr);
  EXPECT_EQ(soft_cap->id, "flex-closure-float-symfloat-recompile");
  // What the generator's call sequences reach: two closure floats and a captured table.
  const KnownIssue *generated =
      known.Match("exception|type=builtins.AssertionError|message=(zf<N>, zf<N>, FakeTensor(...)) "
                  "can only be of "
                  "(<class 'torch.Tensor'>, <class 'int'>, <class 'torch.SymInt'>) but got (<class "
                  "'torch.SymFloat'>, <class 'torch.SymFloat'>, <class "
                  "'torch._subclasses.fake_tensor.FakeTensor'>)|frame=_higher_order_ops/utils.py:"
                  "validate_subgraph_args_types");
  ASSERT_NE(generated, nullptr);
  EXPECT_EQ(generated->id, "flex-closure-float-symfloat-recompile");
  const std::string heap = probed(Crash("corrupted size vs. prev_size"));
  ASSERT_NE(known.Match(heap), nullptr) << heap;
  EXPECT_EQ(known.Match(heap)->id, "flex-cpu-threads-scratch-overflow");
  // What run-case --sanitize address reports for the three heap-corruption cases.
  const KnownIssue *sanitized =
      known.Match("memory-error|error=out-of-bounds-access|access=WRITE|kernel=kernel_fill_stub<"
                  "float>|statement=data_vec.store(data + d);");
  ASSERT_NE(sanitized, nullptr);
  EXPECT_EQ(sanitized->id, "flex-cpu-threads-scratch-overflow-sanitized");
  // The same stray write, landing in a chunk ASan holds in quarantine (fuzz --seed 1, index 24).
  EXPECT_EQ(known.Match("memory-error|error=heap-use-after-free|access=WRITE|kernel=kernel_fill_"
                        "stub<float>|statement=data_vec.store(data + d);"),
            sanitized);
  const KnownIssue *gemm = known.Match(
      "memory-error|error=out-of-bounds-access|access=WRITE|kernel=cpp_fused_flex_attention_<N>_"
      "kernel_micro_gemm_transpose_b_transpose_b_kernel<<N>l, <N>l, false, false>|statement=*(C + "
      "(sM * m + s) * ldc + sN * n + i) = v;");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->id, "flex-cpu-threads-scratch-overflow-sanitized-wrapper");
  const KnownIssue *fill =
      known.Match("memory-error|error=out-of-bounds-access|access=WRITE|kernel=cpp_fused_flex_"
                  "attention_<N>_fill_stub<float>|statement=data_vec.store(data + d);");
  ASSERT_NE(fill, nullptr);
  EXPECT_EQ(fill->id, "flex-cpu-threads-scratch-overflow-sanitized-wrapper");
  EXPECT_EQ(known.Match(Signature(Crash("Segmentation fault"))), nullptr);
  EXPECT_EQ(known.Match("exception|type=builtins.AssertionError|message=other|frame=x.py:f"),
            nullptr);
}

// The keys run-case printed (with its probe) for the reduced cases of the known silent wrong
// results and crashes on torch 2.15.0 (tests/fixtures/known_issue_keys.json; the two hand
// repros that no case can express, by their oracle's facts): each matches its own known issue
// and no other one, and the injected miscompiles' keys (bench/injected_bugs/) match none.
TEST(KnownIssues, EachSilentFailureMatchesItsOwnKnownIssueAndNoOther) {
  const auto known = ReadKnownIssues(kSourceDir / "corpus/known-issues.json");
  const json fixture =
      json::parse(std::ifstream(kSourceDir / "tests/fixtures/known_issue_keys.json"));
  std::set<std::string> ids;
  for (const auto &entry : fixture.at("keys")) {
    const std::string key = entry.at("key"), expected = entry.at("known_issue");
    const std::string signature = entry.value("signature", "");
    std::vector<std::string> matching;
    for (const auto &issue : known.issues)
      if (KnownIssues{{issue}}.Match(signature, key))
        matching.push_back(issue.id);
    if (expected.empty())
      EXPECT_TRUE(matching.empty()) << key << " matches " << matching.front();
    else
      EXPECT_EQ(matching, std::vector<std::string>{expected}) << key;
    ids.insert(expected);
  }
  EXPECT_GE(ids.size(), 8u); // seven known issues and the injected ones
}

TEST(KnownIssues, BadEntriesAreRefusedByName) {
  const support::ScratchDir scratch("known-test");
  auto refused = [&](const json &issue) {
    std::ofstream(scratch / "known.json")
        << json{{"format_version", 1}, {"issues", {issue}}}.dump();
    try {
      ReadKnownIssues(scratch / "known.json");
    } catch (const FormatError &error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  const json good = {{"id", "x"},
                     {"match", "crash|api=*"},
                     {"status", "reported"},
                     {"link", "https://github.com/pytorch/pytorch/issues/1"},
                     {"title", "t"}};
  EXPECT_EQ(refused(good), "accepted");
  json bad_status = good;
  bad_status["status"] = "done";
  EXPECT_NE(refused(bad_status).find("issues[0].status"), std::string::npos);
  json everything = good;
  everything["match"] = "*";
  EXPECT_NE(refused(everything).find("every finding"), std::string::npos);
  json no_fact = good; // a pattern must say which fact it is about
  no_fact["match"] = "crash|*";
  EXPECT_NE(refused(no_fact).find("where a |FACT=PATTERN should follow"), std::string::npos);
  json typo = good;
  typo["lnik"] = "";
  EXPECT_NE(refused(typo).find("issues[0].lnik"), std::string::npos);
}

} // namespace
} // namespace corpus
