#pragma once

#include <string>

namespace parsers {

// The full version string of the Clang libraries our analysis links, as Clang prints it.
std::string LinkedClangVersion();

} // namespace parsers
