// Issue drafts a PyTorch maintainer would accept: the output that shows the bug and no noise or
// machine path (on what real repros printed), a short title from the bug's key, no draft for a
// repro that does not fail standalone, likely duplicates from a tracker export, and a draft
// that parses as Markdown with PyTorch's template's sections (markdown-it-py, as GitHub does).
#include "corpus/known_issues.h"
#include "fuzzer/campaign/draft_output.h"
#include "fuzzer/campaign/draft_upstream.h"
#include "fuzzer/campaign/issue_draft.h"

#include "support/child_process.h"
#include "support/errors.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <regex>
#include <sstream>

namespace fuzzer::campaign {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

std::string Fixture(const std::string &name) {
  return support::ReadTextFile(kSourceDir / "tests" / "fixtures" / "drafts" / name, "fixture",
                               1 << 20);
}

std::size_t LineCount(const std::string &text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(DraftOutput, MachinePathsBecomePlaceholders) {
  const std::string text =
      WithPlaceholders("/work/main/.venv/lib/python3.11/site-packages/torch/_dynamo/utils.py "
                       "/tmp/torchinductor_root/tmp86/eg/c.main.cpp /usr/lib/python3.11/ast.py "
                       "/home/ada/x.py /tmp/inductor-fuzz-standalone-12/cache/ab/k.cpp "
                       "--corpus /tmp/night/corpus /tmp/known.json");
  EXPECT_EQ(text, "<site-packages>/torch/_dynamo/utils.py <inductor-cache>/tmp86/eg/c.main.cpp "
                  "<python>/ast.py ~/x.py <inductor-cache>/ab/k.cpp --corpus <tmp>/corpus "
                  "<tmp>/known.json");
}

// g++'s output as the repro printed it: 140 lines of header warnings, carets, include chains
// and the error twice. The draft keeps the first error, its note and the exception, once.
TEST(DraftOutput, ACompileErrorIsItsFirstErrorAndNoteOnce) {
  const std::string output = Fixture("compile_error_output.txt");
  ASSERT_GT(LineCount(output), 100u);
  const std::string shown = OutputThatShowsTheBug(output, corpus::FindingKind::kCompileError);
  EXPECT_LE(LineCount(shown), 4u) << shown;
  EXPECT_NE(shown.find("error: cannot convert ‘accum_t*’ {aka ‘float*’} to ‘bool*’"),
            std::string::npos)
      << shown;
  EXPECT_NE(shown.find("<site-packages>/torch/include/ATen/cpu/vec/vec_mask.h:206:20: note:"),
            std::string::npos)
      << shown;
  EXPECT_NE(shown.find("torch._inductor.exc.InductorError: CppCompileError: C++ compile error"),
            std::string::npos)
      << shown;
  for (const char *noise : {"warning:", "/work/", "/tmp/", "|", "In file included", "^~"})
    EXPECT_EQ(shown.find(noise), std::string::npos) << noise << " in\n" << shown;
}

TEST(DraftOutput, AnExceptionIsItsRaisingTorchFrameAndItsMessage) {
  const std::string shown =
      OutputThatShowsTheBug(Fixture("exception_output.txt"), corpus::FindingKind::kException);
  EXPECT_LE(LineCount(shown), 12u) << shown;
  EXPECT_NE(shown.find("File \"<site-packages>/torch/_dynamo/utils.py\""), std::string::npos)
      << shown;
  EXPECT_NE(shown.find("torch._dynamo.exc.TorchRuntimeError: RuntimeError when making fake "
                       "tensor call"),
            std::string::npos)
      << shown;
  for (const char *noise : {"TORCHDYNAMO_VERBOSE", "/work/", "^^^^", "Traceback"})
    EXPECT_EQ(shown.find(noise), std::string::npos) << noise << " in\n" << shown;
}

// Inductor wraps an assertion of its C++ templates in a LoweringException and dumps the
// lowering's arguments after it (150 lines), then Dynamo prints the user frame: the excerpt is
// the raising frame and the exception, not the dump's tail.
TEST(DraftOutput, ALoweringExceptionEndsWithItsMessageNotTheArgumentDump) {
  const std::string output = Fixture("lowering_exception_output.txt");
  ASSERT_GT(LineCount(output), 300u);
  const std::string shown = OutputThatShowsTheBug(output, corpus::FindingKind::kException);
  EXPECT_LE(LineCount(shown), 4u) << shown;
  EXPECT_NE(shown.find("File \"<site-packages>/torch/_inductor/codegen/cpp_micro_gemm.py\""),
            std::string::npos)
      << shown;
  EXPECT_TRUE(shown.ends_with("LoweringException: AssertionError: trans_b requires AVX512 or AVX2 "
                              "vec ISA, got <class 'torch._inductor.cpu_vec_isa.InvalidVecISA'>\n"))
      << shown;
  for (const char *dump : {"target:", "args[", "flex_attention_hop(", "Found from"})
    EXPECT_EQ(shown.find(dump), std::string::npos) << dump << " in\n" << shown;
}

// A hand-written repro that compares with a float64 reference and asserts: its assertion, not
// the warnings and log lines torch printed before it; its own path is its name.
TEST(DraftOutput, AnAssertionOfAHandWrittenReproWithoutTorchsWarnings) {
  const std::string shown = OutputThatShowsTheBug(
      "/work/main/.venv/lib/python3.11/site-packages/torch/nn/attention/flex_attention.py:2621: "
      "UserWarning: flex_attention called without torch.compile()\n  _warn_once(\n"
      "W1126 18:38:04.601000 1370 torch/utils/cpp_extension.py:183] No CUDA runtime is found\n"
      "Traceback (most recent call last):\n"
      "  File \"/work/main/corpus/findings/reduced/x/repro.py\", line 22, in <module>\n"
      "    assert compiled_error <= 10 * eager_error\n"
      "AssertionError: compiled is 7.21e-01 off the float64 reference\n",
      corpus::FindingKind::kWrongResult);
  EXPECT_EQ(shown, "AssertionError: compiled is 7.21e-01 off the float64 reference\n");
  EXPECT_EQ(WithPlaceholders("  File \"/work/main/corpus/x/repro.py\", line 22"),
            "  File \"repro.py\", line 22");
}

TEST(DraftOutput, AWrongResultIsWhatDiffersAndHowFar) {
  const std::string shown = OutputThatShowsTheBug(
      "print(1)\nTraceback (most recent call last):\n  File \"/root/r.py\", line 3\n"
      "AssertionError: Tensor-likes are not close!\n\nMismatched elements: 7 / 64 (10.9%)\n"
      "Greatest absolute difference: 0.5 at index (0, 0, 3, 1) (up to 0.0001 allowed)\n"
      "Greatest relative difference: 2.0 at index (0, 0, 3, 1) (up to 0 allowed)\n",
      corpus::FindingKind::kWrongResult);
  EXPECT_EQ(shown, "AssertionError: Tensor-likes are not close!\nMismatched elements: 7 / 64 "
                   "(10.9%)\nGreatest absolute difference: 0.5 at index (0, 0, 3, 1) (up to "
                   "0.0001 allowed)\nGreatest relative difference: 2.0 at index (0, 0, 3, 1) (up "
                   "to 0 allowed)\n");
}

// Every known issue's match makes a title of at most 100 characters that says what fails.
TEST(DraftTitle, EveryKnownIssueGetsAShortTitleFromItsMatch) {
  const auto known = corpus::ReadKnownIssues(kSourceDir / "corpus" / "known-issues.json");
  ASSERT_GE(known.issues.size(), 15u);
  for (const auto &issue : known.issues) {
    const std::string failure = FailureFromKey(issue.match);
    EXPECT_FALSE(failure.empty()) << issue.id;
    const std::string title = DraftTitle("flex_attention", failure);
    EXPECT_LE(title.size(), kTitleLength) << title;
    EXPECT_TRUE(title.starts_with("[inductor][cpu] flex_attention: ")) << title;
    // No wildcard of the match is left; a C++ pointer type keeps its star ('accum_t*').
    EXPECT_FALSE(std::regex_search(title, std::regex(R"(\*([^'}]|$))"))) << title;
  }
  EXPECT_EQ(FailureFromKey("compile-error|family=gcc|message='cur_*SplitSize<N>' was not "
                           "declared in this scope*|option=*"),
            "C++ compile error: 'cur_...SplitSize<N>' was not declared in this scope");
  EXPECT_EQ(FailureFromKey("wrong-result|api=flex_attention|fields=output|how=off|where=some-"
                           "heads|template=flex-*|needs="),
            "compiled result differs from eager in some heads");
  EXPECT_EQ(FailureFromKey("exception|type=builtins.RuntimeError|message=pack_vnni2, <path>:<N>, "
                           "pack_vnni2 is only supported when avx512 is supported*"),
            "RuntimeError: pack_vnni2, pack_vnni2 is only supported when avx512 is supported");
  // Each kind's own words (its row's title_words), then what the probe says it needs.
  EXPECT_EQ(FailureFromKey("crash|api=flex_attention|signal=memory|abort=memory error|"
                           "template=flex-prefill|needs=cpp.threads"),
            "compiled call crashes the process (memory error) with cpp.threads");
  EXPECT_EQ(FailureFromKey("crash|api=flex_attention|signal=11|abort=|needs="),
            "compiled call crashes the process (signal 11)");
  EXPECT_EQ(FailureFromKey("compile-error|family=gcc|message=cannot convert 'float*' {aka "
                           "'float*'} to 'bool*'|option="),
            "C++ compile error: cannot convert 'float*' to 'bool*'");
  EXPECT_EQ(FailureFromKey("timeout|api=flex_attention"), "compiled call never returns");
  EXPECT_EQ(FailureFromKey("memory-error|error=heap-buffer-overflow|access=WRITE of size 4|"
                           "kernel=kernel_fill_stub<float>"),
            "generated kernel accesses memory out of bounds (WRITE of size 4)");
}

TEST(WhyNoDraft, OnlyAReproThatFailsStandaloneGetsADraft) {
  corpus::Delivery delivery{.signature = "crash|api=flex_attention|signal=11",
                            .status = corpus::DeliveryStatus::kReduced,
                            .reproduces_standalone = true};
  EXPECT_FALSE(WhyNoDraft(delivery));
  delivery.reproduces_standalone = false;
  delivery.standalone_how = "exit 0: PASS";
  ASSERT_TRUE(WhyNoDraft(delivery));
  EXPECT_TRUE(WhyNoDraft(delivery)->starts_with("not reproduced standalone"))
      << *WhyNoDraft(delivery);
  delivery.signature = "compiler-divergence|built=g++|failed=clang++";
  delivery.reproduces_standalone = true;
  ASSERT_TRUE(WhyNoDraft(delivery));
  EXPECT_NE(WhyNoDraft(delivery)->find("repro.sh"), std::string::npos);
  // 94 lines when the reduction's time ran out: no draft until a later night shortens it.
  delivery = {.signature = "crash|api=flex_attention|signal=memory",
              .status = corpus::DeliveryStatus::kTimeout,
              .repro_lines = 94,
              .reproduces_standalone = true};
  ASSERT_TRUE(WhyNoDraft(delivery));
  EXPECT_NE(WhyNoDraft(delivery)->find("94 lines, more than 25"), std::string::npos)
      << *WhyNoDraft(delivery);
  delivery.repro_lines = 18;
  EXPECT_FALSE(WhyNoDraft(delivery));
}

TEST(Upstream, BadExportsAreOneLineInputErrors) {
  const support::ScratchDir scratch("upstream-test");
  EXPECT_THROW(ReadUpstreamIssues(scratch.path() / "missing.json"), support::InputError);
  for (const std::string text : {"not json", "{\"number\": 1}", "[{\"title\": \"no number\"}]",
                                 "[{\"number\": \"1\", \"title\": \"x\"}]"}) {
    support::WriteFileAtomically(scratch.path() / "bad.json", text);
    try {
      ReadUpstreamIssues(scratch.path() / "bad.json");
      ADD_FAILURE() << text;
    } catch (const support::InputError &error) {
      EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("gh issue list"), std::string::npos) << error.what();
    }
  }
}

TEST(Upstream, TheIssuesHoldingMostKeyTermsComeFirst) {
  const std::vector<UpstreamIssue> issues = {
      {.number = 1, .title = "flex_attention is slow on CPU", .body = "", .state = "OPEN"},
      {.number = 2,
       .title = "[inductor] flex_attention full_kv_num_blocks was not declared",
       .body = "decoding template on CPU",
       .state = "CLOSED"},
      {.number = 3, .title = "unrelated", .body = "nothing", .state = "OPEN"}};
  const auto terms =
      KeyTerms("C++ compile error: ...full_kv_num_blocks... was not declared in this scope",
               "flex_attention");
  EXPECT_EQ(terms, (std::vector<std::string>{"flex_attention", "full_kv_num_blocks"}));
  const auto matches = LikelyDuplicates(issues, terms);
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].issue.number, 2);
  const std::string section = UpstreamSection(matches, issues.size(), terms);
  EXPECT_NE(section.find("- #2 [inductor] flex_attention full_kv_num_blocks was not declared "
                         "(closed; holds flex_attention, full_kv_num_blocks)"),
            std::string::npos)
      << section;
  EXPECT_NE(UpstreamSection({}, 3, terms).find("none of the 3 exported"), std::string::npos);
}

