// The compiler matrix on real compilers: builds, divergence, loads against torch, compare.
#include "matrix_fixture.h"

namespace fuzzer {
namespace {

using namespace matrix_testing;

// Narrowing a non-constant in braces: gcc warns (-Wnarrowing), Clang rejects it.
constexpr const char *kGccOnly = R"(extern "C" int kernel(double d) {
  int values[] = {d};
  return values[0];
}
)";
constexpr const char *kPortable = R"(#include <cstdint>
extern "C" void kernel(const float* in_ptr0, float* out_ptr0, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out_ptr0[i] = in_ptr0[i] * 2.0f;
}
)";
// References a libtorch template instantiation that libtorch does not export.
constexpr const char *kMissingSymbol = R"(namespace at {
struct TensorBase { template <typename T> const T* const_data_ptr() const; };
}
extern "C" const void* kernel(const at::TensorBase* t) { return t->const_data_ptr<long double>(); }
)";

TEST_F(MatrixTest, DivergenceNamesTheCompilersOnEachSide) {
  const auto tus =
      matrix::LoadCapturedTus({Captured("gcc-only", kGccOnly), Captured("portable", kPortable)});
  ASSERT_EQ(tus.size(), 2u);
  const auto matrix = matrix::BuildMatrix(tus, Options({"g++-12", "clang++-14", "g++-11"}), {});
  const auto &gcc_only = matrix[0].tu.label.starts_with("gcc-only") ? matrix[0] : matrix[1];
  const auto &portable = matrix[0].tu.label.starts_with("gcc-only") ? matrix[1] : matrix[0];
  const auto finding = matrix::DivergenceFinding(gcc_only);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->detail["built_by"], json::array({"g++-12", "g++-11"}));
  EXPECT_EQ(finding->detail["failed_on"], json::array({"clang++-14"}));
  EXPECT_EQ(corpus::Signature(*finding).rfind(
                "compiler-divergence|built=g++-12,g++-11|failed=clang++-14|crashed=|error=", 0),
            0u)
      << corpus::Signature(*finding);
  EXPECT_FALSE(matrix::DivergenceFinding(portable).has_value());
  for (const auto &build : portable.builds) {
    EXPECT_TRUE(build.built) << build.compiler << ": " << build.first_error;
    EXPECT_TRUE(build.used_prefix) << build.compiler << ": its #include <cstdint> is shared";
    EXPECT_GT(build.object_size, 0u);
    EXPECT_EQ(build.argv.back() == "/tmp/gone/kernel.cpp", false) << "the stored source is built";
  }
  // The table's adjustment: gcc's -fno-tree-loop-vectorize is not given to Clang.
  const auto &clang_argv = portable.builds[1].argv;
  EXPECT_EQ(std::count(clang_argv.begin(), clang_argv.end(), "-fno-tree-loop-vectorize"), 0);
  const auto &gcc_argv = portable.builds[0].argv;
  EXPECT_EQ(std::count(gcc_argv.begin(), gcc_argv.end(), "-fno-tree-loop-vectorize"), 1);
}

TEST_F(MatrixTest, MissingLibtorchSymbolIsALoadErrorWithTheDemangledName) {
  const auto tus = matrix::LoadCapturedTus({Captured("missing-symbol", kMissingSymbol)});
  auto matrix = matrix::BuildMatrix(tus, Options({"g++-12", "clang++-14"}), {});
  worker::Worker worker(worker::WorkerOptions{.worker_executable = INDUCTOR_FUZZ_WORKER,
                                              .venv = kSourceDir / ".venv",
                                              .scratch_dir = folder_ / "worker",
                                              .log_file = folder_ / "worker.log"});
  matrix::CheckLoads(matrix, worker);
  for (const auto &build : matrix[0].builds) {
    ASSERT_TRUE(build.built) << build.first_error;
    EXPECT_NE(build.load_error.find(
                  "undefined symbol: long double const* at::TensorBase::const_data_ptr<long "
                  "double>() const"),
              std::string::npos)
        << build.load_error;
  }
  // The oracle: one load-error finding per compiler, signed by the demangled symbol.
  const auto findings = matrix::LoadErrorFindings(matrix[0]);
  ASSERT_EQ(findings.size(), 2u);
  for (const auto &finding : findings) {
    EXPECT_EQ(finding.kind, corpus::FindingKind::kLoadError);
    EXPECT_NE(corpus::Signature(finding).find("|symbol=undefined symbol: long double const* "
                                              "at::TensorBase::const_data_ptr<long double>()"),
              std::string::npos)
        << corpus::Signature(finding);
  }
}

