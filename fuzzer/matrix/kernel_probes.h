#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuzzer::matrix {

// One kernel call in a cpp_wrapper module's wrapper, and the buffers it writes.
struct ProbeSite {
  int site = 0; // the call's number in the wrapper, in source order
  std::string kernel;
  int line = 0;                                     // 1-based, in the original source
  std::vector<std::pair<int, std::string>> outputs; // argument position, buffer handle
};

struct ProbedSource {
  std::string text;
  std::vector<ProbeSite> sites;
};

// The entry of a cpp_wrapper module (replay.py's WRAPPER_ENTRY): the kernels are inside it.
inline constexpr std::string_view kWrapperEntry = "inductor_entry_cpp";

// The environment variable a probed build reads: the file each probe appends its record to.
inline constexpr const char *kKernelProbeFileVariable = "INDUCTOR_FUZZ_KERNEL_PROBES";

// A cpp_wrapper TU rewritten for a replay build that records, after every kernel call inside
// the wrapper, each buffer the call writes (every non-const pointer argument passed as
// `(T*)(BUFFER.data_ptr())`): kernel, site, argument, dtype, sizes, strides and bytes, appended
// to the file kKernelProbeFileVariable names (nothing when it is unset). The module's results
// are unchanged. Kernels are the TU's `extern "C"` functions; none when the TU has no wrapper
// calling them.
std::optional<ProbedSource> ProbeKernelCalls(const std::string &source);

} // namespace fuzzer::matrix
