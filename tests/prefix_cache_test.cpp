// Precompiled prefixes kept across matrices (fuzzer/matrix/prefix_cache.h), on real g++ and
// clang++: made once, reused by a later matrix with the same code emitted, made again when a
// header changes, and a prefix a compiler refuses never turns into a compile error.
#include "fuzzer/matrix/prefix_cache.h"
#include "matrix_fixture.h"
#include "support/child_process.h"

namespace fuzzer {
namespace {

using namespace matrix_testing;

constexpr const char *kWithHeaders = R"(#include <cstdint>
#include <vector>
#include <algorithm>
extern "C" void kernel(const float* in_ptr0, float* out_ptr0, int64_t n) {
  std::vector<float> values(in_ptr0, in_ptr0 + n);
  std::sort(values.begin(), values.end());
  for (int64_t i = 0; i < n; ++i) out_ptr0[i] = values[i] * 2.0f;
}
)";

class PrefixCacheTest : public MatrixTest {
protected:
  matrix::MatrixOptions Kept(matrix::PrefixCache &cache, const std::string &objects) {
    auto options = Options({"g++-12", "clang++-19"});
    options.work_dir = folder_ / objects;
    options.prefix_cache = &cache;
    options.kernel_probes = false;
    return options;
  }
};

TEST(PrefixCacheRules, DependenciesOfReadsAMakeRule) {
  const auto files = matrix::DependenciesOf("/p/prefix.h.gch: /p/prefix.h \\\n /usr/include/a.h "
                                            "/opt/with\\ space.h\\\n /b.h\n");
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0], "/p/prefix.h");
  EXPECT_EQ(files[1], "/usr/include/a.h");
  EXPECT_EQ(files[2], "/opt/with space.h");
  EXPECT_EQ(files[3], "/b.h");
  EXPECT_TRUE(matrix::DependenciesOf("").empty());
}

TEST_F(PrefixCacheTest, ALaterMatrixReusesThePrefixesAndEmitsTheSameCode) {
  const auto tus = matrix::LoadCapturedTus({Captured("sorting", kWithHeaders)});
  matrix::PrefixCache cache(folder_ / "prefixes");
  const auto first = matrix::BuildMatrix(tus, Kept(cache, "first"), {});
  EXPECT_EQ(cache.Made(), 2u) << "one prefix per compiler";
  const auto second = matrix::BuildMatrix(tus, Kept(cache, "second"), {});
  EXPECT_EQ(cache.Made(), 2u);
  EXPECT_EQ(cache.Reused(), 2u);
  const auto plain = matrix::BuildMatrix(tus, Options({"g++-12", "clang++-19"}), {});
  for (std::size_t column = 0; column < 2; ++column) {
    const auto &kept = second[0].builds[column];
    ASSERT_TRUE(kept.built) << kept.compiler << ": " << kept.first_error;
    EXPECT_TRUE(kept.used_prefix) << kept.compiler;
    EXPECT_TRUE(first[0].builds[column].used_prefix) << kept.compiler;
    EXPECT_EQ(matrix::TextSection(kept.output), matrix::TextSection(first[0].builds[column].output))
        << kept.compiler;
    EXPECT_FALSE(matrix::TextSection(kept.output).empty());
  }
  EXPECT_EQ(matrix::TextSection(second[0].builds[0].output),
            matrix::TextSection(plain[0].builds[0].output))
      << "g++ emits the same code with the kept prefix as with the matrix's own";
}

TEST_F(PrefixCacheTest, APrefixTheCompilerRefusesIsBuiltWithoutIt) {
  const auto tus = matrix::LoadCapturedTus({Captured("sorting", kWithHeaders)});
  matrix::PrefixCache cache(folder_ / "prefixes");
  matrix::BuildMatrix(tus, Kept(cache, "first"), {});
  std::size_t corrupted = 0;
  for (const auto &file : std::filesystem::recursive_directory_iterator(folder_ / "prefixes"))
    if (file.path().extension() == ".pch" || file.path().extension() == ".gch") {
      // Same size and time, so that the headers' check passes: only the compiler can tell.
      const auto size = file.file_size();
      const auto time = std::filesystem::last_write_time(file.path());
      std::ofstream(file.path(), std::ios::binary) << std::string(size, 'x');
      std::filesystem::last_write_time(file.path(), time);
      ++corrupted;
    }
  ASSERT_EQ(corrupted, 2u);
  const auto second = matrix::BuildMatrix(tus, Kept(cache, "second"), {});
  for (const auto &build : second[0].builds) {
    EXPECT_TRUE(build.built) << build.compiler << ": " << build.first_error;
    EXPECT_TRUE(build.first_error.empty()) << build.first_error;
  }
  EXPECT_FALSE(second[0].builds[1].used_prefix) << "Clang refuses it: built by the exact command";
  EXPECT_FALSE(matrix::DivergenceFinding(second[0]).has_value());
}

TEST_F(PrefixCacheTest, AHeaderChangedSinceItWasMadeMakesItAgain) {
  const auto include = folder_ / "include";
  std::filesystem::create_directories(include);
  support::WriteFileAtomically(include / "mine.h", "inline int mine() { return 1; }\n");
  matrix::PrefixCache cache(folder_ / "prefixes");
  const auto make = [&](const parsers::PrecompiledPrefix &prefix,
                        const std::filesystem::path &dependencies) {
    const auto run = support::RunCommand({"g++-12", "-x", "c++-header", "-I", include.string(),
                                          prefix.header.string(), "-o", prefix.precompiled.string(),
                                          "-MD", "-MF", dependencies.string()},
                                         {}, std::chrono::seconds(120));
    return run.status.Succeeded();
  };
  const auto get = [&] {
    return cache.Get("key", "#include <mine.h>\n", parsers::CompilerFamily::kGcc, make);
  };
  ASSERT_TRUE(get());
  ASSERT_TRUE(get());
  EXPECT_EQ(cache.Made(), 1u);
  EXPECT_EQ(cache.Reused(), 1u);
  support::WriteFileAtomically(include / "mine.h", "inline int mine() { return 22; }\n");
  ASSERT_TRUE(get());
  EXPECT_EQ(cache.Made(), 2u) << "mine.h changed: the prefix is made again";
  const auto failing = [](const parsers::PrecompiledPrefix &, const std::filesystem::path &) {
    return false;
  };
  EXPECT_FALSE(cache.Get("other", "#include <mine.h>\n", parsers::CompilerFamily::kGcc, failing));
  EXPECT_FALSE(cache.Get("other", "#include <mine.h>\n", parsers::CompilerFamily::kGcc, make))
      << "a prefix that failed once is not tried again";
}

} // namespace
} // namespace fuzzer