IssueDraftParts CompileErrorParts() {
  return {
      .api = "flex_attention",
      .settings = "cpp.threads=1",
      .failure = FailureFromKey(
          "compile-error|family=gcc|message=cannot convert 'accum_t*' {aka 'float*'} to "
          "'bool*'|option=*"),
      .kind = corpus::FindingKind::kCompileError,
      .repro = "import torch\nprint(torch.__version__)\n",
      .output = Fixture("compile_error_output.txt"),
      .releases = {{.torch = "2.6.0", .result = "passes"}, {.torch = "2.15.0", .result = "fails"}},
      .release_label = "regression since 2.7.1 (passes on 2.6.0)",
      .environment = {{"torch", "2.15.0"}},
      .signature = "compile-error|family=gcc|message=x|option=",
      .provenance = "case s1-i4 of `inductor-fuzz fuzz --seed 1`",
      .tool_version = "0.9.0"};
}

// The draft parsed as GitHub parses it: PyTorch's template's sections, the repro and the error
// in fenced blocks, and no machine path anywhere.
TEST(IssueDraft, ParsesAsMarkdownWithTheTemplatesSections) {
  const support::ScratchDir scratch("issue-draft-markdown");
  auto wrong = CompileErrorParts();
  wrong.kind = corpus::FindingKind::kWrongResult;
  wrong.failure = "compiled result differs from eager in some heads";
  wrong.repro = "torch.testing.assert_close(actual, expected, atol=0.0001, rtol=0)\n";
  wrong.output = "AssertionError: Tensor-likes are not close!\nMismatched elements: 1 / 4\n";
  wrong.reference = "compiled off the float64 reference by 0.5 where eager is off by 1e-7";
  const std::vector<std::pair<std::string, IssueDraftParts>> drafts = {
      {"compile_error.md", CompileErrorParts()}, {"wrong_result.md", wrong}};
  std::vector<std::string> argv = {(kSourceDir / ".venv" / "bin" / "python").string(),
                                   (kSourceDir / "tests" / "render_markdown.py").string()};
  for (const auto &[name, parts] : drafts) {
    const std::string draft = RenderIssueDraft(parts);
    support::WriteFileAtomically(scratch.path() / name, draft);
    argv.push_back((scratch.path() / name).string());
    const std::string title = draft.substr(2, draft.find('\n') - 2);
    EXPECT_LE(title.size(), kTitleLength) << title;
    EXPECT_EQ(draft.find("/work/"), std::string::npos) << draft;
    EXPECT_EQ(draft.find("/tmp/"), std::string::npos) << draft;
    EXPECT_NE(draft.find("generated by inductor-fuzz 0.9.0"), std::string::npos) << draft;
    EXPECT_NE(draft.find("**Releases:** regression since 2.7.1 (passes on 2.6.0)."),
              std::string::npos)
        << draft;
  }
  const auto rendered = support::RunCommand(argv, {}, std::chrono::seconds(60));
  ASSERT_EQ(rendered.status.exit_code, 0) << rendered.output;
  const json parsed = json::parse(rendered.output.substr(rendered.output.find('{')));
  for (const auto &[name, parts] : drafts) {
    const json &page = parsed[(scratch.path() / name).string()];
    EXPECT_EQ(page["headings"], json({"h1 " + DraftTitle(parts.api, parts.failure),
                                      "h3 🐛 Describe the bug", "h3 Error logs", "h3 Versions"}))
        << page.dump();
    ASSERT_EQ(page["fences"].size(), 3u) << page.dump();
    EXPECT_EQ(page["fences"][0]["info"], "python");
    EXPECT_LE(page["fences"][1]["lines"].get<int>(), 12) << page.dump();
  }
  // A compile error's checklist holds trivially; a wrong result compared with tolerances that
  // are not torch.testing's defaults does not get `topic: fuzzer`.
  EXPECT_NE(RenderIssueDraft(CompileErrorParts()).find("`topic: fuzzer`"), std::string::npos);
  EXPECT_EQ(RenderIssueDraft(wrong).find("`topic: fuzzer`"), std::string::npos);
  EXPECT_NE(RenderIssueDraft(wrong).find("- [ ] Tolerances: the repro passes atol=0.0001, rtol=0"),
            std::string::npos)
      << RenderIssueDraft(wrong);
}

