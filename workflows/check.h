#pragma once

#include "support/tool_paths.h"

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace workflows {

struct CheckOptions {
  std::vector<std::filesystem::path> files;
  std::optional<std::filesystem::path> commands; // a run-case commands.json
  std::vector<std::string> compile_args;         // after `--`: the flags for every file
  bool linked = false;                           // the files are linked into one binary
  bool shadowing = true;
  bool prefix_cache = true;
  std::string format = "text"; // text, json, sarif
  std::optional<std::filesystem::path> cache_dir;
  std::vector<std::string> compilers; // also build every file on these: compiler-divergence
  bool features = false;              // also list each file's codegen features
};

// `inductor-fuzz check`: Clang analysis of generated TUs for conflicting declarations, within
// each TU and across TUs linked together. Exit 0: no finding; 1: findings; 2: could not
// analyse (throws InputError for unusable input).
int Check(const CheckOptions &options, const support::ToolPaths &paths, std::ostream &out);

// Where `check` and `reduce` keep precompiled prefixes: $XDG_CACHE_HOME or ~/.cache.
std::filesystem::path DefaultPrefixCacheDir();

} // namespace workflows
