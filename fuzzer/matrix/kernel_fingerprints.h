#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

// What a generated TU's kernels are, independent of the names Inductor numbered: so that two
// torch releases' code for one case can be compared kernel by kernel.
namespace fuzzer::matrix {

struct KernelFingerprint {
  std::string name;        // the kernel's name shape: "kernel", "cpp_fused_add_mul_N"
  std::string fingerprint; // 16 hex digits of the body with names shaped, spaces collapsed
  // The variables the kernel declares, "TYPE NAME" with both shaped ("auto tmpN"), sorted and
  // unique: a declaration that appears or goes is what a codegen change usually is.
  std::vector<std::string> declarations;
  bool operator==(const KernelFingerprint &) const = default;
};

// Every extern "C" function defined at column 0 in `source` (Inductor writes each CPU kernel so,
// in both wrappers), in source order.
std::vector<KernelFingerprint> FingerprintKernels(std::string_view source);

// The codegen change between a case's kernels on a baseline and on a candidate.
struct CodegenDelta {
  std::size_t baseline_kernels = 0;
  std::size_t candidate_kernels = 0;
  std::vector<std::string> changed_kernels;      // candidate kernels the baseline has no twin of
  std::vector<std::string> added_declarations;   // "KERNEL: TYPE NAME", in candidate only
  std::vector<std::string> removed_declarations; // in baseline only
  bool Same() const {
    return baseline_kernels == candidate_kernels && changed_kernels.empty() &&
           added_declarations.empty() && removed_declarations.empty();
  }
};

CodegenDelta CompareCodegen(const std::vector<KernelFingerprint> &baseline,
                            const std::vector<KernelFingerprint> &candidate);

} // namespace fuzzer::matrix
