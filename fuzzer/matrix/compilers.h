#pragma once

#include "parsers/diagnostics.h"
#include "support/shared_options.h"

#include <filesystem>
#include <string>
#include <vector>

namespace fuzzer::matrix {

// The default compiler matrix: every one of these found on PATH.
inline const std::vector<std::string> kDefaultCompilers =
    support::options::MatrixCompilers::Default();

// The family comes from parsers/, where diagnostics are read per family.
using parsers::CompilerFamily;

// A compiler of the matrix, as it describes itself (not as it is named: a custom build in
// /opt called `c++` is still recognised).
struct Compiler {
  std::string name; // as given: g++-12, /opt/gcc-15/bin/g++
  std::filesystem::path path;
  CompilerFamily family = CompilerFamily::kGcc;
  int major = 0;
  std::string version; // first line of --version (nvcc: its "Cuda compilation tools" line)
  // A sanitizer column (`matrix --sanitize`): built with -fsanitize=these, loaded only in a
  // worker with the sanitizer's runtime preloaded. Empty for a plain compiler.
  std::vector<std::string> sanitizers;
  // Appended after Inductor's flags (so they win): a floating-point pin (fp_pinning.h) or the
  // flags a compare's side is given. Empty for Inductor's command as captured.
  std::vector<std::string> extra_flags;
};

// Each requested compiler (name on PATH or path), asked for its family and version. Throws
// InputError for one that is missing or does not answer like gcc, clang or nvcc. With no request:
// the installed ones of kDefaultCompilers.
std::vector<Compiler> DiscoverCompilers(const std::vector<std::string> &requested);
Compiler DescribeCompiler(const std::string &name_or_path);

} // namespace fuzzer::matrix
