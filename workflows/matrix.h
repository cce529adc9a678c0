#pragma once

#include "support/shared_options.h"
#include "support/tool_paths.h"

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace workflows {

struct MatrixCommandOptions {
  std::vector<std::filesystem::path> inputs; // run-case output folders, or folders of them
  std::vector<std::string> compilers;        // empty: the default matrix
  unsigned jobs = 2;
  long timeout_seconds = 600;
  bool kernel_probes = true; // also compare each kernel inside cpp_wrapper modules
  std::optional<std::filesystem::path> json_out;
  std::string sanitize; // "address,undefined": add a sanitizer column
  // The g++ or clang++ of that column.
  std::string sanitize_compiler = support::options::SanitizeCompiler::Default();
  std::string command_line; // recorded in the JSON report
};

// `inductor-fuzz matrix`: every captured TU on every compiler, then loaded against torch.
// Exit 0: all agree and load; 1: compiler-divergence or load-error findings.
int Matrix(const MatrixCommandOptions &options, const support::ToolPaths &paths, std::ostream &out);

} // namespace workflows
