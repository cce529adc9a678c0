#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace support {

// A Python environment with torch that the worker can run in: the project's .venv (the pinned
// release) or a .venv-torch-VERSION that `scripts/setup --with-torch VERSION` made.
struct TorchEnvironment {
  std::filesystem::path venv;
  std::string torch_version; // from the installed distribution's metadata: "2.14.1"
};

// The torch release installed in `venv`, read from its site-packages without starting Python;
// empty when there is none.
std::string InstalledTorchVersion(const std::filesystem::path &venv);

// Every environment with torch in `project_root`: .venv first, then .venv-torch-* by version.
std::vector<TorchEnvironment> FindTorchEnvironments(const std::filesystem::path &project_root);

// Orders releases as numbers: "2.9.1" < "2.10.0".
bool TorchVersionLess(const std::string &left, const std::string &right);

// The environment `spec` names: a venv folder, or a torch version ("2.14.1", or "2.14" when
// one installed release matches) among FindTorchEnvironments. Throws InputError naming the
// environments there are and how to add one.
TorchEnvironment ResolveTorchEnvironment(const std::string &spec,
                                         const std::filesystem::path &project_root);

} // namespace support
