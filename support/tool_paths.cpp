#include "support/tool_paths.h"

#include <cstdlib>

namespace support {

std::filesystem::path ProjectRoot() { return INDUCTOR_FUZZ_SOURCE_DIR; }

ToolPaths LocateToolPaths(const std::optional<std::filesystem::path> &venv) {
  const auto executable = std::filesystem::read_symlink("/proc/self/exe");
  ToolPaths paths;
  paths.worker_executable = executable.parent_path() / "inductor-fuzz-worker";
  paths.project_root = ProjectRoot();
  if (venv) {
    paths.venv = std::filesystem::absolute(*venv);
  } else if (const char *from_environment = std::getenv("INDUCTOR_FUZZ_VENV")) {
    paths.venv = std::filesystem::absolute(from_environment);
  } else {
    paths.venv = executable.parent_path().parent_path() / ".venv";
    for (auto folder = executable.parent_path(); folder != folder.root_path();
         folder = folder.parent_path()) {
      if (std::filesystem::exists(folder / ".venv" / "bin" / "python")) {
        paths.venv = folder / ".venv";
        break;
      }
    }
  }
  return paths;
}

std::filesystem::path UserCacheDir(const std::string &what) {
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "inductor-fuzz" / what;
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "inductor-fuzz" / what;
  return std::filesystem::temp_directory_path() / ("inductor-fuzz-" + what);
}

} // namespace support
