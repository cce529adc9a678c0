// The plain `clang++-19 -fsyntax-only` command of every TU a run-case captured, with the TU's own
// flags translated as `check --commands` translates them (parsers::TranslateForClang), for
// bench/check_matches_clang.sh. Besides those flags it adds only what makes the comparison
// fair: every error (-ferror-limit=0), messages without the flag suffix, and the omp.h the
// analysis is given too (gcc's own is not on Clang's path).
// Usage: build/bench_plain_clang_command COMMANDS_JSON
// Prints one JSON line per captured source: {"source": stored path, "argv": [...]}.
#include "corpus/run_record.h"
#include "parsers/clang_analysis.h"
#include "parsers/flag_translation.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <exception>

int main(int argc, char **argv) {
  if (argc != 2) {
    fmt::print(stderr, "usage: bench_plain_clang_command COMMANDS_JSON\n");
    return 2;
  }
  try {
    for (const auto &command : corpus::ReadCommandsFile(argv[1]))
      for (const auto &source : command.sources) {
        std::vector<std::string> plain = {"clang++-19",
                                          "-fsyntax-only",
                                          "-ferror-limit=0",
                                          "-fno-caret-diagnostics",
                                          "-fno-diagnostics-show-option",
                                          "-isystem",
                                          parsers::OmpIncludeDirectory()};
        const auto args = parsers::TranslateForClang(command.argv).clang_args;
        plain.insert(plain.end(), args.begin(), args.end());
        plain.push_back(source.stored.string());
        fmt::print("{}\n",
                   nlohmann::json{{"source", source.stored.string()}, {"argv", plain}}.dump());
      }
  } catch (const std::exception &error) {
    fmt::print(stderr, "bench_plain_clang_command: {}\n", error.what());
    return 2;
  }
  return 0;
}
