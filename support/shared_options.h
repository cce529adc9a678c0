#pragma once

// The options several commands share (shared_options.def), each a type: its row (flag, help,
// check) for the command line, and its default for the option structs that hold its value, so
// that no command or struct restates either. Here, the lowest layer, because the structs live in
// every layer above (workflows' options, the campaign's, the matrix's default list).

#include <string>
#include <string_view>
#include <vector>

namespace support::options {

// What the command line refuses before a command runs (CLI11's own words).
enum class OptionCheck { kAnyValue, kPositive };

// An option's line of shared_options.def, as the command line needs it.
struct SharedOptionRow {
  std::string_view name; // the type's name: CaseTimeout
  std::string_view flag; // --case-timeout
  OptionCheck check;
  std::string_view help;
};

// Each line becomes `struct Name { using Value; kRow; Default(); }`. Default() is a function, not
// a constant, so that a std::string or a list default is made when it is read and never depends
// on the order in which static objects are initialised.
#define INDUCTOR_FUZZ_SHARED_OPTION(Name, Type, flag, check, help, ...)                            \
  struct Name {                                                                                    \
    using Value = Type;                                                                            \
    static constexpr SharedOptionRow kRow{#Name, flag, OptionCheck::check, help};                  \
    static Value Default() { return Value{__VA_ARGS__}; }                                          \
  };
#include "support/shared_options.def"
#undef INDUCTOR_FUZZ_SHARED_OPTION

// Every row, in the file's order: for a test that reads them all.
inline constexpr SharedOptionRow kSharedOptionRows[] = {
#define INDUCTOR_FUZZ_SHARED_OPTION(Name, Type, flag, check, help, ...) Name::kRow,
#include "support/shared_options.def"
#undef INDUCTOR_FUZZ_SHARED_OPTION
};

} // namespace support::options
