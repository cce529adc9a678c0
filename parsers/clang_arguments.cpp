// The command line every analysis parses with: Clang's own resource dir and an omp.h, and for a
// .cu the CUDA toolkit found as torch finds it. Apart from the parse (clang_analysis.cpp): no
// LLVM here, only the paths CMake gives (parsers/CMakeLists.txt).
#include "parsers/clang_analysis.h"

#include "parsers/flag_translation.h"
#include "support/child_process.h"
#include "support/errors.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace parsers {

std::vector<std::string> AnalysisBaseArguments(bool report_shadowing,
                                               const std::filesystem::path &source) {
  std::vector<std::string> arguments = {"-fsyntax-only",
                                        "-ferror-limit=0",
                                        "-fno-caret-diagnostics",
                                        "-resource-dir=" INDUCTOR_FUZZ_CLANG_RESOURCE_DIR,
                                        "-isystem",
                                        INDUCTOR_FUZZ_OMP_INCLUDE_DIR,
                                        "-Wno-unknown-pragmas"};
  if (report_shadowing)
    arguments.push_back("-Wshadow");
  if (IsCudaSource(source.string())) {
    std::string looked_at;
    const auto cuda = FindCudaInstallation(&looked_at);
    if (cuda.empty())
      throw support::InputError(fmt::format(
          "{} is CUDA, but no CUDA installation was found ({}); install the CUDA toolkit or set "
          "CUDA_HOME to it",
          source.string(), looked_at));
    const auto cuda_arguments = CudaArguments(cuda);
    arguments.insert(arguments.end(), cuda_arguments.begin(), cuda_arguments.end());
  }
  return arguments;
}

std::filesystem::path FindCudaInstallation(std::string *looked_at) {
  std::filesystem::path candidate;
  std::string missing; // what to say when the candidate is no installation
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(variable); candidate.empty() && value && *value) {
      candidate = value;
      missing = fmt::format("${} is {}, which has no include/cuda_runtime.h", variable, value);
    }
  if (candidate.empty()) {
    if (const auto nvcc = support::FindOnPath("nvcc")) {
      candidate = std::filesystem::weakly_canonical(*nvcc).parent_path().parent_path();
      missing =
          fmt::format("{} of the nvcc on PATH has no include/cuda_runtime.h", candidate.string());
    } else {
      candidate = "/usr/local/cuda";
      missing = "no $CUDA_HOME, $CUDA_PATH, nvcc on PATH or /usr/local/cuda";
    }
  }
  std::error_code error;
  if (std::filesystem::exists(candidate / "include/cuda_runtime.h", error))
    return candidate;
  if (looked_at)
    *looked_at = missing;
  return {};
}

std::vector<std::string> CudaArguments(const std::filesystem::path &cuda) {
  return {"--cuda-path=" + cuda.string(), "--cuda-host-only",
          "--cuda-gpu-arch=sm_80",        "-nocudalib",
          "-Wno-unknown-cuda-version",    "-idirafter",
          INDUCTOR_FUZZ_CUDA_INCLUDE_DIR};
}

std::string OmpIncludeDirectory() { return INDUCTOR_FUZZ_OMP_INCLUDE_DIR; }

} // namespace parsers
