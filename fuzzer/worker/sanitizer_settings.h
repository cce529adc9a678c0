#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fuzzer::worker {

// One entry of fuzzer/worker/sanitizer_settings.txt: a runtime option or a suppression of a
// sanitizer, and why it is there.
struct SanitizerSetting {
  std::string tool;    // asan, ubsan, asan-suppress, ubsan-suppress
  std::string setting; // "detect_leaks=0", or a suppressions-file line
  std::string reason;
};

// Parses the settings file's text; an entry without a tool it knows, without a setting or
// without a reason is an InputError naming its line.
std::vector<SanitizerSetting> ParseSanitizerSettings(std::string_view text);

// The checked-in file, as compiled into the binary.
std::string_view CheckedInSanitizerSettings();

// The settings of one tool, joined as the runtime reads them: "a=1:b=0" for options, one a
// line for suppressions.
std::string JoinSettings(const std::vector<SanitizerSetting> &settings, std::string_view tool);

} // namespace fuzzer::worker
