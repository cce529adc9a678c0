#pragma once

#include "fuzzer/tool_paths.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace fuzzer {

// The default compiler matrix: every one of these found on PATH.
inline const std::vector<std::string> kDefaultCompilers = {
    "g++-11", "g++-12", "clang++-14", "clang++-15", "clang++-16", "clang++-19"};

struct DoctorOptions {
  bool json = false;
  std::vector<std::string> compilers = kDefaultCompilers;
};

// `inductor-fuzz doctor`: 0 when everything needed works, 2 with one line per problem
// saying what is wrong and how to fix it.
int DoctorCommand(const DoctorOptions &options, const ToolPaths &paths, std::ostream &out);

} // namespace fuzzer
