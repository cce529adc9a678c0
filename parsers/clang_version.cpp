#include "parsers/clang_version.h"

#include <clang/Basic/Version.h>

namespace parsers {

std::string LinkedClangVersion() { return clang::getClangFullVersion(); }

} // namespace parsers
