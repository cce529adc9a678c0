#include "corpus/capture_origin.h"

#include "corpus/field_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>

#include <sys/utsname.h>

namespace corpus {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ReleaseOf(const std::string &version) { return version.substr(0, version.find('+')); }

// site-packages/torch of a venv, if it has one.
std::optional<fs::path> TorchRootIn(const fs::path &venv) {
  std::error_code error;
  for (const auto &python : fs::directory_iterator(venv / "lib", error))
    if (fs::exists(python.path() / "site-packages" / "torch" / "include"))
      return python.path() / "site-packages" / "torch";
  return std::nullopt;
}

// A capture.json at `folder` or up to two folders above it (cases/NNNN-name/ of a capture of
// cases), with the provenance paths a capture writes.
std::optional<fs::path> CaptureFileAbove(const fs::path &folder) {
  fs::path at = fs::absolute(folder).lexically_normal();
  for (int up = 0; up < 3 && !at.empty(); ++up, at = at.parent_path())
    if (fs::exists(at / "capture.json"))
      return at / "capture.json";
  return std::nullopt;
}

} // namespace

std::optional<CaptureOrigin>
ReadCaptureOrigin(const fs::path &commands_folder,
                  const std::vector<support::TorchEnvironment> &local) {
  const auto file = CaptureFileAbove(commands_folder);
  if (!file)
    return std::nullopt;
  const json document = ReadJsonDocument(*file, "capture file", "capture it again");
  const json provenance =
      document.is_object() ? document.value("provenance", json::object()) : json::object();
  const json paths = provenance.value("paths", json::object());
  if (!paths.is_object() || !paths.contains("torch"))
    return std::nullopt; // a capture from before paths were recorded: this machine's own
  CaptureOrigin origin{.capture_file = *file,
                       .torch_version = provenance.value("torch", ""),
                       .python_version = provenance.value("python", ""),
                       .machine = provenance.value("machine", ""),
                       .mappings = {},
                       .missing = {}};
  struct utsname here{};
  origin.runs_here =
      origin.machine.empty() || (::uname(&here) == 0 && origin.machine == here.machine);
  const std::string release = ReleaseOf(origin.torch_version);
  const auto same_release = std::ranges::find_if(
      local, [&](const auto &env) { return ReleaseOf(env.torch_version) == release; });
  const auto torch_root =
      same_release == local.end() ? std::nullopt : TorchRootIn(same_release->venv);
  if (torch_root)
    origin.mappings.push_back({paths.value("torch", ""), torch_root->string()});
  else
    origin.missing.push_back(
        fmt::format("torch {}'s headers (scripts/setup --with-torch {})", release, release));
  // Python's headers, for the TUs that include Python.h (the Python bindings, cpp_wrapper):
  // the same X.Y where Debian has it, else this machine's own Python's. The C API a kernel's
  // binding uses is the same across 3.x releases, so a parse or build is not made false by it;
  // only a missing torch release is.
  const std::string python = origin.python_version.substr(
      0, origin.python_version.find('.', origin.python_version.find('.') + 1));
  fs::path python_include = fs::path("/usr/include") / ("python" + python);
  if (python.empty() || !fs::exists(python_include / "Python.h"))
    python_include = "/usr/include/python3.11";
  origin.mappings.push_back({paths.value("python_include", ""), python_include.string()});
  // The CUDA toolkit a CUDA wrapper TU includes (cuda_runtime.h): this machine's, where the
  // capture had one.
  const char *cuda_home = std::getenv("CUDA_HOME");
  const fs::path local_cuda = cuda_home && *cuda_home ? fs::path(cuda_home) : "/usr/local/cuda";
  if (!paths.value("cuda_home", "").empty()) {
    if (fs::exists(local_cuda / "include" / "cuda_runtime.h"))
      origin.mappings.push_back({paths.value("cuda_home", ""), local_cuda.string()});
    else
      origin.missing.push_back("the CUDA toolkit's headers (install the CUDA toolkit or set "
                               "CUDA_HOME to it)");
  }
  std::erase_if(origin.mappings, [](const PathMapping &m) { return m.from.empty(); });
  std::ranges::sort(origin.mappings,
                    [](const auto &a, const auto &b) { return a.from.size() > b.from.size(); });
  return origin;
}

std::string MapArgument(const std::string &argument, const std::vector<PathMapping> &mappings) {
  for (const auto &mapping : mappings) {
    const auto at = argument.find(mapping.from);
    // A root inside a flag (-I/root/include) or the whole argument, at a path boundary.
    if (at == std::string::npos ||
        (at != 0 && argument.compare(0, at, "-I") != 0 && argument.compare(0, at, "-L") != 0 &&
         argument.compare(0, at, "-Wl,-rpath,") != 0 && argument.compare(0, at, "-isystem") != 0))
      continue;
    const std::size_t end = at + mapping.from.size();
    if (end < argument.size() && argument[end] != '/')
      continue;
    return argument.substr(0, at) + mapping.to + argument.substr(end);
  }
  return argument;
}

} // namespace corpus