TEST_F(MatrixTest, OppositeCxx11AbiIsExplainedInsteadOfLoaded) {
  auto tus = matrix::LoadCapturedTus({Captured("old-abi", kPortable)});
  tus[0].argv.insert(tus[0].argv.begin() + 1, "-D_GLIBCXX_USE_CXX11_ABI=0");
  EXPECT_EQ(matrix::CxxAbiOf(tus[0].argv), 0);
  EXPECT_EQ(matrix::CxxAbiOf({"g++", "-D", "_GLIBCXX_USE_CXX11_ABI=1"}), 1);
  EXPECT_EQ(matrix::CxxAbiOf({"g++", "k.cpp"}), 1);
  auto matrix = matrix::BuildMatrix(tus, Options({"g++-12"}), {});
  worker::Worker worker(worker::WorkerOptions{.worker_executable = INDUCTOR_FUZZ_WORKER,
                                              .venv = kSourceDir / ".venv",
                                              .scratch_dir = folder_ / "worker",
                                              .log_file = folder_ / "worker.log"});
  matrix::CheckLoads(matrix, worker);
  ASSERT_TRUE(matrix[0].builds[0].built);
  EXPECT_NE(matrix[0].builds[0].load_error.find(
                "ABI mismatch: built with _GLIBCXX_USE_CXX11_ABI=0 but torch uses 1"),
            std::string::npos)
      << matrix[0].builds[0].load_error;
}

TEST_F(MatrixTest, CompareClassifiesAndExitsOnRegressions) {
  Captured("gcc-only", kGccOnly);
  Captured("portable", kPortable);
  const auto report = folder_ / "report";
  const auto upgrade =
      RunInductorFuzz({"compare", "--baseline", "g++-12", "--candidate", "clang++-14", "--corpus",
                       (folder_ / "corpus").string(), "--report", report.string()});
  EXPECT_EQ(upgrade.exit_code, 1) << upgrade.out << upgrade.err;
  const auto result = corpus::ReadCompareRecord(report / "compare.json");
  std::map<std::string, std::string> verdicts;
  for (const auto &tu : result.rows)
    verdicts[tu.tu.substr(0, tu.tu.find('/'))] = corpus::VerdictName(tu.verdict);
  EXPECT_EQ(verdicts,
            (std::map<std::string, std::string>{{"gcc-only", "regression"}, {"portable", "same"}}));
  EXPECT_EQ(result.Counts(), (std::map<std::string, int>{{"regression", 1}, {"same", 1}}));
  EXPECT_EQ(result.baseline.name, "g++-12");
  EXPECT_EQ(result.candidate.name, "clang++-14");
  std::stringstream junit;
  junit << std::ifstream(report / "compare.junit.xml").rdbuf();
  EXPECT_NE(junit.str().find("failures=\"1\""), std::string::npos) << junit.str();
  EXPECT_TRUE(std::filesystem::exists(report / "compare.md"));

  const auto downgrade = RunInductorFuzz({"compare", "--baseline", "clang++-14", "--candidate",
                                          "g++-12", "--corpus", (folder_ / "corpus").string()});
  EXPECT_EQ(downgrade.exit_code, 0) << downgrade.out << downgrade.err;
  EXPECT_NE(downgrade.out.find("1 fixed, 1 same"), std::string::npos) << downgrade.out;
}

