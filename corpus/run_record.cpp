#include "corpus/run_record.h"

#include <algorithm>

namespace corpus {

std::string OutputOfCommand(const std::vector<std::string> &argv) {
  const auto found = std::find(argv.begin(), argv.end(), "-o");
  return found == argv.end() || found + 1 == argv.end() ? "" : *(found + 1);
}

} // namespace corpus
