#include "fuzzer/matrix/compiler_flags.h"

#include "corpus/run_record.h"
#include "fuzzer/worker/sanitizer_worker.h"
#include "parsers/clang_analysis.h"
#include "parsers/flag_translation.h"

#include <algorithm>

namespace fuzzer::matrix {

OpenMpInstall FindOpenMp() {
  OpenMpInstall found{.include_dir = parsers::OmpIncludeDirectory()};
  std::error_code error;
  for (const auto &entry : std::filesystem::directory_iterator("/usr/lib", error))
    if (entry.path().filename().string().starts_with("llvm-") &&
        std::filesystem::exists(entry.path() / "lib/libomp.so")) {
      found.library_dir = (entry.path() / "lib").string();
      break;
    }
  return found;
}

std::vector<CompilerFlagRule> CompilerFlagRules(const OpenMpInstall &openmp) {
  std::vector<std::string> clang_openmp;
  if (!openmp.include_dir.empty())
    clang_openmp = {"-isystem", openmp.include_dir};
  if (!openmp.library_dir.empty())
    clang_openmp.insert(clang_openmp.end(),
                        {"-L" + openmp.library_dir, "-Wl,-rpath," + openmp.library_dir});
  return {
      {CompilerFamily::kClang,
       "-fno-tree-loop-vectorize",
       FlagFix::kDrop,
       {},
       "gcc-only optimizer flag; Clang warns and Inductor makes that an error for Clang"},
      {CompilerFamily::kClang,
       "-fexcess-precision=fast",
       FlagFix::kDrop,
       {},
       "Clang before 16 rejects it; Inductor adds it for gcc only"},
      {CompilerFamily::kClang, "-fopenmp", FlagFix::kAppend, clang_openmp,
       "Clang's -fopenmp needs omp.h and links libomp, which Debian ships for one LLVM only"},
      {CompilerFamily::kGcc,
       "-Werror=ignored-optimization-argument",
       FlagFix::kDrop,
       {},
       "Clang-only warning Inductor adds for Clang"},
  };
}

std::vector<std::string> CommandForCompiler(const std::vector<std::string> &captured,
                                            const Compiler &compiler,
                                            const std::filesystem::path &source,
                                            const std::filesystem::path &output,
                                            const OpenMpInstall &openmp) {
  const auto rules = CompilerFlagRules(openmp);
  std::vector<std::string> argv = {compiler.path.string()};
  for (std::size_t i = 1; i < captured.size(); ++i) {
    const std::string &argument = captured[i];
    if (argument == "-o" && i + 1 < captured.size()) {
      argv.insert(argv.end(), {"-o", output.string()});
      ++i;
      continue;
    }
    // Inductor's cpp_wrapper builds force-include a header of its own PCH cache: a gcc PCH of
    // an #include the TU has itself, outside the captured folder. Every compiler of the matrix
    // parses the TU's own #include instead (the matrix shares its own prefix).
    if (argument == "-include" && i + 1 < captured.size() &&
        corpus::IsSharedPrecompiledHeader(captured[i + 1])) {
      ++i;
      continue;
    }
    if (!argument.starts_with("-") && parsers::IsCppSource(argument)) {
      argv.push_back(source.string());
      continue;
    }
    const auto rule = std::find_if(rules.begin(), rules.end(), [&](const CompilerFlagRule &r) {
      return r.target == compiler.family && r.flag == argument;
    });
    if (rule == rules.end()) {
      argv.push_back(argument);
    } else if (rule->fix == FlagFix::kAppend) {
      argv.push_back(argument);
      argv.insert(argv.end(), rule->extra.begin(), rule->extra.end());
    }
  }
  argv.insert(argv.end(), compiler.extra_flags.begin(), compiler.extra_flags.end());
  if (!compiler.sanitizers.empty()) {
    // The sanitizers go on top of Inductor's own flags, its optimisation level kept.
    const auto flags =
        worker::SanitizerFlags({.checks = compiler.sanitizers, .compiler = compiler.path.string()});
    argv.insert(argv.end(), flags.begin(), flags.end());
  }
  return argv;
}

} // namespace fuzzer::matrix
