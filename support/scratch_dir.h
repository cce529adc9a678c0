#pragma once

#include <filesystem>
#include <string>

namespace support {

// A temporary folder that is removed when it goes out of scope, also when something throws.
// Made with mkdtemp under $TMPDIR (or `parent`), so two runs never share one. Its name carries
// this process's id: making one removes the folders of runs whose process is gone (killed).
class ScratchDir {
public:
  explicit ScratchDir(const std::string &what, const std::filesystem::path &parent = {});
  ~ScratchDir();
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;

  const std::filesystem::path &path() const { return path_; }
  std::filesystem::path operator/(const std::filesystem::path &child) const {
    return path_ / child;
  }

private:
  std::filesystem::path path_;
};

} // namespace support
