// Matrix rebuild time of captured TUs with and without the shared precompiled prefix, per
// compiler, side by side in one run (one build at a time, so the two are comparable).
// Usage: build/bench_matrix_prefix [--compilers=g++-12,clang++-16] RUN_CASE_OUTPUT_DIR...
#include "fuzzer/matrix/compiler_matrix.h"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <sstream>
#include <unistd.h>

int main(int argc, char **argv) {
  std::vector<std::string> compilers = {"g++-12", "clang++-16"};
  std::vector<std::filesystem::path> folders;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument.starts_with("--compilers=")) {
      compilers.clear();
      std::stringstream list(argument.substr(12));
      for (std::string name; std::getline(list, name, ',');)
        compilers.push_back(name);
    } else {
      folders.push_back(argument);
    }
  }
  const auto tus = fuzzer::matrix::LoadCapturedTus(folders);
  if (tus.empty()) {
    fmt::print(stderr, "usage: bench_matrix_prefix [--compilers=A,B] RUN_CASE_OUTPUT_DIR...\n");
    return 2;
  }
  const auto scratch = std::filesystem::temp_directory_path() /
                       fmt::format("inductor-fuzz-bench-matrix-{}", ::getpid());
  fuzzer::matrix::MatrixOptions options{.compilers = fuzzer::matrix::DiscoverCompilers(compilers),
                                        .jobs = 1,
                                        .work_dir = scratch / "without"};
  options.shared_prefix = false;
  const auto without = fuzzer::matrix::BuildMatrix(tus, options, {});
  options.shared_prefix = true;
  options.work_dir = scratch / "with";
  const auto started = std::chrono::steady_clock::now();
  const auto with = fuzzer::matrix::BuildMatrix(tus, options, {});
  const double with_wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  fmt::print("{} TUs, one build at a time\n", tus.size());
  fmt::print("{:<12} {:>12} {:>12} {:>8} {:>10}\n", "compiler", "without s", "with s", "with %",
             "built w/o");
  double with_builds = 0;
  for (std::size_t column = 0; column < options.compilers.size(); ++column) {
    double seconds_without = 0, seconds_with = 0;
    int built_without = 0, built_with = 0, used = 0, same_text = 0;
    for (std::size_t row = 0; row < tus.size(); ++row) {
      seconds_without += without[row].builds[column].seconds;
      seconds_with += with[row].builds[column].seconds;
      built_without += without[row].builds[column].built;
      built_with += with[row].builds[column].built;
      used += with[row].builds[column].used_prefix;
      if (with[row].builds[column].built && without[row].builds[column].built) {
        const std::string text = fuzzer::matrix::TextSection(with[row].builds[column].output);
        same_text += !text.empty() &&
                     text == fuzzer::matrix::TextSection(without[row].builds[column].output);
      }
    }
    with_builds += seconds_with;
    fmt::print("{:<12} {:>12.1f} {:>12.1f} {:>7.1f}% {:>5}/{:<4} ({} with prefix built, {} used "
               "it, {} with the same .text)\n",
               options.compilers[column].name, seconds_without, seconds_with,
               100 * seconds_with / seconds_without, built_without, tus.size(), built_with, used,
               same_text);
  }
  fmt::print("building the prefixes once: {:.1f} s (goal: with at most 30% of without)\n",
             with_wall - with_builds);
  std::filesystem::remove_all(scratch);
  return 0;
}
