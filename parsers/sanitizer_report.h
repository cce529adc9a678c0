#pragma once

#include "corpus/finding.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parsers {

// One frame of a sanitizer's stack: `#2 0x... in kernel_fill_stub<float>(...) /path/x.cpp:620`.
struct SanitizerFrame {
  std::string function;
  std::string file; // empty when the frame names only a module (libtorch_cpu.so+0x...)
  int line = 0;
};

// One error AddressSanitizer or UndefinedBehaviorSanitizer printed.
struct SanitizerReport {
  std::string tool;   // "AddressSanitizer" or "UndefinedBehaviorSanitizer"
  std::string error;  // heap-buffer-overflow, use-after-free, signed-integer-overflow, ...
  std::string access; // "READ" or "WRITE" (ASan), empty otherwise
  std::size_t access_size = 0;
  std::optional<std::uint64_t> address; // the bad address ASan's header names
  std::string message; // UBSan's `runtime error:` text, or ASan's where-the-address-is line
  std::optional<long long> bytes_past_region; // "located N bytes after/to the right of"
  std::optional<std::size_t> region_size;     // "... of M-byte region"
  std::vector<SanitizerFrame> frames;         // where it happened, innermost first
  std::vector<SanitizerFrame> allocated_at;   // where the region came from (ASan)
  std::string text;                           // the report as printed
};

// Every report in a sanitizer log (a worker's stderr, ASAN_OPTIONS=log_path files), in order.
std::vector<SanitizerReport> ParseSanitizerReports(std::string_view log);

// The innermost frame in the file named `source_name` (a generated TU's file name), if any.
const SanitizerFrame *FirstFrameIn(const SanitizerReport &report, std::string_view source_name);

// A memory-error finding: the sanitizer's error kind (an access outside any buffer, whether it
// hit a redzone or unmapped memory, is `out-of-bounds-access`), the access, the function of the
// innermost frame in the TU and that line's text from `source_text` (the TU as captured). The
// detail keeps the access size, the address, how far past the region, every frame in the TU
// and the report.
corpus::Finding MemoryErrorFinding(const SanitizerReport &report,
                                   const std::filesystem::path &source,
                                   const std::string &source_text);

} // namespace parsers
