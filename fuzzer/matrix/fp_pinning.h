#pragma once

#include "fuzzer/matrix/compiler_matrix.h"
#include "fuzzer/matrix/compilers.h"
#include "fuzzer/matrix/runtime_differential.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fuzzer::worker {
class Worker;
}

// Why two compilers' builds of one TU compute different floats. Each pin removes one source of
// rounding differences from both builds (contraction into FMA, reassociation, the compiler's
// own vectorisation, OpenMP's simd directive); the TU is rebuilt on both compilers with the pin
// and both builds replayed on the recorded calls. The first pin under which the two leave
// bit-identical tensors names the option that explains the difference. Evidence for a
// verdict, never a verdict: `compare` decides rounding against regression by the float64
// reference (records.h).
namespace fuzzer::matrix {

struct FpPin {
  std::string_view name; // as the report names it: the option, or what the source loses
  std::vector<std::string> gcc_flags;
  std::vector<std::string> clang_flags;
  bool drop_omp_simd = false; // the source without its `#pragma omp simd` lines
  std::string_view why;
};

// The pins, in the order they are tried: single pins first, then all of them together, then
// -O0 (which tells code that differs by compiler from code optimised differently).
const std::vector<FpPin> &FpPins();

// `source` with every `#pragma omp simd ...` line emptied (line numbers kept).
std::string DropOmpSimd(const std::string &source);

struct PinningOptions {
  Compiler baseline;
  Compiler candidate;
  std::filesystem::path work_dir; // each pin's builds and outputs go to a folder of their own
  unsigned jobs = 2;
  std::chrono::seconds build_timeout{600};
  RuntimeOptions runtime;
  // No pin starts after this (the caller's budget for explaining differences).
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// The pins tried on one TU whose two builds (row.builds[0] and [1]) replay differently, as
// JSON: {"unpinned": agreement, "pins": [{"pin", "identical", "max_abs_difference", "error"}],
// "explained_by": the first pin that makes them agree, or null}. Stops at the first pin that
// explains the difference, so the combined pin and -O0 are tried only when none before does.
nlohmann::json ExplainDifference(const TuMatrix &row, const PinningOptions &options,
                                 worker::Worker &worker, const Progress &progress);

// One line for people: "-ffp-contract=off makes them agree (they differed by up to 5.2e-05)".
std::string DescribePinning(const nlohmann::json &pinning);

} // namespace fuzzer::matrix
