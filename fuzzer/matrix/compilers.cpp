#include "fuzzer/matrix/compilers.h"

#include "support/child_process.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <regex>

namespace fuzzer::matrix {

Compiler DescribeCompiler(const std::string &name_or_path) {
  std::optional<std::filesystem::path> path;
  if (name_or_path.find('/') != std::string::npos) {
    if (::access(name_or_path.c_str(), X_OK) == 0)
      path = std::filesystem::absolute(name_or_path);
  } else {
    path = support::FindOnPath(name_or_path);
  }
  if (!path)
    throw support::InputError(
        fmt::format("compiler {} was not found; install it (scripts/setup installs "
                    "the default matrix) or give its path",
                    name_or_path));
  const auto answer =
      support::RunCommand({path->string(), "--version"}, {}, std::chrono::seconds(30));
  const std::string first = answer.output.substr(0, answer.output.find('\n'));
  Compiler compiler{.name = name_or_path, .path = *path, .version = first};
  static const std::regex clang_version(R"(clang version (\d+))");
  static const std::regex gcc_version(R"(^(?:g\+\+|c\+\+|gcc)\b.*\) (\d+)\.)");
  // nvcc's first line only names the driver; the release is on a later one.
  static const std::regex nvcc_version(R"(Cuda compilation tools, release (\d+)\.[^\n]*)");
  std::smatch match;
  if (std::regex_search(answer.output, match, nvcc_version)) {
    compiler.family = CompilerFamily::kNvcc;
    compiler.major = std::stoi(match[1]);
    compiler.version = match[0];
  } else if (std::regex_search(answer.output, match, clang_version)) {
    compiler.family = CompilerFamily::kClang;
    compiler.major = std::stoi(match[1]);
  } else if (std::regex_search(first, match, gcc_version) ||
             answer.output.find("Free Software Foundation") != std::string::npos) {
    compiler.family = CompilerFamily::kGcc;
    const auto dumped =
        support::RunCommand({path->string(), "-dumpversion"}, {}, std::chrono::seconds(30));
    compiler.major = std::atoi(dumped.output.c_str());
  } else {
    throw support::InputError(
        fmt::format("{} does not answer --version like gcc, clang or nvcc ({})", name_or_path,
                    first.empty() ? "no output" : first));
  }
  return compiler;
}

std::vector<Compiler> DiscoverCompilers(const std::vector<std::string> &requested) {
  std::vector<Compiler> compilers;
  if (requested.empty()) {
    for (const auto &name : kDefaultCompilers)
      if (support::FindOnPath(name))
        compilers.push_back(DescribeCompiler(name));
    if (compilers.empty())
      throw support::InputError("none of the default compilers is installed; run scripts/setup");
    return compilers;
  }
  for (const auto &name : requested)
    compilers.push_back(DescribeCompiler(name));
  return compilers;
}

} // namespace fuzzer::matrix
