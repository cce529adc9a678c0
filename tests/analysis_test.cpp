// The fixture suite of the Clang analysis: annotated TUs under fixtures/analysis, found by
// walking the folder. Prints precision and recall; anything below 100% fails.
#include "parsers/clang_analysis.h"
#include "parsers/clang_checks.h"
#include "parsers/clang_diagnostic_names.h"
#include "parsers/diagnostics.h"
#include "parsers/flag_translation.h"
#include "support/child_process.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

namespace parsers {
namespace {

const std::filesystem::path kFixtures =
    std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) / "tests/fixtures/analysis";
const std::filesystem::path kTorchInclude = std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                                            ".venv/lib/python3.11/site-packages/torch/include";

struct Expectation {
  std::string kind, check, name;
  std::string id;              // Clang's diagnostic, when the fixture pins it
  std::string note;            // an unclassified error's first note, when the fixture pins it
  std::string kernel, scope;   // when the fixture pins them
  bool has_previous = true;    // `previous=none`: Clang gives no earlier place (an unclassified
                               // error, a macro's parameter list)
  std::vector<unsigned> lines; // later, earlier
};

struct Fixture {
  std::string label;
  std::vector<std::filesystem::path> files;
  std::vector<Expectation> expected;
  bool expects_none = false;
  std::vector<std::string> flags;
  // `// FEATURE: F` and `// NO-FEATURE: F`: codegen features the TU has and has not.
  std::vector<std::string> features, absent_features;
};

std::string Read(const std::filesystem::path &path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

std::vector<std::string> Split(const std::string &text) {
  std::istringstream words(text);
  return {std::istream_iterator<std::string>(words), {}};
}

std::vector<std::string> FlagsFor(const std::string &line) {
  std::vector<std::string> argv = {"c++"};
  std::string flags = line == "inductor" ? Read(kFixtures / "inductor_flags.txt") : line;
  flags = std::regex_replace(flags, std::regex(R"(\$\{TORCH\})"), kTorchInclude.string());
  for (auto &word : Split(flags))
    argv.push_back(word);
  auto args = TranslateForClang(argv).clang_args;
  args.insert(args.end(), {"-I", (kFixtures / "include").string()});
  return args;
}

void ReadAnnotations(const std::filesystem::path &file, Fixture &fixture) {
  static const std::regex expect(R"(//\s*EXPECT:\s*(\S+)(.*))");
  static const std::regex flags(R"(//\s*FLAGS:\s*(.*))");
  static const std::regex feature(R"(//\s*(NO-)?FEATURE:\s*(.*\S))");
  static const std::regex pair(R"re((\w+)=(?:"([^"]*)"|(\S*)))re"); // value, or "a value"
  std::istringstream lines(Read(file));
  std::string line;
  std::smatch match;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, match, flags)) {
      fixture.flags = FlagsFor(match[1]);
    } else if (std::regex_search(line, match, feature)) {
      (match[1].matched ? fixture.absent_features : fixture.features).push_back(match[2]);
    } else if (std::regex_search(line, match, expect)) {
      if (match[1] == "none") {
        fixture.expects_none = true;
        continue;
      }
      Expectation expectation{.kind = match[1]};
      const std::string rest = match[2];
      for (std::sregex_iterator it(rest.begin(), rest.end(), pair), end; it != end; ++it) {
        const std::string key = (*it)[1], value = (*it)[2].matched ? (*it)[2] : (*it)[3];
        if (key == "check")
          expectation.check = value;
        else if (key == "name")
          expectation.name = value;
        else if (key == "id")
          expectation.id = value;
        else if (key == "note")
          expectation.note = value;
        else if (key == "kernel")
          expectation.kernel = value;
        else if (key == "scope")
          expectation.scope = value;
        else if (key == "previous")
          expectation.has_previous = value != "none";
        else if (key == "lines")
          for (auto &number : std::vector<std::string>{value.substr(0, value.find(',')),
                                                       value.substr(value.find(',') + 1)})
            expectation.lines.push_back(std::stoul(number));
      }
      fixture.expected.push_back(expectation);
    }
  }
}

