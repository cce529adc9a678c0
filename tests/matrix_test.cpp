// The compiler matrix on real compilers: builds, divergence, loads against torch, compare.
#include "binary_runner.h"
#include "fuzzer/compiler_matrix.h"
#include "fuzzer/text_file.h"
#include "fuzzer/worker_client.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace fuzzer {
namespace {

using nlohmann::json;
using testing::RunInductorFuzz;

const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

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

class MatrixTest : public ::testing::Test {
protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() /
              ("inductor-fuzz-matrix-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  // A folder shaped like run-case output: sources/ and commands.json with a g++ command.
  std::filesystem::path Captured(const std::string &name, const std::string &source) {
    const auto out = folder_ / "corpus" / name;
    std::filesystem::create_directories(out / "sources");
    WriteFileAtomically(out / "sources" / "00-kernel.cpp", source);
    const json commands = json::array(
        {{{"argv",
           {"g++", "/tmp/gone/kernel.cpp", "-O2", "-std=c++20", "-shared", "-fPIC",
            "-fno-tree-loop-vectorize", "-o", "/tmp/gone/kernel.so"}},
          {"sources",
           {{{"captured_path", "/tmp/gone/kernel.cpp"}, {"stored", "sources/00-kernel.cpp"}}}}}});
    WriteFileAtomically(out / "commands.json", commands.dump());
    return out;
  }

  MatrixOptions Options(std::vector<std::string> compilers) {
    return {.compilers = DiscoverCompilers(compilers), .jobs = 2, .work_dir = folder_ / "objects"};
  }

  std::filesystem::path folder_;
};

TEST_F(MatrixTest, DivergenceNamesTheCompilersOnEachSide) {
  const auto tus =
      LoadCapturedTus({Captured("gcc-only", kGccOnly), Captured("portable", kPortable)});
  ASSERT_EQ(tus.size(), 2u);
  const auto matrix = BuildMatrix(tus, Options({"g++-12", "clang++-14", "g++-11"}), {});
  const auto &gcc_only = matrix[0].tu.label.starts_with("gcc-only") ? matrix[0] : matrix[1];
  const auto &portable = matrix[0].tu.label.starts_with("gcc-only") ? matrix[1] : matrix[0];
  const auto finding = DivergenceFinding(gcc_only);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ((*finding)["built_by"], json::array({"g++-12", "g++-11"}));
  EXPECT_EQ((*finding)["failed_on"], json::array({"clang++-14"}));
  EXPECT_NE((*finding)["signature"].get<std::string>().find("compile-error|clang|"),
            std::string::npos);
  EXPECT_FALSE(DivergenceFinding(portable).has_value());
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
  const auto tus = LoadCapturedTus({Captured("missing-symbol", kMissingSymbol)});
  auto matrix = BuildMatrix(tus, Options({"g++-12", "clang++-14"}), {});
  Worker worker(WorkerOptions{.worker_executable = INDUCTOR_FUZZ_WORKER,
                              .venv = kSourceDir / ".venv",
                              .scratch_dir = folder_ / "worker",
                              .log_file = folder_ / "worker.log"});
  CheckLoads(matrix, worker);
  for (const auto &build : matrix[0].builds) {
    ASSERT_TRUE(build.built) << build.first_error;
    EXPECT_NE(build.load_error.find(
                  "undefined symbol: long double const* at::TensorBase::const_data_ptr<long "
                  "double>() const"),
              std::string::npos)
        << build.load_error;
  }
}

TEST_F(MatrixTest, OppositeCxx11AbiIsExplainedInsteadOfLoaded) {
  auto tus = LoadCapturedTus({Captured("old-abi", kPortable)});
  tus[0].argv.insert(tus[0].argv.begin() + 1, "-D_GLIBCXX_USE_CXX11_ABI=0");
  EXPECT_EQ(CxxAbiOf(tus[0].argv), 0);
  EXPECT_EQ(CxxAbiOf({"g++", "-D", "_GLIBCXX_USE_CXX11_ABI=1"}), 1);
  EXPECT_EQ(CxxAbiOf({"g++", "k.cpp"}), 1);
  auto matrix = BuildMatrix(tus, Options({"g++-12"}), {});
  Worker worker(WorkerOptions{.worker_executable = INDUCTOR_FUZZ_WORKER,
                              .venv = kSourceDir / ".venv",
                              .scratch_dir = folder_ / "worker",
                              .log_file = folder_ / "worker.log"});
  CheckLoads(matrix, worker);
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
  const json result = json::parse(std::ifstream(report / "compare.json"));
  std::map<std::string, std::string> verdicts;
  for (const auto &tu : result["tus"])
    verdicts[tu["tu"].get<std::string>().substr(0, tu["tu"].get<std::string>().find('/'))] =
        tu["verdict"];
  EXPECT_EQ(verdicts,
            (std::map<std::string, std::string>{{"gcc-only", "regression"}, {"portable", "same"}}));
  EXPECT_EQ(result["counts"], json({{"regression", 1}, {"same", 1}}));
  std::stringstream junit;
  junit << std::ifstream(report / "compare.junit.xml").rdbuf();
  EXPECT_NE(junit.str().find("failures=\"1\""), std::string::npos) << junit.str();
  EXPECT_TRUE(std::filesystem::exists(report / "compare.md"));

  const auto downgrade = RunInductorFuzz({"compare", "--baseline", "clang++-14", "--candidate",
                                          "g++-12", "--corpus", (folder_ / "corpus").string()});
  EXPECT_EQ(downgrade.exit_code, 0) << downgrade.out << downgrade.err;
  EXPECT_NE(downgrade.out.find("1 fixed, 1 same"), std::string::npos) << downgrade.out;
}

} // namespace
} // namespace fuzzer