// The "Actual" line of each kind's draft is the one a maintainer would quote: an exception's
// type and message, a compiler's error, what differs and how far, how a process died.
TEST(IssueDraft, EachKindsActualIsTheLineAMaintainerQuotes) {
  struct Expectation {
    std::string output, how, actual;
  };
  const std::string lowering =
      "torch._inductor.exc.InductorError: LoweringException: AssertionError: trans_b requires "
      "AVX512 or AVX2 vec ISA, got <class 'torch._inductor.cpu_vec_isa.InvalidVecISA'>";
  const std::string asan = "==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1";
  const std::string conflicting = "k.cpp:3:7: error: conflicting declaration 'int tmp0'";
  const std::map<corpus::FindingKind, Expectation> expected = {
      {corpus::FindingKind::kException, {Fixture("lowering_exception_output.txt"), "", lowering}},
      {corpus::FindingKind::kCompileError,
       {Fixture("compile_error_output.txt"), "",
        "<inductor-cache>/tmp86tvn648/eg/"
        "cegcnscxqesqqtf453ia7o5pehflpmfahxd6kcb2ywn44xqd7327.main.cpp:1117:53: "
        "error: cannot convert ‘accum_t*’ {aka ‘float*’} to ‘bool*’"}},
      {corpus::FindingKind::kWrongResult,
       {"AssertionError: Tensor-likes are not close!\n\nMismatched elements: 1 / 4 (25.0%)\n"
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n",
        "",
        "Mismatched elements: 1 / 4 (25.0%); Greatest absolute difference: 0.5 at index (1,) "
        "(up to 1e-05 allowed)"}},
      {corpus::FindingKind::kCrash,
       {"W1126 18:38:04.601000 1370 torch/utils/cpp_extension.py:183] No CUDA runtime\n",
        "killed by signal 11 (Segmentation fault): W1126 No CUDA runtime",
        "killed by signal 11 (Segmentation fault)"}},
      {corpus::FindingKind::kTimeout,
       {"compiling\n", "timed out after 600 s", "timed out after 600 s"}},
      {corpus::FindingKind::kMemoryError, {"x\n" + asan + "\nREAD of size 4\n", "", asan}},
      {corpus::FindingKind::kConflictingDeclaration, {conflicting + "\n", "", conflicting}},
      {corpus::FindingKind::kShadowing, {conflicting + "\n", "", conflicting}},
      {corpus::FindingKind::kAnalysisError, {conflicting + "\n", "", conflicting}},
      {corpus::FindingKind::kCompilerDivergence, {conflicting + "\n", "", conflicting}},
      {corpus::FindingKind::kLoadError,
       {"OSError: /tmp/x/k.so: undefined symbol: _Z3foov\n", "",
        "OSError: <tmp>/k.so: undefined symbol: _Z3foov"}},
      {corpus::FindingKind::kRuntimeDivergence,
       {"AssertionError: Tensor-likes are not equal!\n", "",
        "AssertionError: Tensor-likes are not equal!"}},
  };
  for (const corpus::FindingKind kind : corpus::AllFindingKinds()) {
    const auto found = expected.find(kind);
    if (found == expected.end()) {
      ADD_FAILURE() << "no stated Actual for kind " << corpus::KindName(kind);
      continue;
    }
    auto parts = CompileErrorParts();
    parts.kind = kind;
    parts.output = found->second.output;
    parts.how = found->second.how;
    const std::string draft = RenderIssueDraft(parts);
    const auto start = draft.find("**Actual:** ");
    ASSERT_NE(start, std::string::npos) << draft;
    const std::string line = draft.substr(start + 12, draft.find('\n', start) - start - 12);
    EXPECT_EQ(line, "`" + found->second.actual + "`") << corpus::KindName(kind);
  }
}

