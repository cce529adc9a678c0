#pragma once

#include "fuzzer/matrix/compiler_flags.h"
#include "fuzzer/matrix/compiler_matrix.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace fuzzer::matrix {

// Builds kept by content, so that the same TU text, flags and compiler build once: a campaign's
// cases share most of their kernels. An entry is <folder>/<key>/{build.json, module.so}, written
// under a temporary name and renamed, so several threads, processes or shards on one file system
// can share a folder; the first to finish a build keeps it.
class BuildCache {
public:
  explicit BuildCache(std::filesystem::path folder);

  // What makes two builds the same: the compiler (path and version), the command with the
  // source and output names left out, and the source text.
  static std::string Key(const CapturedTu &tu, const Compiler &compiler,
                         const OpenMpInstall &openmp);

  // The build stored under `key`, its module copied to `output`; none if there is none or it is
  // unreadable (a broken entry is a miss, never an error).
  std::optional<TuBuild> Find(const std::string &key, const std::filesystem::path &output);

  // Keeps a finished build; a timed-out one is not kept, since the next attempt may finish.
  void Store(const std::string &key, const TuBuild &build);

  std::uint64_t Hits() const { return hits_; }
  std::uint64_t Misses() const { return misses_; }

private:
  std::filesystem::path folder_;
  std::atomic<std::uint64_t> hits_{0};
  std::atomic<std::uint64_t> misses_{0};
};

} // namespace fuzzer::matrix
