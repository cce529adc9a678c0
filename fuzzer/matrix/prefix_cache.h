#pragma once

#include "parsers/precompiled_prefix.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fuzzer::matrix {

// Precompiled prefixes kept across matrices. A campaign rebuilds one case in ten on every
// compiler, and its cases' TUs open with the same few include blocks under the same flags: a
// prefix made for one matrix cost more than the one or two builds it served. An entry is
// <folder>/<key>/{prefix.h, its precompiled form, headers.txt}. headers.txt lists every header
// the prefix read with its size and modification time and is checked before each use, so a
// prefix made before a header changed (a reinstalled venv) is made again, not refused (Clang)
// or silently used (gcc). Processes sharing a folder make each prefix once, under a lock.
class PrefixCache {
public:
  static constexpr std::uintmax_t kMaxBytes = std::uintmax_t{4} << 30;

  explicit PrefixCache(std::filesystem::path folder, std::uintmax_t max_bytes = kMaxBytes);

  // Makes `prefix.precompiled` from `prefix.header`, writing the headers it read to
  // `dependencies` (the compiler's -MD -MF file); true when it did.
  using Maker = std::function<bool(const parsers::PrecompiledPrefix &prefix,
                                   const std::filesystem::path &dependencies)>;

  // The prefix stored under `key` (a digest of what it is made from) when its headers are
  // unchanged, else one made now from `block` by `make`; none when making it failed, now or
  // before.
  std::optional<parsers::PrecompiledPrefix> Get(const std::string &key, const std::string &block,
                                                parsers::CompilerFamily family, const Maker &make);

  std::uint64_t Reused() const { return reused_; }
  std::uint64_t Made() const { return made_; }

private:
  void Trim() const;

  std::filesystem::path folder_;
  std::uintmax_t max_bytes_;
  std::atomic<std::uint64_t> reused_{0};
  std::atomic<std::uint64_t> made_{0};
};

// The files a make-style dependency file (-MD -MF) names after its target, unescaped.
std::vector<std::filesystem::path> DependenciesOf(const std::string &make_rule);

} // namespace fuzzer::matrix
