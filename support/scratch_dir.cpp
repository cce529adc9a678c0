#include "support/scratch_dir.h"

#include "support/errors.h"

#include <cerrno>
#include <cstring>
#include <stdlib.h>

namespace support {

ScratchDir::ScratchDir(const std::string &what, const std::filesystem::path &parent) {
  const auto base = parent.empty() ? std::filesystem::temp_directory_path() : parent;
  std::filesystem::create_directories(base);
  std::string pattern = (base / ("inductor-fuzz-" + what + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data()))
    throw InputError("cannot make a scratch folder under " + base.string() + ": " +
                     std::strerror(errno) + "; set TMPDIR to a writable folder");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

} // namespace support
