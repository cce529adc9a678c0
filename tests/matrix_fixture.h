#pragma once

// The matrix tests' shared fixture: a scratch folder shaped like run-case output, a worker, and
// `compare` of g++-12 against clang++-19; and the plants that make a captured TU's result depend
// on the compiler (matrix_test.cpp, matrix_rounding_test.cpp).
#include "binary_runner.h"
#include "corpus/case.h"
#include "corpus/matrix_record.h"
#include "corpus/run_record.h"
#include "fuzzer/matrix/compiler_matrix.h"
#include "fuzzer/matrix/fp_pinning.h"
#include "fuzzer/matrix/records.h"
#include "fuzzer/matrix/runtime_differential.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>

namespace fuzzer::matrix_testing {

using nlohmann::json;
using test_support::RunInductorFuzz;

inline const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

// The TU's entry `kernel`, renamed `kernel_unplanted`, and a new `kernel` before the Python
// bindings whose body `body` writes given the entry's parameters and their names in order.
inline std::string
PlantNewEntry(const std::string &source,
              const std::function<std::string(const std::vector<std::string> &arguments)> &body) {
  const std::size_t name = source.find("kernel(", source.find("extern \"C\""));
  const std::size_t close = source.find(')', name);
  const std::size_t bindings = source.find("// Python bindings to call kernel()");
  if (name == std::string::npos || close == std::string::npos || bindings == std::string::npos)
    return "";
  const std::string parameters = source.substr(name + 7, close - name - 7);
  std::vector<std::string> arguments;
  for (std::size_t start = 0; start < parameters.size();) {
    std::size_t end = parameters.find(',', start);
    if (end == std::string::npos)
      end = parameters.size();
    const std::string parameter = parameters.substr(start, end - start);
    const std::size_t last = parameter.find_last_not_of(" \n");
    const std::size_t first = parameter.find_last_of(" *", last) + 1;
    arguments.push_back(parameter.substr(first, last + 1 - first));
    start = end + 1;
  }
  std::string planted_source = source.substr(0, bindings) + "extern \"C\" void kernel(" +
                               parameters + ") {\n" + body(arguments) + "}\n" +
                               source.substr(bindings);
  return planted_source.replace(name, 7, "kernel_unplanted(");
}

// The entry runs as Inductor built it and then, on Clang only, runs `planted`: a result that
// depends on the compiler.
inline std::string PlantClangOnlyStatement(const std::string &source, const std::string &planted) {
  return PlantNewEntry(source, [&](const std::vector<std::string> &arguments) {
    return fmt::format("  kernel_unplanted({});\n#ifdef __clang__\n  {}\n#endif\n",
                       fmt::join(arguments, ", "), planted);
  });
}

// On Clang only, the entry is called with the arguments `first` and `second` swapped: the
// argument-order miscompile.
inline std::string PlantClangOnlyArgumentSwap(const std::string &source, const std::string &first,
                                              const std::string &second) {
  return PlantNewEntry(source, [&](const std::vector<std::string> &arguments) {
    std::vector<std::string> swapped = arguments;
    const auto a = std::find(swapped.begin(), swapped.end(), first);
    const auto b = std::find(swapped.begin(), swapped.end(), second);
    if (a == swapped.end() || b == swapped.end())
      return std::string("#error the arguments to swap are not the entry's\n");
    std::iter_swap(a, b);
    return fmt::format("#ifdef __clang__\n  kernel_unplanted({});\n#else\n  "
                       "kernel_unplanted({});\n#endif\n",
                       fmt::join(swapped, ", "), fmt::join(arguments, ", "));
  });
}

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
    support::WriteFileAtomically(out / "sources" / "00-kernel.cpp", source);
    const json commands = json::array(
        {{{"argv",
           {"g++", "/tmp/gone/kernel.cpp", "-O2", "-std=c++20", "-shared", "-fPIC",
            "-fno-tree-loop-vectorize", "-o", "/tmp/gone/kernel.so"}},
          {"sources",
           {{{"captured_path", "/tmp/gone/kernel.cpp"}, {"stored", "sources/00-kernel.cpp"}}}}}});
    support::WriteFileAtomically(out / "commands.json", commands.dump());
    return out;
  }

  worker::Worker MakeWorker() {
    return worker::Worker(worker::WorkerOptions{.worker_executable = INDUCTOR_FUZZ_WORKER,
                                                .venv = kSourceDir / ".venv",
                                                .scratch_dir = folder_ / "worker",
                                                .log_file = folder_ / "worker.log"});
  }

  // Runs the case in a worker as run-case does, recording its kernel calls.
  std::filesystem::path RunAndRecord(const std::filesystem::path &case_file,
                                     const std::string &name) {
    const corpus::Case c = corpus::LoadCaseFile(case_file);
    const auto out = folder_ / "corpus" / name;
    worker::Worker worker = MakeWorker();
    const auto outcome =
        worker::RunCaseOnWorker(worker, c, out / "inductor-cache", std::chrono::minutes(10),
                                {.record_dir = out / "recordings"});
    EXPECT_EQ(outcome.Status(), "pass") << outcome.result.dump(2);
    corpus::WriteRunRecord(out, c, {outcome.status, outcome.finding, outcome.result}, {});
    return out;
  }

  // `compare --baseline g++-12 --candidate clang++-19` over the test's corpus, its report in
  // folder_/report, and the compare.json it wrote (empty rows when it wrote none).
  std::pair<test_support::BinaryRun, corpus::CompareRecord>
  CompareGccToClang19(const std::string &report, const std::vector<std::string> &extra = {}) {
    std::vector<std::string> arguments = {"compare",
                                          "--baseline",
                                          "g++-12",
                                          "--candidate",
                                          "clang++-19",
                                          "--corpus",
                                          (folder_ / "corpus").string(),
                                          "--report",
                                          (folder_ / report).string()};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    auto run = RunInductorFuzz(arguments);
    const auto written = folder_ / report / "compare.json";
    return {std::move(run), std::filesystem::exists(written) ? corpus::ReadCompareRecord(written)
                                                             : corpus::CompareRecord{}};
  }

  // `capture` of tests/fixtures/capture/cancelling_attention.py into folder_/corpus/program,
  // with the float64 reference of its graph's output.
  std::filesystem::path CaptureCancellingAttention() {
    const auto program = folder_ / "corpus" / "program";
    const auto capture =
        RunInductorFuzz({"capture", "--out", program.string(), "--", "python",
                         (kSourceDir / "tests/fixtures/capture/cancelling_attention.py").string()});
    EXPECT_EQ(capture.exit_code, 0) << capture.out << capture.err;
    EXPECT_NE(capture.out.find("1 graph output(s) with a float64 reference"), std::string::npos)
        << capture.out;
    EXPECT_TRUE(std::filesystem::exists(program / "recordings" / "reference.pt"));
    return program;
  }

  // The row of the attention kernel: the one judged against the graph's float64 reference.
  static std::vector<corpus::CompareRow>::const_iterator
  AttentionRow(const corpus::CompareRecord &record) {
    return std::find_if(record.rows.begin(), record.rows.end(), [](const corpus::CompareRow &row) {
      return row.baseline.float64_reference.is_object();
    });
  }

  matrix::MatrixOptions Options(std::vector<std::string> compilers) {
    return {.compilers = matrix::DiscoverCompilers(compilers),
            .jobs = 2,
            .work_dir = folder_ / "objects"};
  }

  std::filesystem::path folder_;
};

// `scripts/test --full` only (tests/CMakeLists.txt).
class MatrixFullTier : public MatrixTest {};

} // namespace fuzzer::matrix_testing
