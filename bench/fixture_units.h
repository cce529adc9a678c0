// The analysis fixtures as benches read them: each TU with the flags its `// FLAGS:` line gives
// (torch's include folder filled in), or `-std=c++20 -I include` like the fixture suite.
#pragma once

#include "parsers/flag_translation.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace bench {

struct FixtureUnit {
  std::filesystem::path source;
  std::vector<std::string> args;
};

inline const std::filesystem::path kFixtureDir =
    std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) / "tests/fixtures/analysis";

inline std::vector<std::string> FixtureArguments(const std::filesystem::path &source) {
  static const std::regex flags_line(R"(//\s*FLAGS:\s*(.*))");
  const auto torch = std::filesystem::path(INDUCTOR_FUZZ_SOURCE_DIR) /
                     ".venv/lib/python3.11/site-packages/torch/include";
  std::string flags = "-std=c++20";
  std::ifstream in(source);
  std::smatch match;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, match, flags_line)) {
      flags = match[1].str();
      if (flags == "inductor") { // the flags of a real Inductor compile, kept beside the fixtures
        std::stringstream captured;
        captured << std::ifstream(kFixtureDir / "inductor_flags.txt").rdbuf();
        flags = captured.str();
      }
      flags = std::regex_replace(flags, std::regex(R"(\$\{TORCH\})"), torch.string());
      break;
    }
  std::vector<std::string> argv = {"c++"};
  std::istringstream words(flags);
  for (std::string word; words >> word;)
    argv.push_back(word);
  auto args = parsers::TranslateForClang(argv).clang_args;
  args.insert(args.end(), {"-I", (kFixtureDir / "include").string()});
  return args;
}

// The fixtures of one folder (broken, clean) whose file name starts with `prefix`, sorted: the
// C++ ones, and the CUDA ones (.cu) too when asked.
inline std::vector<FixtureUnit>
FixtureUnits(const std::string &folder, const std::string &prefix = "", bool with_cuda = false) {
  std::vector<FixtureUnit> units;
  for (const auto &entry : std::filesystem::directory_iterator(kFixtureDir / folder))
    if ((entry.path().extension() == ".cpp" || (with_cuda && entry.path().extension() == ".cu")) &&
        entry.path().filename().string().starts_with(prefix))
      units.push_back({entry.path(), FixtureArguments(entry.path())});
  std::sort(units.begin(), units.end(),
            [](const FixtureUnit &a, const FixtureUnit &b) { return a.source < b.source; });
  return units;
}

} // namespace bench