std::vector<Fixture> DiscoverFixtures() {
  std::vector<Fixture> fixtures;
  for (const char *folder : {"broken", "clean"}) {
    for (const auto &entry : std::filesystem::directory_iterator(kFixtures / folder)) {
      if (entry.path().extension() != ".cpp" && entry.path().extension() != ".cu")
        continue;
      Fixture fixture{.label = std::string(folder) + "/" + entry.path().filename().string(),
                      .files = {entry.path()}};
      fixture.flags = FlagsFor("-std=c++20");
      ReadAnnotations(entry.path(), fixture);
      fixtures.push_back(std::move(fixture));
    }
  }
  for (const auto &group : std::filesystem::directory_iterator(kFixtures / "linked")) {
    Fixture fixture{.label = "linked/" + group.path().filename().string()};
    fixture.flags = FlagsFor("-std=c++20");
    for (const auto &entry : std::filesystem::directory_iterator(group.path()))
      if (entry.path().extension() == ".cpp") {
        fixture.files.push_back(entry.path());
        ReadAnnotations(entry.path(), fixture);
      }
    std::sort(fixture.files.begin(), fixture.files.end());
    fixtures.push_back(std::move(fixture));
  }
  std::sort(fixtures.begin(), fixtures.end(),
            [](const Fixture &a, const Fixture &b) { return a.label < b.label; });
  return fixtures;
}

// The coverage feedback's features (parsers/codegen_features.h), on real Inductor TUs and on
// hand-written ones: each annotated feature is found, each one annotated absent is not.
TEST(AnalysisFixtures, CodegenFeaturesAsAnnotated) {
  Analyzer analyzer({.prefix_cache_dir = std::filesystem::temp_directory_path() /
                                         "inductor-fuzz-analysis-test-prefixes"});
  std::size_t annotated = 0;
  for (const auto &fixture : DiscoverFixtures()) {
    if (fixture.features.empty() && fixture.absent_features.empty())
      continue;
    SCOPED_TRACE(fixture.label);
    ++annotated;
    std::set<std::string> found;
    for (const auto &file : fixture.files) {
      const auto report = analyzer.Analyze({.path = file, .clang_args = fixture.flags});
      found.insert(report.features.begin(), report.features.end());
    }
    for (const auto &feature : fixture.features)
      EXPECT_TRUE(found.contains(feature))
          << feature << " is missing; found: " << fmt::format("{}", fmt::join(found, ", "));
    for (const auto &feature : fixture.absent_features)
      EXPECT_FALSE(found.contains(feature)) << feature << " is found";
    // No numbered names: a kernel's or buffer's number must not make a feature new.
    for (const auto &feature : found)
      EXPECT_FALSE(std::regex_search(feature, std::regex(R"((kernel|buf|tmp)[0-9])"))) << feature;
    // Nor a path: a lambda's type names where it was written, which every case has its own of.
    for (const auto &feature : found)
      EXPECT_EQ(feature.find(".cpp"), std::string::npos) << feature;
  }
  EXPECT_GE(annotated, 3u);
}

bool IsCudaFixture(const Fixture &fixture) { return fixture.label.ends_with(".cu"); }

struct Score {
  std::size_t true_positives = 0, false_positives = 0, false_negatives = 0;
  double Precision() const {
    return true_positives + false_positives
               ? 100.0 * true_positives / (true_positives + false_positives)
               : 100.0;
  }
  double Recall() const {
    return true_positives + false_negatives
               ? 100.0 * true_positives / (true_positives + false_negatives)
               : 100.0;
  }
};