TEST_F(MatrixTest, PlantedClangOnlyResultIsARuntimeDivergenceWithItsIndex) {
  // The seed run for real, its kernel calls recorded; then one TU's stored source planted.
  const auto out = RunAndRecord(kSourceDir / "corpus/seeds/causal-151290.json", "seed");
  auto tus = matrix::LoadCapturedTus({out});
  ASSERT_GE(tus.size(), 2u);
  for (const auto &tu : tus) {
    EXPECT_FALSE(tu.recording.empty()) << tu.label << ": every Python-wrapper kernel is recorded";
    EXPECT_TRUE(std::filesystem::exists(tu.reference_module)) << tu.label;
  }
  const std::string planted = PlantClangOnlyStatement(
      support::ReadTextFile(tus[0].source, "captured source", std::size_t{1} << 24),
      "out_ptr0[5] += 3;");
  ASSERT_NE(planted.find("#ifdef __clang__"), std::string::npos);
  support::WriteFileAtomically(tus[0].source, planted);

  auto matrix = matrix::BuildMatrix(tus, Options({"g++-12", "clang++-14"}), {});
  {
    worker::Worker worker = MakeWorker();
    matrix::CheckLoads(matrix, worker);
    matrix::ReplayRecordedCalls(matrix, worker, {}, {});
  }
  for (const auto &row : matrix) {
    EXPECT_EQ(row.reference_runtime, "same") << row.tu.label << ": Inductor's build reproduces";
    for (const auto &build : row.builds)
      ASSERT_TRUE(build.built) << build.compiler << ": " << build.first_error;
  }
  const auto finding = matrix::RuntimeDivergenceFinding(matrix[0]);
  ASSERT_TRUE(finding.has_value())
      << corpus::MatrixRecordToJson(matrix::ToMatrixRecord(matrix, {})).dump(2);
  EXPECT_EQ(finding->detail["differs_on"], json::array({"clang++-14"}));
  EXPECT_EQ(finding->detail["same_as_inductor"], json::array({"g++-12"}));
  EXPECT_EQ(finding->detail["dtype"], "int32");
  EXPECT_EQ(finding->detail["flat_index"], 5);
  EXPECT_EQ(finding->detail["max_abs_error"], 3.0);
  EXPECT_EQ(finding->detail["actual"].get<double>() - finding->detail["expected"].get<double>(),
            3.0);
  EXPECT_EQ(finding->detail["mismatched_elements"], 1);
  EXPECT_NE(finding->detail["argument"].get<std::string>().find("argument 0"), std::string::npos)
      << "out_ptr0 is the kernel's first parameter";
  for (std::size_t row = 1; row < matrix.size(); ++row) {
    EXPECT_FALSE(matrix::RuntimeDivergenceFinding(matrix[row]).has_value()) << matrix[row].tu.label;
    for (const auto &build : matrix[row].builds)
      EXPECT_EQ(build.runtime, "same") << matrix[row].tu.label << " on " << build.compiler;
  }
  // The shared prefix hoists the TU's #define and #include <...> lines (the bindings' Python.h
  // too): gcc emits the very same code with it as without it.
  auto options = Options({"g++-12"});
  options.shared_prefix = false;
  options.work_dir = folder_ / "objects-without-prefix";
  const std::vector<matrix::CapturedTu> untouched(tus.begin() + 1, tus.end());
  const auto without = matrix::BuildMatrix(untouched, options, {});
  for (std::size_t row = 0; row < untouched.size(); ++row) {
    const auto &with = matrix[row + 1].builds[0];
    ASSERT_TRUE(with.used_prefix);
    ASSERT_TRUE(without[row].builds[0].built);
    const std::string text = matrix::TextSection(with.output);
    EXPECT_FALSE(text.empty());
    EXPECT_TRUE(text == matrix::TextSection(without[row].builds[0].output)) << untouched[row].label;
  }

  // The upgrade check sees the same: the planted TU differs at runtime, so exit 1.
  const auto report = folder_ / "report";
  const auto upgrade =
      RunInductorFuzz({"compare", "--baseline", "g++-12", "--candidate", "clang++-14", "--corpus",
                       (folder_ / "corpus").string(), "--report", report.string()});
  EXPECT_EQ(upgrade.exit_code, 1) << upgrade.out << upgrade.err;
  const auto result = corpus::ReadCompareRecord(report / "compare.json");
  // The others are same or new-warnings (Clang's -Wunused-function on the bindings' parse_arg).
  std::map<std::string, std::string> verdicts;
  for (const auto &tu : result.rows)
    verdicts[tu.tu] = corpus::VerdictName(tu.verdict);
  EXPECT_EQ(verdicts[matrix[0].tu.label], "runtime-differs") << upgrade.out;
  EXPECT_EQ(result.Counts()["runtime-differs"], 1) << upgrade.out;
  EXPECT_EQ(result.Counts().count("regression"), 0u) << upgrade.out;
  EXPECT_EQ(result.Regressions(), 1);
  EXPECT_NE(upgrade.out.find("runtime-divergence: seed/"), std::string::npos) << upgrade.out;
  // Clang's -Wunused-function on the bindings' parse_arg is known: no other TU changes verdict.
  EXPECT_EQ(result.Counts()["same"], static_cast<int>(result.rows.size()) - 1) << upgrade.out;
  std::stringstream markdown;
  markdown << std::ifstream(report / "compare.md").rdbuf();
  EXPECT_NE(markdown.str().find("RUNTIME runtime-divergence: seed/"), std::string::npos)
      << markdown.str();
}

