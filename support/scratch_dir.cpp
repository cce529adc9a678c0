#include "support/scratch_dir.h"

#include "support/errors.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdlib.h>
#include <string_view>
#include <unistd.h>

namespace support {
namespace {

constexpr std::string_view kPrefix = "inductor-fuzz-";

// The pid in "inductor-fuzz-WHAT-pPID-XXXXXX", or 0 when the name is not one of ours.
pid_t OwnerOf(const std::string &name) {
  if (!name.starts_with(kPrefix) || name.size() < 8)
    return 0;
  const auto mark = name.rfind("-p", name.size() - 8);
  if (mark == std::string::npos || name[name.size() - 7] != '-')
    return 0;
  const std::string digits = name.substr(mark + 2, name.size() - 7 - (mark + 2));
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
    return 0;
  return static_cast<pid_t>(std::stol(digits));
}

// A run that was killed (SIGKILL, a power cut) could not remove its folders: the next run does,
// for the processes that are gone. A live process, or one of another user, keeps its own.
void RemoveFoldersOfEndedRuns(const std::filesystem::path &base) {
  std::error_code error;
  for (const auto &entry : std::filesystem::directory_iterator(base, error)) {
    const pid_t owner = OwnerOf(entry.path().filename().string());
    if (owner <= 0 || owner == ::getpid())
      continue;
    if (::kill(owner, 0) == 0 || errno != ESRCH)
      continue;
    std::error_code ignored;
    std::filesystem::remove_all(entry.path(), ignored);
  }
}

} // namespace

ScratchDir::ScratchDir(const std::string &what, const std::filesystem::path &parent) {
  const auto base = parent.empty() ? std::filesystem::temp_directory_path() : parent;
  std::filesystem::create_directories(base);
  RemoveFoldersOfEndedRuns(base);
  std::string pattern =
      (base / (std::string(kPrefix) + what + "-p" + std::to_string(::getpid()) + "-XXXXXX"))
          .string();
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
