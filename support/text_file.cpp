#include "support/text_file.h"

#include <fmt/format.h>

#include <cxxabi.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace support {

std::string ReadTextFile(const std::filesystem::path &path, const std::string &what,
                         std::size_t limit) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status))
    throw InputError(fmt::format("{} {} does not exist", what, path.string()));
  if (!std::filesystem::is_regular_file(status))
    throw InputError(fmt::format("{} {} is not a regular file", what, path.string()));
  const auto size = std::filesystem::file_size(path, error);
  if (!error && size > limit)
    throw InputError(fmt::format("{} {} is {} bytes, more than the {} bytes allowed", what,
                                 path.string(), size, limit));
  std::ifstream stream(path, std::ios::binary);
  if (!stream)
    throw InputError(fmt::format("{} {} cannot be read (permissions?)", what, path.string()));
  std::ostringstream contents;
  contents << stream.rdbuf();
  std::string text = contents.str();
  if (text.empty())
    throw InputError(fmt::format("{} {} is empty", what, path.string()));
  if (text.find('\0') != std::string::npos)
    throw InputError(fmt::format("{} {} is a binary file, not text", what, path.string()));
  return text;
}

void WriteFileAtomically(const std::filesystem::path &path, const std::string &contents) {
  const auto temporary =
      path.parent_path() / fmt::format(".{}.tmp-{}", path.filename().string(), ::getpid());
  {
    errno = 0;
    std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
    stream << contents;
    stream.flush();
    if (!stream) {
      // The disk's refusal (full, read-only, not ours), named as the file system said it: the
      // command line prints it as one line for the user, not as an internal error.
      const std::error_code error(errno ? errno : EIO, std::generic_category());
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw std::filesystem::filesystem_error("cannot write", path, error);
    }
  }
  std::filesystem::rename(temporary, path);
}

std::string EscapeMarkup(const std::string &text) {
  std::string escaped;
  for (const char ch : text) {
    switch (ch) {
    case '&':
      escaped += "&amp;";
      break;
    case '<':
      escaped += "&lt;";
      break;
    case '>':
      escaped += "&gt;";
      break;
    case '"':
      escaped += "&quot;";
      break;
    case '\'':
      escaped += "&#39;";
      break;
    default:
      if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\n' || ch == '\t')
        escaped += ch;
    }
  }
  return escaped;
}

bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string Trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos)
    return "";
  const auto last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

std::string FirstLine(std::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

std::string FirstNonBlankLine(std::string_view text) {
  const auto start = text.find_first_not_of(" \n");
  if (start == std::string_view::npos)
    return "";
  return std::string(text.substr(start, text.find('\n', start) - start));
}

std::string Demangle(const std::string &symbol) {
  // Without the guard a plain C name would be read as a type's encoding ("i" is "int").
  if (!symbol.starts_with("_Z"))
    return symbol;
  int status = 0;
  std::unique_ptr<char, void (*)(void *)> demangled(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : symbol;
}

bool GlobMatches(std::string_view pattern, std::string_view text) {
  // Iterative wildcard match, backtracking to the last star.
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

void CheckOutputFolder(const std::filesystem::path &folder, std::string_view option) {
  std::error_code error;
  if (std::filesystem::exists(folder, error) && !std::filesystem::is_directory(folder, error))
    throw InputError(fmt::format("{} {} is a file, not a folder; give a folder (it is made when "
                                 "missing)",
                                 option, folder.string()));
  std::filesystem::create_directories(folder, error);
  if (error)
    throw InputError(fmt::format("{} {}: cannot make the folder ({}); give a writable one", option,
                                 folder.string(), error.message()));
}

void CheckOutputFile(const std::filesystem::path &file, std::string_view option) {
  std::error_code error;
  if (std::filesystem::is_directory(file, error))
    throw InputError(
        fmt::format("{} {} is a folder; give a file name to write", option, file.string()));
  const auto parent = std::filesystem::absolute(file).parent_path();
  std::filesystem::create_directories(parent, error);
  if (error)
    throw InputError(fmt::format("{} {}: cannot make its folder ({}); give a writable path", option,
                                 file.string(), error.message()));
}

} // namespace support