// Inserts `statement` at the start of the body of the TU's first definition of `function`.
std::string PlantInBody(const std::string &source, const std::string &function,
                        const std::string &statement) {
  std::size_t definition = std::string::npos;
  for (std::size_t at = source.find("extern \"C\""); at != std::string::npos;
       at = source.find("extern \"C\"", at + 1)) {
    const std::size_t name = source.find(function + "(", at);
    const std::size_t end = source.find_first_of(";{", name);
    if (name != std::string::npos && end != std::string::npos && source[end] == '{' &&
        source.find('\n', at) >= name - 1) {
      definition = end;
      break;
    }
  }
  if (definition == std::string::npos)
    return "";
  return source.substr(0, definition + 1) + "\n" + statement + "\n" + source.substr(definition + 1);
}

TEST_F(MatrixFullTier, CompareKnowsTheBindingsWarningsReportsNewOnesAndSeesEveryKernelOfAWrapper) {
  const auto corpus_dir = folder_ / "corpus";
  // Two generated cases, run by compare itself: a cpp_wrapper create_block_mask and a Python
  // wrapper one whose mask is called twice.
  const auto generated = RunInductorFuzz({"gen", "--seed", "13", "--count", "2"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  std::filesystem::create_directories(corpus_dir);
  std::istringstream lines(generated.out);
  int cases = 0;
  for (std::string line; std::getline(lines, line); ++cases)
    support::WriteFileAtomically(corpus_dir / ("gen-13-" + std::to_string(cases) + ".json"),
                                 line + "\n");
  ASSERT_EQ(cases, 2);
  ASSERT_NE(generated.out.find("\"cpp_wrapper\":true"), std::string::npos) << generated.out;

  // The seed, with a warning g++ does not have planted in its first kernel: clang's -Wself-assign.
  const auto seed = RunAndRecord(kSourceDir / "corpus/seeds/causal-151290.json", "seed");
  const auto seed_tus = matrix::LoadCapturedTus({seed});
  ASSERT_FALSE(seed_tus.empty());
  const std::string warned = PlantInBody(
      support::ReadTextFile(seed_tus[0].source, "captured source", std::size_t{1} << 24), "kernel",
      "    { int planted = 0; planted = planted; (void)planted; }");
  ASSERT_FALSE(warned.empty());
  support::WriteFileAtomically(seed_tus[0].source, warned);

  // A user's cpp_wrapper program, captured; its first kernel writes one element of an
  // intermediate wrongly on clang only, an element the module's result does not depend on.
  const auto wrapper = corpus_dir / "wrapper";
  const auto captured = RunInductorFuzz(
      {"capture", "--out", wrapper.string(), "--", "python",
       (kSourceDir / "tests/fixtures/matrix/intermediate_unused_column.py").string()});
  ASSERT_EQ(captured.exit_code, 0) << captured.out << captured.err;
  std::optional<matrix::CapturedTu> module;
  for (const auto &tu : matrix::LoadCapturedTus({wrapper}))
    if (tu.entry == "inductor_entry_cpp")
      module = tu;
  ASSERT_TRUE(module.has_value()) << "the capture recorded the cpp_wrapper module";
  const std::string planted = PlantInBody(
      support::ReadTextFile(module->source, "captured source", std::size_t{1} << 24),
      "cpp_fused_add_mul_0", "#ifdef __clang__\n    out_ptr0[1] = out_ptr0[1] + 1.0f;\n#endif");
  ASSERT_FALSE(planted.empty());
  // At the start of the body the plant would be overwritten: move it to the end instead.
  const std::size_t body = planted.find("#ifdef __clang__");
  const std::string plant = planted.substr(body, planted.find("#endif", body) + 6 - body);
  std::string moved = planted;
  moved.erase(body, plant.size());
  moved.insert(moved.find("\n}\n", body), "\n" + plant);
  support::WriteFileAtomically(module->source, moved);

  const auto report = folder_ / "report";
  const auto run = RunInductorFuzz({"compare", "--baseline", "g++-12", "--candidate", "clang++-16",
                                    "--corpus", corpus_dir.string(), "--report", report.string()});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const auto result = corpus::ReadCompareRecord(report / "compare.json");
  std::size_t with_known = 0;
  for (const auto &row : result.rows) {
    SCOPED_TRACE(row.tu);
    with_known += !row.candidate.known_warnings.empty();
    if (row.tu == matrix::LoadCapturedTus({seed})[0].label) {
      EXPECT_EQ(corpus::VerdictName(row.verdict), "new-warnings");
      EXPECT_EQ(row.candidate.new_warnings, std::vector<std::string>{"-Wself-assign in kernel"});
    } else if (row.tu == module->label) {
      EXPECT_EQ(corpus::VerdictName(row.verdict), "runtime-differs");
      ASSERT_TRUE(row.runtime_finding.has_value());
      const json &detail = row.runtime_finding->detail;
      EXPECT_EQ(detail["kernel"], "cpp_fused_add_mul_0") << detail.dump(2);
      EXPECT_EQ(detail["inside"], true);
      EXPECT_EQ(detail["buffer"], "buf0");
      EXPECT_EQ(detail["differs_on"], json::array({"clang++-16"}));
      EXPECT_EQ(detail["reference"], "g++-12");
      EXPECT_EQ(detail["flat_index"], 1);
      EXPECT_EQ(detail["actual"].get<double>() - detail["expected"].get<double>(), 1.0);
      EXPECT_EQ(detail["mismatched_elements"], 1);
    } else {
      EXPECT_EQ(corpus::VerdictName(row.verdict), "same")
          << "new: " << (row.candidate.new_warnings.empty() ? "" : row.candidate.new_warnings[0]);
    }
  }
  EXPECT_GE(with_known, 4u) << "every TU with Python bindings has the parse_arg warning";
  EXPECT_NE(run.out.find("new warning -Wself-assign: 1 TU(s)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("kernel cpp_fused_add_mul_0"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("kernel probes s13-0/"), std::string::npos)
      << "the generated cpp_wrapper case is probed too: " << run.err;
  // What matters comes first: the runtime difference before the first row of the table.
  EXPECT_LT(run.out.find("RUNTIME runtime-divergence"), run.out.find("TU    "));
}

TEST_F(MatrixTest, FloatResultsAreComparedWithinTheirDtypeTolerance) {
  // A flex-attention kernel (float32 output), planted twice: once by one ulp-sized relative
  // step, which float32's tolerance absorbs, and once by a whole unit, which it does not.
  const auto recorded = RunAndRecord(kSourceDir / "tests/cases/flex-attention-fp32.json", "flex");
  const auto within = folder_ / "planted" / "within";
  const auto beyond = folder_ / "planted" / "beyond";
  for (const auto &copy : {within, beyond}) {
    std::filesystem::create_directories(copy.parent_path());
    std::filesystem::copy(recorded, copy, std::filesystem::copy_options::recursive);
  }
  auto tus = matrix::LoadCapturedTus({folder_ / "planted"});
  ASSERT_EQ(tus.size(), 2u);
  for (auto &tu : tus) {
    const bool is_within = tu.label.starts_with("within/");
    const std::string source =
        support::ReadTextFile(tu.source, "captured source", std::size_t{1} << 24);
    ASSERT_NE(source.find("float* output)"), std::string::npos) << "the template's entry";
    support::WriteFileAtomically(
        tu.source, PlantClangOnlyStatement(source, is_within ? "output[3] *= 1.0f + 1e-7f;"
                                                             : "output[3] += 1.0f;"));
  }
  auto matrix = matrix::BuildMatrix(tus, Options({"g++-12", "clang++-14"}), {});
  {
    worker::Worker worker = MakeWorker();
    matrix::CheckLoads(matrix, worker);
    matrix::ReplayRecordedCalls(matrix, worker, {}, {});
  }
  for (const auto &row : matrix) {
    SCOPED_TRACE(row.tu.label);
    ASSERT_EQ(row.reference_runtime, "same");
    EXPECT_EQ(row.builds[0].runtime, "same") << row.builds[0].runtime_detail.dump();
    const auto finding = matrix::RuntimeDivergenceFinding(row);
    if (row.tu.label.starts_with("within/")) {
      EXPECT_EQ(row.builds[1].runtime, "same") << row.builds[1].runtime_detail.dump();
      EXPECT_FALSE(finding.has_value());
      continue;
    }
    ASSERT_TRUE(finding.has_value())
        << corpus::MatrixRecordToJson(matrix::ToMatrixRecord(matrix, {})).dump(2);
    EXPECT_EQ(finding->detail["differs_on"], json::array({"clang++-14"}));
    EXPECT_EQ(finding->detail["dtype"], "float32");
    EXPECT_EQ(finding->detail["flat_index"], 3);
    EXPECT_NEAR(finding->detail["max_abs_error"].get<double>(), 1.0, 1e-5);
    EXPECT_EQ(finding->detail["mismatched_elements"], 1);
    EXPECT_NE(finding->detail["argument"].get<std::string>().find("argument 7"), std::string::npos)
        << "output is the template kernel's eighth parameter";
  }
}

} // namespace
} // namespace fuzzer
