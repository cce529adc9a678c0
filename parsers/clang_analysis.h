#pragma once

#include "parsers/codegen_features.h"
#include "parsers/conflict.h"
#include "parsers/gcc_checks.h"
#include "parsers/precompiled_prefix.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace parsers {

struct AnalysisOptions {
  std::filesystem::path prefix_cache_dir; // precompiled prefixes live here (created)
  // Past this, the oldest prefixes of the folder are removed (down to 3/4 of it).
  std::uintmax_t max_prefix_bytes = std::uintmax_t{4} << 30;
  bool use_prefix_cache = true;
  bool report_shadowing = true;
};

struct TranslationUnitInput {
  std::filesystem::path path;          // the source to parse
  std::string display_name;            // how findings name it (default: path)
  std::vector<std::string> clang_args; // from TranslateForClang, or given by hand
};

// An `extern "C"` function a TU declares or defines: what the cross-TU check compares.
struct ExternCFunction {
  std::string name;
  std::string type;
  bool is_definition = false;
  SourcePosition position;
};

struct TranslationUnitReport {
  std::string display_name;
  std::filesystem::path source_path;
  std::vector<Conflict> findings; // every error Clang reported, and the warnings of our checks
  std::vector<ExternCFunction> extern_c;
  std::vector<FunctionLines> functions;  // the main file's functions with a body (no lambdas)
  std::vector<std::string> fatal_errors; // the TU could not be analysed
  CodegenFeatures features;              // what the code generator put in it
  double seconds = 0;
  bool used_prefix_cache = false;
};

// Parses TUs with Clang (the version we link) and turns its diagnostics, keyed by ID, into
// findings: every error is one, classified by a check or `unclassified-error`. The leading #include
// block of a TU (Inductor's cpp_prefix.h and friends) is precompiled once per flag set and reused,
// which is what makes analysing many TUs cheap.
class Analyzer {
public:
  explicit Analyzer(AnalysisOptions options);
  ~Analyzer();
  Analyzer(const Analyzer &) = delete;
  Analyzer &operator=(const Analyzer &) = delete;

  TranslationUnitReport Analyze(const TranslationUnitInput &input);

  // The precompiled prefix Analyze parses a TU of this text with (its #include <...> lines),
  // built on first use: what makes another parse of the TU cheap. Empty when the TU includes
  // no header or the prefix cannot be built.
  std::filesystem::path PrefixFor(const std::string &text,
                                  const std::vector<std::string> &clang_args);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Across TUs linked into one binary: the same extern "C" name with different types.
std::vector<Conflict> CompareLinkedUnits(const std::vector<TranslationUnitReport> &reports);

// Flags every analysis adds: syntax only, all errors, Clang's own resource dir, and an omp.h
// (Debian's libomp headers exist for one LLVM version at a time; gcc's omp.h parses the same).
// For a CUDA source (`source` ends in .cu) also those of Clang's CUDA parse (CudaArguments).
// Throws InputError for a .cu when no CUDA installation is found.
std::vector<std::string> AnalysisBaseArguments(bool report_shadowing,
                                               const std::filesystem::path &source = {});

// The CUDA toolkit a .cu is parsed with, found as torch's cpp_extension finds it: $CUDA_HOME,
// else $CUDA_PATH, else the folder above the nvcc on PATH, else /usr/local/cuda. A variable that
// is set is taken at its word. Empty when that folder has no include/cuda_runtime.h;
// `looked_at` then says where it looked.
std::filesystem::path FindCudaInstallation(std::string *looked_at = nullptr);

// Clang's CUDA parse of a .cu with the toolkit at `cuda`: the host side only (one parse, as
// nvcc's host pass sees it; device functions' bodies are still parsed and checked, only
// `#ifdef __CUDA_ARCH__` code is not), no libdevice, Clang's warning about a CUDA newer than it
// knows silenced, and our folder of the headers Clang's CUDA wrapper includes that a newer CUDA
// no longer ships, searched after the toolkit's own (parsers/cuda_include/).
std::vector<std::string> CudaArguments(const std::filesystem::path &cuda);

// The folder holding the omp.h every Clang of ours parses with.
std::string OmpIncludeDirectory();

} // namespace parsers
