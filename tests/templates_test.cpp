// The templates the workflows write files from (workflows/templates/*.tmpl, compiled in): each
// fills, a hole left or a value without a hole is an error, and what they make runs: a matrix
// finding's repro.sh built by two real compilers, and a kernel's main compiled and run.
#include "workflows/reduce_matrix.h"
#include "workflows/templates.h"

#include "support/child_process.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace workflows {
namespace {

namespace fs = std::filesystem;

TEST(Templates, FillEveryHoleOnceAndNothingElse) {
  const std::string text = "a @ONE@ b @TWO@ c @ONE@\n";
  EXPECT_EQ(support::FillTemplate(text, {{"ONE", "1"}, {"TWO", "@ONE@"}}), "a 1 b @ONE@ c 1\n");
  EXPECT_THROW(support::FillTemplate(text, {{"ONE", "1"}}), std::logic_error);
  EXPECT_THROW(support::FillTemplate(text, {{"ONE", "1"}, {"TWO", "2"}, {"THREE", "3"}}),
               std::logic_error);
  EXPECT_THROW(Template("no-such.tmpl"), std::invalid_argument);
  for (const auto *name : {"matrix_repro.sh.tmpl", "matrix_replay.sh.tmpl", "kernel_main.cpp.tmpl"})
    EXPECT_FALSE(Template(name).empty()) << name;
}

corpus::BuildRecord Build(const std::string &compiler, const fs::path &tu) {
  return {.compiler = compiler,
          .argv = {compiler, "-shared", "-fPIC", "-O1", tu.string(), "-o", "/nonexistent/tu.so"},
          .built = true};
}

support::CommandResult Sh(const fs::path &script) {
  return support::RunCommand({"sh", script.string()}, {}, std::chrono::seconds(300));
}

TEST(Templates, AMatrixReproScriptBuildsWithEachCompilerAndSaysWhetherTheyAgree) {
  const support::ScratchDir scratch("templates-test");
  corpus::MatrixRow row{.tu = "kernel-tu"};
  row.builds = {Build("g++-12", scratch / "original.cpp"),
                Build("clang++-19", scratch / "original.cpp")};
  const fs::path script = scratch / "repro.sh";
  std::ofstream(script) << MatrixReproScript(row, false, "compiler-divergence|x", "python3");
  EXPECT_EQ(support::RunCommand({"sh", "-n", script.string()}, {}, std::chrono::seconds(30))
                .status.Succeeded(),
            true);

  std::ofstream(scratch / "kernel.cpp") << "extern \"C\" void kernel(float *p) { p[0] = 1; }\n";
  const auto agree = Sh(script);
  EXPECT_TRUE(agree.status.Succeeded()) << agree.output;
  EXPECT_NE(agree.output.find("g++-12: builds"), std::string::npos) << agree.output;
  EXPECT_NE(agree.output.find("the compilers agree"), std::string::npos) << agree.output;

  std::ofstream(scratch / "kernel.cpp", std::ios::trunc)
      << "#ifdef __clang__\n#error only gcc\n#endif\nextern \"C\" void kernel() {}\n";
  const auto disagree = Sh(script);
  EXPECT_FALSE(disagree.status.Succeeded()) << disagree.output;
  EXPECT_NE(disagree.output.find("clang++-19: does not build"), std::string::npos)
      << disagree.output;
  EXPECT_NE(disagree.output.find("the compilers disagree"), std::string::npos) << disagree.output;

  const std::string with_replay =
      MatrixReproScript(row, true, "runtime-divergence|x", "/venv/python");
  EXPECT_NE(with_replay.find("/venv/python - \"$1\" \"$dir/calls.pt\" <<'EOF'"), std::string::npos)
      << with_replay;
  EXPECT_NE(with_replay.find("kernel_replay.replay("), std::string::npos);
}

TEST(Templates, AKernelMainRunsTheRecordedCallAndPrintsItsTensors) {
  const support::ScratchDir scratch("templates-test");
  const float storage[] = {1, 2, 3, 4};
  std::ofstream(scratch / "storage-0.bin", std::ios::binary)
      .write(reinterpret_cast<const char *>(storage), sizeof storage);
  const nlohmann::json call = {
      {"entry", "kernel"},
      {"storages", 1},
      {"args",
       {{{"kind", "tensor"}, {"storage", 0}, {"offset", 0}, {"itemsize", 4}, {"dtype", "float32"}},
        {{"kind", "int"}, {"value", 3}}}}};
  const fs::path program = scratch / "program.cpp";
  std::ofstream(program) << "extern \"C\" void kernel(float *p, long long n) {\n"
                            "  for (long long i = 0; i < n; ++i) p[i] *= 2;\n}\n"
                         << KernelMain(call, scratch.path());
  const auto built = support::RunCommand(
      {"g++-12", "-std=c++17", program.string(), "-o", (scratch / "program").string()}, {},
      std::chrono::seconds(300));
  ASSERT_TRUE(built.status.Succeeded()) << built.output;
  const auto ran =
      support::RunCommand({(scratch / "program").string()}, {}, std::chrono::seconds(60));
  ASSERT_TRUE(ran.status.Succeeded()) << ran.output;
  EXPECT_NE(ran.output.find("argument 0: storage 0 hash "), std::string::npos) << ran.output;
  EXPECT_NE(ran.output.find(": 2 4 6 4\n"), std::string::npos) << ran.output;
}

} // namespace
} // namespace workflows
