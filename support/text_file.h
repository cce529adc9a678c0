#pragma once

#include "support/errors.h"

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace support {

// Reads a file that must be text: present, readable, not empty, at most `limit` bytes, no NUL
// bytes. `what` names the file in the error ("case file", "C++ source").
std::string ReadTextFile(const std::filesystem::path &path, const std::string &what,
                         std::size_t limit);

// Writes through a temporary name in the same folder and renames, so that a reader (or a
// crash half-way) never sees a partial file.
void WriteFileAtomically(const std::filesystem::path &path, const std::string &contents);

// Output locations checked before a long job starts, so that it cannot run for an hour and then
// fail to write: a folder that is a file, a file that is a folder, or a parent that cannot be
// made is an InputError naming `option` ("--report") and the path.
void CheckOutputFolder(const std::filesystem::path &folder, std::string_view option);
void CheckOutputFile(const std::filesystem::path &file, std::string_view option);

// Text made safe inside XML or HTML markup and attributes: & < > " ' escaped, and the control
// characters XML 1.0 forbids (which compiler output may hold) dropped.
std::string EscapeMarkup(const std::string &text);

// A letter, digit or underscore: a character of a C++ identifier.
bool IsIdentifierChar(char c);

// The text without leading and trailing spaces, tabs and carriage returns.
std::string Trim(std::string_view text);

// The text up to its first newline; the first line that is not blank, from its first character.
std::string FirstLine(std::string_view text);
std::string FirstNonBlankLine(std::string_view text);

// A C++ symbol demangled ("_ZN2at..." to "at::..."); anything not mangled (no "_Z") as it is.
std::string Demangle(const std::string &symbol);

// `*` matches any run of characters, everything else itself (known issues, known warnings).
bool GlobMatches(std::string_view pattern, std::string_view text);

} // namespace support
