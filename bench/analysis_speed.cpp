// Warm Clang analysis (precompiled prefix already built, every implicit instantiation kept)
// against a cold `clang++-19 -fsyntax-only` of the same TU with the same flags, side by side.
// Usage: build/bench_analysis_speed [RUN_CASE_OUTPUT_DIR...]   (each with commands.json)
// Without folders: the TUs captured from Inductor in tests/fixtures/analysis/clean.
#include "bench/fixture_units.h"
#include "parsers/clang_analysis.h"
#include "parsers/flag_translation.h"
#include "support/child_process.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <unistd.h>

using Unit = bench::FixtureUnit;

int main(int argc, char **argv) {
  std::vector<Unit> units;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path folder = argv[i];
    const auto file = nlohmann::json::parse(std::ifstream(folder / "commands.json"));
    const auto &commands = file.is_object() ? file["commands"] : file; // format 2, or 1
    for (const auto &command : commands)
      for (const auto &source : command["sources"])
        units.push_back({folder / source["stored"].get<std::string>(),
                         parsers::TranslateForClang(command["argv"]).clang_args});
  }
  if (argc == 1)
    units = bench::FixtureUnits("clean", "inductor_");
  if (units.size() < 1) {
    fmt::print(stderr, "usage: bench_analysis_speed RUN_CASE_OUTPUT_DIR...\n");
    return 2;
  }
  const auto cache = std::filesystem::temp_directory_path() /
                     fmt::format("inductor-fuzz-bench-prefixes-{}", ::getpid());
  parsers::Analyzer analyzer({.prefix_cache_dir = cache});
  double first_total = 0;
  for (const auto &unit : units) // builds the precompiled prefixes: the one-off cost
    first_total += analyzer.Analyze({.path = unit.source, .clang_args = unit.args}).seconds;

  fmt::print("{:<64} {:>9} {:>9} {:>7}\n", "TU", "cold s", "warm s", "warm %");
  double cold_total = 0, warm_total = 0;
  for (const auto &unit : units) {
    std::vector<std::string> cold = {"clang++-19", "-fsyntax-only", "-Wno-unknown-pragmas",
                                     "-isystem", parsers::OmpIncludeDirectory()};
    cold.insert(cold.end(), unit.args.begin(), unit.args.end());
    cold.push_back(unit.source.string());
    const auto cold_run = support::RunCommand(cold, {}, std::chrono::minutes(5));
    const auto warm = analyzer.Analyze({.path = unit.source, .clang_args = unit.args});
    cold_total += cold_run.seconds;
    warm_total += warm.seconds;
    fmt::print("{:<64} {:>9.3f} {:>9.3f} {:>6.1f}%{}\n",
               unit.source.parent_path().parent_path().filename().string() + "/" +
                   unit.source.filename().string().substr(0, 40),
               cold_run.seconds, warm.seconds, 100 * warm.seconds / cold_run.seconds,
               cold_run.status.Succeeded() && warm.fatal_errors.empty() ? "" : "  (errors)");
  }
  fmt::print("{} TUs: cold clang++-19 {:.2f} s, warm analysis {:.2f} s: warm is {:.1f}% of cold "
             "(goal: at most 10%); first analysis, building prefixes: {:.2f} s\n",
             units.size(), cold_total, warm_total, 100 * warm_total / cold_total, first_total);
  std::filesystem::remove_all(cache);
  return 0;
}
