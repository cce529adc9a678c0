#include "fuzzer/matrix/prefix_cache.h"

#include "support/text_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <tuple>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fuzzer::matrix {

namespace fs = std::filesystem;

namespace {

constexpr const char *kHeaders = "headers.txt"; // written last: an entry without it is unfinished
constexpr const char *kFailed = "failed";

// An exclusive lock on a file, released on destruction (or when the process ends).
class FileLock {
public:
  explicit FileLock(const fs::path &path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT, 0644)) {
    if (fd_ >= 0)
      ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;

private:
  int fd_;
};

// "size mtime_ns" of a file, or empty when it cannot be read.
std::string StampOf(const fs::path &path) {
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0)
    return "";
  return fmt::format("{} {}", info.st_size,
                     info.st_mtim.tv_sec * 1'000'000'000LL + info.st_mtim.tv_nsec);
}

// Whether every header the entry's prefix read is as it was when the prefix was made.
bool HeadersUnchanged(const fs::path &entry) {
  std::ifstream list(entry / kHeaders);
  if (!list)
    return false;
  std::string line;
  while (std::getline(list, line)) {
    const auto size_end = line.find(' ');
    const auto stamp_end = size_end == std::string::npos ? size_end : line.find(' ', size_end + 1);
    if (stamp_end == std::string::npos)
      return false;
    if (StampOf(line.substr(stamp_end + 1)) != line.substr(0, stamp_end))
      return false;
  }
  return true;
}

bool Usable(const fs::path &entry, const parsers::PrecompiledPrefix &prefix) {
  std::error_code error;
  return fs::exists(prefix.precompiled, error) && HeadersUnchanged(entry);
}

} // namespace

std::vector<fs::path> DependenciesOf(const std::string &make_rule) {
  std::vector<fs::path> files;
  std::string word;
  bool after_target = false;
  const auto finish = [&] {
    if (!word.empty() && after_target)
      files.emplace_back(word);
    word.clear();
  };
  for (std::size_t i = 0; i < make_rule.size(); ++i) {
    const char ch = make_rule[i];
    if (ch == '\\' && i + 1 < make_rule.size() && make_rule[i + 1] == '\n') {
      ++i; // a continued line
      finish();
    } else if (ch == '\\' && i + 1 < make_rule.size() && make_rule[i + 1] == ' ') {
      word += ' ';
      ++i;
    } else if (!after_target && ch == ':' &&
               (i + 1 == make_rule.size() ||
                std::isspace(static_cast<unsigned char>(make_rule[i + 1])))) {
      word.clear();
      after_target = true;
    } else if (std::isspace(static_cast<unsigned char>(ch))) {
      finish();
    } else {
      word += ch;
    }
  }
  finish();
  return files;
}

PrefixCache::PrefixCache(fs::path folder, std::uintmax_t max_bytes)
    : folder_(std::move(folder)), max_bytes_(max_bytes) {}

std::optional<parsers::PrecompiledPrefix> PrefixCache::Get(const std::string &key,
                                                           const std::string &block,
                                                           parsers::CompilerFamily family,
                                                           const Maker &make) {
  const fs::path entry = folder_ / key;
  const auto prefix = parsers::PrefixBeside(entry / "prefix.h", family);
  std::error_code error;
  try {
    if (!Usable(entry, prefix)) {
      fs::create_directories(entry);
      const FileLock lock(entry / "lock"); // another process making it: wait, then use theirs
      if (fs::exists(entry / kFailed))
        return std::nullopt;
      if (!Usable(entry, prefix)) {
        fs::remove(entry / kHeaders, error);
        fs::remove(prefix.precompiled, error);
        support::WriteFileAtomically(prefix.header, block);
        const fs::path dependencies = entry / "prefix.d";
        if (!make(prefix, dependencies) || !fs::exists(prefix.precompiled)) {
          std::ofstream(entry / kFailed) << "the compiler did not make this prefix\n";
          return std::nullopt;
        }
        std::ifstream rule_file(dependencies);
        std::stringstream rule;
        rule << rule_file.rdbuf();
        std::string stamps;
        for (const auto &header : DependenciesOf(rule.str())) {
          const fs::path absolute = header.is_absolute() ? header : entry / header;
          stamps += fmt::format("{} {}\n", StampOf(absolute), absolute.string());
        }
        support::WriteFileAtomically(entry / kHeaders, stamps);
        ++made_;
        Trim();
        return prefix;
      }
    }
    fs::last_write_time(entry, fs::file_time_type::clock::now(), error); // recently used
    ++reused_;
    return prefix;
  } catch (const std::exception &) { // a full disk costs the prefix, never the build
    return std::nullopt;
  }
}

void PrefixCache::Trim() const {
  std::vector<std::tuple<fs::file_time_type, std::uintmax_t, fs::path>> entries;
  std::uintmax_t total = 0;
  std::error_code error;
  for (const auto &entry : fs::directory_iterator(folder_, error)) {
    std::uintmax_t size = 0;
    for (const auto &file : fs::directory_iterator(entry.path(), error))
      size += file.is_regular_file(error) ? file.file_size(error) : 0;
    entries.emplace_back(fs::last_write_time(entry.path(), error), size, entry.path());
    total += size;
  }
  if (total <= max_bytes_)
    return;
  std::sort(entries.begin(), entries.end());
  // A build using a removed prefix fails and runs again without it (BuildMatrix).
  for (const auto &[used, size, path] : entries) {
    fs::remove_all(path, error);
    total -= size;
    if (total <= max_bytes_ / 4 * 3)
      break;
  }
}

} // namespace fuzzer::matrix