// Analyses every fixture and matches what it finds against its EXPECT lines, one by one.
Score ExpectAnnotatedFindings(const std::vector<Fixture> &fixtures) {
  Analyzer analyzer({.prefix_cache_dir = std::filesystem::temp_directory_path() /
                                         "inductor-fuzz-analysis-test-prefixes"});
  Score score;
  auto &[true_positives, false_positives, false_negatives] = score;
  for (const auto &fixture : fixtures) {
    SCOPED_TRACE(fixture.label);
    EXPECT_TRUE(fixture.expects_none != !fixture.expected.empty())
        << "a fixture says EXPECT: none or lists its findings";
    std::vector<TranslationUnitReport> reports;
    std::vector<Conflict> found;
    for (const auto &file : fixture.files) {
      reports.push_back(analyzer.Analyze({.path = file, .clang_args = fixture.flags}));
      EXPECT_TRUE(reports.back().fatal_errors.empty())
          << fmt::format("{}", fmt::join(reports.back().fatal_errors, "\n"));
      found.insert(found.end(), reports.back().findings.begin(), reports.back().findings.end());
    }
    if (fixture.files.size() > 1) {
      const auto cross = CompareLinkedUnits(reports);
      found.insert(found.end(), cross.begin(), cross.end());
    }
    std::vector<bool> matched(found.size(), false);
    for (const auto &expected : fixture.expected) {
      bool hit = false;
      for (std::size_t i = 0; i < found.size() && !hit; ++i) {
        if (matched[i] || found[i].kind != expected.kind || found[i].check != expected.check ||
            found[i].name != expected.name)
          continue;
        hit = matched[i] = true;
        if (!expected.id.empty())
          EXPECT_EQ(found[i].clang_diagnostic, expected.id) << expected.name;
        if (!expected.note.empty())
          EXPECT_EQ(found[i].note_diagnostic, expected.note) << expected.name;
        if (!expected.kernel.empty())
          EXPECT_EQ(found[i].kernel, expected.kernel) << expected.name;
        if (!expected.scope.empty())
          EXPECT_EQ(found[i].scope, expected.scope) << expected.name;
        if (!expected.lines.empty()) {
          EXPECT_EQ(found[i].location.line, expected.lines[0]) << expected.name;
          EXPECT_EQ(found[i].previous.line, expected.lines[1]) << expected.name;
        }
        if (expected.has_previous)
          EXPECT_FALSE(found[i].previous.file.empty()) << expected.name << ": no earlier location";
      }
      if (hit) {
        ++true_positives;
      } else {
        ++false_negatives;
        ADD_FAILURE() << "missed " << expected.kind << " " << expected.check << " "
                      << expected.name;
      }
    }
    for (std::size_t i = 0; i < found.size(); ++i)
      if (!matched[i]) {
        ++false_positives;
        ADD_FAILURE() << "unexpected " << found[i].kind << " " << found[i].check << " '"
                      << found[i].name << "' at " << found[i].location.line << ": "
                      << found[i].message;
      }
  }
  return score;
}

TEST(AnalysisFixtures, EveryAnnotatedFindingAndNothingElse) {
  std::vector<Fixture> fixtures;
  for (auto &fixture : DiscoverFixtures())
    if (!IsCudaFixture(fixture)) // CudaFixturesParsedAsCuda
      fixtures.push_back(std::move(fixture));
  std::size_t broken = 0, clean_captured = 0;
  for (const auto &fixture : fixtures) {
    broken += fixture.label.starts_with("broken/");
    clean_captured += fixture.label.starts_with("clean/inductor_");
  }
  EXPECT_GE(broken, 30u);
  EXPECT_GE(clean_captured, 10u);
  const Score score = ExpectAnnotatedFindings(fixtures);
  fmt::print("analysis fixtures: {} ({} broken, {} clean captured from Inductor); "
             "precision {:.1f}%, recall {:.1f}% ({} true, {} false positives, {} missed)\n",
             fixtures.size(), broken, clean_captured, score.Precision(), score.Recall(),
             score.true_positives, score.false_positives, score.false_negatives);
  EXPECT_EQ(score.Precision(), 100.0);
  EXPECT_EQ(score.Recall(), 100.0);
}

// The .cu fixtures, through Clang's CUDA parse for real: the CUDA installation found here (no
// GPU needed), and our own stand-ins for the headers Clang's CUDA wrapper wants that it lacks.
TEST(AnalysisFixtures, CudaFixturesParsedAsCuda) {
  std::vector<Fixture> fixtures;
  for (auto &fixture : DiscoverFixtures())
    if (IsCudaFixture(fixture))
      fixtures.push_back(std::move(fixture));
  ASSERT_GE(fixtures.size(), 3u);
  std::string looked_at;
  if (FindCudaInstallation(&looked_at).empty())
    GTEST_SKIP() << "no CUDA toolkit installed: " << looked_at;
  const Score score = ExpectAnnotatedFindings(fixtures);
  fmt::print("CUDA analysis fixtures: {}; precision {:.1f}%, recall {:.1f}% ({} true, {} false "
             "positives, {} missed)\n",
             fixtures.size(), score.Precision(), score.Recall(), score.true_positives,
             score.false_positives, score.false_negatives);
  EXPECT_GE(score.true_positives, 3u);
  EXPECT_EQ(score.Precision(), 100.0);
  EXPECT_EQ(score.Recall(), 100.0);
}

