#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace support {

struct ToolPaths {
  std::filesystem::path worker_executable;
  std::filesystem::path venv;
  std::filesystem::path project_root; // where corpus/ is: the source tree this build came from
  // Workers run cases with no network, writing only beneath their folders; --no-confine is
  // for code the user trusts (fuzzer/worker/worker_confinement.h).
  bool confine_workers = true;
};

// The source tree this build came from (where corpus/ and the venvs scripts/setup makes are).
std::filesystem::path ProjectRoot();

// The folder `what` of the user's cache: $XDG_CACHE_HOME/inductor-fuzz/WHAT, else
// ~/.cache/inductor-fuzz/WHAT, else under the temporary folder. What is kept there is keyed by
// content (precompiled prefixes, shared compiler outputs): removing it costs time, not results.
std::filesystem::path UserCacheDir(const std::string &what);

// Finds the worker next to this executable and the venv: the one given, else
// $INDUCTOR_FUZZ_VENV, else the nearest `.venv` above this executable (build/../.venv).
ToolPaths LocateToolPaths(const std::optional<std::filesystem::path> &venv);

} // namespace support
