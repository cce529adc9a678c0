#pragma once

#include <string>

namespace support {

// "0.1.0+<git revision>": recorded in every result so a finding names the tool that made it.
std::string ToolVersion();

} // namespace support