TEST(FlagTranslation, EveryRuleOfTheTable) {
  for (const auto &rule : FlagRules()) {
    SCOPED_TRACE(std::string(rule.pattern));
    const std::string flag =
        std::string(rule.pattern) + (rule.match == FlagMatch::kPrefix ? "x" : "");
    const auto out = TranslateForClang({"g++", flag, "VALUE", "kernel.cpp"});
    const bool keeps =
        rule.action == FlagAction::kKeep || rule.action == FlagAction::kKeepWithValue;
    const bool takes_value =
        rule.action == FlagAction::kKeepWithValue || rule.action == FlagAction::kDropWithValue;
    EXPECT_EQ(std::count(out.clang_args.begin(), out.clang_args.end(), flag), keeps ? 1 : 0);
    EXPECT_EQ(std::count(out.clang_args.begin(), out.clang_args.end(), "VALUE"),
              keeps && takes_value ? 1 : 0);
    EXPECT_EQ(out.sources, std::vector<std::string>{"kernel.cpp"});
  }
}

TEST(FlagTranslation, InductorsCapturedCommandKeepsWhatParsingNeeds) {
  std::vector<std::string> argv = {"g++", "/tmp/x/k.cpp"};
  for (auto &word : Split(Read(kFixtures / "inductor_flags.txt")))
    argv.push_back(word);
  argv.insert(argv.end(), {"-o", "/tmp/x/k.so"});
  const auto out = TranslateForClang(argv);
  EXPECT_EQ(out.sources, std::vector<std::string>{"/tmp/x/k.cpp"});
  for (const char *kept : {"-std=c++20", "-fopenmp", "-march=native", "-DNDEBUG", "-O3"})
    EXPECT_EQ(std::count(out.clang_args.begin(), out.clang_args.end(), kept), 1) << kept;
  for (const char *dropped : {"-fno-tree-loop-vectorize", "-fexcess-precision=fast", "-shared",
                              "-ltorch", "-g1", "-o", "/tmp/x/k.so"})
    EXPECT_EQ(std::count(out.clang_args.begin(), out.clang_args.end(), dropped), 0) << dropped;
  const auto define = std::find(out.clang_args.begin(), out.clang_args.end(), "-D");
  ASSERT_NE(define, out.clang_args.end());
  EXPECT_EQ(*(define + 1), "TORCH_INDUCTOR_CPP_WRAPPER");
}

TEST(FindingSignature, NamesReduceToTheirShape) {
  EXPECT_EQ(corpus::NameShape("tmp_acc0_arr"), "tmp_acc<N>_arr");
  EXPECT_EQ(corpus::NameShape("buf6_scalar"), "buf<N>_scalar");
  EXPECT_EQ(corpus::NameShape("in_out_ptr6"), "in_out_ptr<N>");
  Conflict a{.check = "variable-redeclared",
             .name = "tmp_acc0_arr",
             .type = "float[8]",
             .previous_type = "float[8]",
             .kernel = "cpp_fused_sum_0"};
  Conflict b = a;
  b.name = "tmp_acc3_arr";
  b.kernel = "cpp_fused_sum_7";
  b.location = {"other.cpp", 99, 3};
  EXPECT_EQ(corpus::Signature(ToFinding(a)), corpus::Signature(ToFinding(b)));
  b.check = "conflicting-types";
  EXPECT_NE(corpus::Signature(ToFinding(a)), corpus::Signature(ToFinding(b)));
  Conflict shadow{.kind = "shadowing", .check = "shadowed-local", .name = "i"};
  EXPECT_EQ(ToFinding(shadow).kind, corpus::FindingKind::kShadowing);
  EXPECT_EQ(corpus::Signature(ToFinding(shadow)),
            "shadowing|check=shadowed-local|name=i|type=|previous_type=|kernel=");
}

