#pragma once

#include <string>
#include <vector>

namespace corpus {

// What a compile command writes: the argument of its -o, or empty. The one parser of -o.
std::string OutputOfCommand(const std::vector<std::string> &argv);

} // namespace corpus