// A tensor program's draft names a function of tensors and what it calls, not an attention API;
// one that draws random numbers does not pass the fuzzer checklist.
TEST(IssueDraft, ATensorProgramIsNamedByWhatItCalls) {
  auto parts = CompileErrorParts();
  parts.api = "tensor_program";
  parts.kind = corpus::FindingKind::kWrongResult;
  parts.failure = "compiled result differs from eager";
  parts.repro = "import torch\n\ndef program(x0, x1):\n    v0 = torch.mm(x0, x1)\n"
                "    v1 = torch.relu(v0).sum(dim=0)\n    x0.mul_(2)\n"
                "    return (v1, torch.mm(v0, x1))\n\n\ndef inputs():\n    return "
                "[torch.as_strided(t0.clone(), [2], [1])]\n";
  const std::string draft = RenderIssueDraft(parts);
  EXPECT_TRUE(draft.starts_with("# [inductor][cpu] program of torch.mm, torch.relu, "
                                "...: compiled result differs from eager\n"))
      << draft;
  EXPECT_NE(draft.find("`torch.compile` of a function of tensors (it calls `torch.mm`, "
                       "`torch.relu`, `.sum`, `.mul_`) on CPU"),
            std::string::npos)
      << draft;
  EXPECT_NE(draft.find("`torch.compile(program)` gives the result eager `program` gives"),
            std::string::npos)
      << draft;
  EXPECT_EQ(draft.find("flex"), std::string::npos) << draft;
  EXPECT_EQ(draft.find(".as_strided"), draft.find("torch.as_strided") + 5); // not a call listed
  EXPECT_NE(draft.find("- [x] Random numbers: the program draws none"), std::string::npos);
  parts.repro = "def program(x0):\n    return (torch.rand_like(x0),)\n";
  EXPECT_NE(RenderIssueDraft(parts).find("- [ ] Random numbers: the program draws some"),
            std::string::npos);
  EXPECT_EQ(RenderIssueDraft(parts).find("`topic: fuzzer`"), std::string::npos);
}

} // namespace
} // namespace fuzzer::campaign