// A venv reinstalled under the cache: the headers a prefix was built from change. The prefix
// is built again once, and the next run (a new Analyzer, as a new process) reuses it.
TEST(Prefixes, AStalePrefixIsRebuiltOnceAndThenReused) {
  const auto folder = std::filesystem::temp_directory_path() /
                      ("inductor-fuzz-stale-prefix-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder / "include");
  std::ofstream(folder / "include" / "library.h")
      << "#pragma once\ninline int twice(int x) { return 2 * x; }\n";
  std::ofstream(folder / "tu.cpp") << "#include <library.h>\nint kernel() { return twice(3); }\n";
  const TranslationUnitInput input{
      .path = folder / "tu.cpp",
      .clang_args = {"-std=c++20", "-I" + (folder / "include").string()}};
  const AnalysisOptions options{.prefix_cache_dir = folder / "cache"};
  auto analyze = [&] {
    Analyzer analyzer(options);
    return analyzer.Analyze(input);
  };
  auto prefix_files = [&] {
    std::map<std::string, std::filesystem::file_time_type> times;
    for (const auto &entry : std::filesystem::directory_iterator(folder / "cache"))
      times[entry.path().filename().string()] = entry.last_write_time();
    return times;
  };
  const auto first = analyze();
  ASSERT_TRUE(first.used_prefix_cache);
  ASSERT_TRUE(first.fatal_errors.empty());
  const auto built = prefix_files();
  EXPECT_EQ(analyze().used_prefix_cache, true);
  EXPECT_EQ(prefix_files(), built) << "a current prefix is reused as it is";

  const auto header = folder / "include" / "library.h";
  std::filesystem::last_write_time(header, std::filesystem::last_write_time(header) +
                                               std::chrono::seconds(5));
  const auto stale = analyze();
  EXPECT_TRUE(stale.used_prefix_cache);
  EXPECT_TRUE(stale.fatal_errors.empty());
  const auto rebuilt = prefix_files();
  EXPECT_NE(rebuilt, built);
  const auto after = analyze();
  EXPECT_TRUE(after.used_prefix_cache);
  EXPECT_TRUE(after.fatal_errors.empty());
  EXPECT_EQ(prefix_files(), rebuilt) << "the rebuilt prefix is current";
  std::filesystem::remove_all(folder);
}

// The prefixes' folder is shared by every campaign and `check` on the machine: past its size,
// the oldest prefixes go, never one the trimming process uses, and a process whose prefix
// another trimmed makes it again rather than parse against a missing file.
TEST(Prefixes, TheSharedFolderKeepsItsSizeAndATrimmedPrefixIsMadeAgain) {
  const auto folder = std::filesystem::temp_directory_path() /
                      ("inductor-fuzz-trimmed-prefix-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder / "include");
  for (const char *name : {"first", "second"}) {
    std::ofstream(folder / "include" / (std::string(name) + ".h"))
        << "#pragma once\ninline int " << name << "(int x) { return x + 1; }\n";
    std::ofstream(folder / (std::string(name) + ".cpp"))
        << "#include <" << name << ".h>\nint kernel() { return " << name << "(3); }\n";
  }
  const auto input = [&](const char *name) {
    return TranslationUnitInput{.path = folder / (std::string(name) + ".cpp"),
                                .clang_args = {"-std=c++20", "-I" + (folder / "include").string()}};
  };
  const auto prefixes = [&] {
    std::size_t count = 0;
    for (const auto &entry : std::filesystem::directory_iterator(folder / "cache"))
      count += entry.path().extension() == ".pch";
    return count;
  };
  Analyzer keeping({.prefix_cache_dir = folder / "cache"});
  ASSERT_TRUE(keeping.Analyze(input("first")).used_prefix_cache);
  ASSERT_EQ(prefixes(), 1u);
  {
    Analyzer trimming({.prefix_cache_dir = folder / "cache", .max_prefix_bytes = 1});
    const auto second = trimming.Analyze(input("second"));
    EXPECT_TRUE(second.used_prefix_cache);
    EXPECT_TRUE(second.fatal_errors.empty());
    EXPECT_EQ(prefixes(), 1u) << "the other process's prefix is trimmed, its own kept";
  }
  const auto again = keeping.Analyze(input("first"));
  EXPECT_TRUE(again.used_prefix_cache);
  EXPECT_TRUE(again.fatal_errors.empty());
  EXPECT_TRUE(again.findings.empty());
  EXPECT_EQ(prefixes(), 2u) << "the trimmed prefix is made again";
  std::filesystem::remove_all(folder);
}

// A campaign analyses TU after TU with one Analyzer while the files come and go: a TU written
// again at a path (or a new file on a reused inode) must be read as it is now, never as the
// analyzer saw it before.
TEST(Prefixes, OneAnalyzerReadsEachTuAsItIsNow) {
  const auto folder = std::filesystem::temp_directory_path() /
                      ("inductor-fuzz-rewritten-tu-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder / "include");
  std::ofstream(folder / "include" / "library.h")
      << "#pragma once\ninline int twice(int x) { return 2 * x; }\n";
  Analyzer analyzer({.prefix_cache_dir = folder / "cache"});
  // Each round's TU is longer than the last, in a new folder, the last one deleted first: the
  // way a campaign's cases come and go (and how the file system hands out inodes again).
  std::string body = "  int total = 0;\n";
  for (int round = 0; round < 6; ++round) {
    const auto case_dir = folder / ("case-" + std::to_string(round));
    std::filesystem::remove_all(folder / ("case-" + std::to_string(round - 1)));
    std::filesystem::create_directories(case_dir);
    body += "  total += twice(" + std::to_string(round) + ");\n";
    std::ofstream(case_dir / "kernel.cpp")
        << "#include <library.h>\nint kernel() {\n" + body + "  return total;\n}\n";
    const auto report =
        analyzer.Analyze({.path = case_dir / "kernel.cpp",
                          .clang_args = {"-std=c++20", "-I" + (folder / "include").string()}});
    EXPECT_TRUE(report.findings.empty())
        << "round " << round << ": " << (report.findings.empty() ? "" : report.findings[0].message);
  }
  std::filesystem::remove_all(folder);
}

TEST(Prefixes, HoistableDirectivesKeepDefinitionsBeforeTheirIncludes) {
  // The shape of a Python-binding kernel TU: the prefix header, code, then the bindings.
  const std::string kernel = "\n#include <torch/csrc/inductor/cpp_prefix.h>\n"
                             "extern \"C\" void kernel(float* out_ptr0) { out_ptr0[0] = 1; }\n"
                             "// Python bindings to call kernel():\n"
                             "#define PY_SSIZE_T_CLEAN\n#include <Python.h>\n#include <sstream>\n"
                             "#define PY_SSIZE_T_CLEAN\n";
  EXPECT_EQ(HoistableDirectives(kernel), "#include <torch/csrc/inductor/cpp_prefix.h>\n"
                                         "#define PY_SSIZE_T_CLEAN\n#include <Python.h>\n"
                                         "#include <sstream>\n#define PY_SSIZE_T_CLEAN\n");
  EXPECT_EQ(LeadingIncludeBlock(kernel), "#include <torch/csrc/inductor/cpp_prefix.h>\n");
  // Where hoisting could change the meaning, nothing is hoisted.
  EXPECT_EQ(HoistableDirectives("#include <a.h>\n#ifdef X\n#include <b.h>\n#endif\n"), "");
  EXPECT_EQ(HoistableDirectives("#include <a.h>\n#include \"local.h\"\n"), "");
  EXPECT_EQ(HoistableDirectives("#define N 1\n#include <a.h>\n#define N 2\n#include <b.h>\n"), "");
  EXPECT_EQ(HoistableDirectives("#include <a.h>\n#undef N\n"), "");
  EXPECT_EQ(HoistableDirectives("#define LONG(x) \\\n  x\n#include <a.h>\n"), "");
  EXPECT_EQ(HoistableDirectives("int x;\n"), "");
}

// Every registered ID is pinned (`id=`) by at least one annotated fixture, and the family's
// two lists name each ID once, by the name Clang gives it.
TEST(RedeclarationFamily, EveryRegisteredDiagnosticHasAFixture) {
  std::set<std::string> pinned;
  for (const auto &fixture : DiscoverFixtures())
    for (const auto &expected : fixture.expected)
      if (!expected.id.empty())
        pinned.insert(expected.id);
  std::set<std::string> seen;
  for (const auto &check : ClangChecks()) {
    EXPECT_EQ(ClangDiagnosticName(check.diagnostic_id), check.clang_name);
    EXPECT_TRUE(seen.insert(std::string(check.clang_name)).second) << check.clang_name;
    EXPECT_TRUE(pinned.contains(std::string(check.clang_name)))
        << check.clang_name << " has no fixture with id=" << check.clang_name;
  }
  for (const auto &left_out : LeftOutRedeclarationDiagnostics()) {
    EXPECT_EQ(ClangDiagnosticName(left_out.diagnostic_id), left_out.clang_name);
    EXPECT_TRUE(seen.insert(std::string(left_out.clang_name)).second)
        << left_out.clang_name << " is both registered and left out";
    EXPECT_FALSE(left_out.reason.empty());
  }
}

// An error inside torch's own headers is a finding that says it points at the environment.
TEST(UnclassifiedErrors, AnErrorInTorchsHeadersIsReportedAsTheEnvironments) {
  const auto folder = std::filesystem::temp_directory_path() /
                      ("inductor-fuzz-torch-header-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder / "torch/include/ATen");
  std::ofstream(folder / "torch/include/ATen/broken.h")
      << "#pragma once\ninline int broken() { return undeclared_in_header; }\n";
  std::ofstream(folder / "tu.cpp") << "#include <ATen/broken.h>\nint kernel() { return 1; }\n";
  Analyzer analyzer({.prefix_cache_dir = folder / "cache", .use_prefix_cache = false});
  const auto report =
      analyzer.Analyze({.path = folder / "tu.cpp",
                        .clang_args = {"-std=c++20", "-I" + (folder / "torch/include").string()}});
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].check, "unclassified-error");
  EXPECT_EQ(report.findings[0].clang_diagnostic, "err_undeclared_var_use");
  EXPECT_EQ(report.findings[0].origin, "torch-headers");
  EXPECT_EQ(report.findings[0].location.line, 2u);
  std::filesystem::remove_all(folder);
}

// The (line, column) of every error a plain `clang++-19 -fsyntax-only` reports for a TU.
std::set<std::pair<unsigned, unsigned>> PlainClangErrors(const std::filesystem::path &source,
                                                         const std::vector<std::string> &args) {
  std::vector<std::string> argv = {"-fsyntax-only", "-fno-caret-diagnostics",
                                   "-Wno-unknown-pragmas", "-isystem", OmpIncludeDirectory()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(source.string());
  argv.insert(argv.begin(), "clang++-19");
  const auto run = support::RunCommand(argv, {}, std::chrono::minutes(5), 16 << 20);
  const std::string &text = run.output;
  std::set<std::pair<unsigned, unsigned>> errors;
  for (const auto &diagnostic : ParseCompilerText(text, CompilerFamily::kClang))
    if (diagnostic.severity == "error" || diagnostic.severity == "fatal error")
      errors.insert({diagnostic.location.line, diagnostic.location.column});
  return errors;
}

// The precompiled prefix is the only speed-up: on real captured TUs whose kernels hand lambdas
// to torch's templates (vec_reduce_all, parallel_for, map), and on a captured TU made broken,
// the analysis sees exactly the errors a plain clang++-19 with the TU's flags reports.
TEST(NoDiagnosticFromTheSpeedUp, CapturedTusSeeWhatPlainClangSees) {
  Analyzer analyzer({.prefix_cache_dir = std::filesystem::temp_directory_path() /
                                         "inductor-fuzz-analysis-test-prefixes"});
  std::size_t compared = 0, with_errors = 0;
  for (const auto &fixture : DiscoverFixtures()) {
    const auto &file = fixture.files.front();
    const std::string text = Read(file);
    const bool captured = file.filename().string().starts_with("inductor_");
    const bool templates_with_lambdas = text.find("vec_reduce_all") != std::string::npos ||
                                        text.find("parallel_for") != std::string::npos ||
                                        text.find("at::vec::map") != std::string::npos;
    if (!captured || (fixture.label.starts_with("clean/") && !templates_with_lambdas))
      continue;
    SCOPED_TRACE(fixture.label);
    const auto report = analyzer.Analyze({.path = file, .clang_args = fixture.flags});
    EXPECT_TRUE(report.used_prefix_cache);
    std::set<std::pair<unsigned, unsigned>> seen;
    for (const auto &finding : report.findings)
      if (finding.severity == "error")
        seen.insert({finding.location.line, finding.location.column});
    EXPECT_EQ(seen, PlainClangErrors(file, fixture.flags));
    ++compared;
    with_errors += !seen.empty();
  }
  EXPECT_GE(compared, 4u);
  EXPECT_GE(with_errors, 1u) << "a broken captured TU keeps the comparison honest";
}

} // namespace
} // namespace parsers
