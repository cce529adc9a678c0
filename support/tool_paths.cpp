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

} // namespace support
