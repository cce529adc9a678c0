#include "support/torch_environments.h"

#include "support/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <system_error>

namespace support {
namespace {

constexpr std::string_view kDistInfoPrefix = "torch-";
constexpr std::string_view kDistInfoSuffix = ".dist-info";
constexpr std::string_view kExtraVenvPrefix = ".venv-torch-";

std::vector<long> VersionNumbers(const std::string &version) {
  std::vector<long> numbers;
  const char *at = version.data();
  const char *end = version.data() + version.size();
  while (at < end) {
    long number = 0;
    const auto [next, error] = std::from_chars(at, end, number);
    if (error != std::errc())
      break;
    numbers.push_back(number);
    if (next == end || *next != '.')
      break;
    at = next + 1;
  }
  return numbers;
}

std::string Listing(const std::vector<TorchEnvironment> &environments) {
  std::string listing;
  for (const auto &environment : environments)
    listing += fmt::format("{}{} in {}", listing.empty() ? "" : ", ", environment.torch_version,
                           environment.venv.filename().string());
  return listing.empty() ? "none" : listing;
}

} // namespace

std::string InstalledTorchVersion(const std::filesystem::path &venv) {
  std::error_code error;
  const auto lib = venv / "lib";
  for (const auto &python : std::filesystem::directory_iterator(lib, error)) {
    const auto site_packages = python.path() / "site-packages";
    for (const auto &entry : std::filesystem::directory_iterator(site_packages, error)) {
      const std::string name = entry.path().filename().string();
      if (name.starts_with(kDistInfoPrefix) && name.ends_with(kDistInfoSuffix))
        return name.substr(kDistInfoPrefix.size(),
                           name.size() - kDistInfoPrefix.size() - kDistInfoSuffix.size());
    }
  }
  return "";
}

bool TorchVersionLess(const std::string &left, const std::string &right) {
  return VersionNumbers(left) < VersionNumbers(right);
}

std::vector<TorchEnvironment> FindTorchEnvironments(const std::filesystem::path &project_root) {
  std::vector<TorchEnvironment> environments;
  if (auto version = InstalledTorchVersion(project_root / ".venv"); !version.empty())
    environments.push_back({project_root / ".venv", std::move(version)});
  std::vector<TorchEnvironment> extra;
  std::error_code error;
  for (const auto &entry : std::filesystem::directory_iterator(project_root, error)) {
    if (!entry.path().filename().string().starts_with(kExtraVenvPrefix))
      continue;
    if (auto version = InstalledTorchVersion(entry.path()); !version.empty())
      extra.push_back({entry.path(), std::move(version)});
  }
  std::ranges::sort(extra, [](const auto &a, const auto &b) {
    return TorchVersionLess(a.torch_version, b.torch_version);
  });
  environments.insert(environments.end(), extra.begin(), extra.end());
  return environments;
}

TorchEnvironment ResolveTorchEnvironment(const std::string &spec,
                                         const std::filesystem::path &project_root) {
  if (spec.find('/') != std::string::npos || std::filesystem::is_directory(spec)) {
    const auto venv = std::filesystem::absolute(spec);
    auto version = InstalledTorchVersion(venv);
    if (version.empty())
      throw InputError(fmt::format("{} has no torch installed; make one with scripts/setup "
                                   "--with-torch VERSION, or pass a torch version",
                                   venv.string()));
    return {venv, std::move(version)};
  }
  const auto environments = FindTorchEnvironments(project_root);
  std::vector<TorchEnvironment> matches;
  for (const auto &environment : environments)
    if (environment.torch_version == spec || environment.torch_version.starts_with(spec + "."))
      matches.push_back(environment);
  if (matches.size() == 1)
    return matches.front();
  if (matches.empty())
    throw InputError(fmt::format("no environment has torch {} (installed: {}); run scripts/setup "
                                 "--with-torch {} to add one",
                                 spec, Listing(environments),
                                 VersionNumbers(spec).size() == 3 ? spec : spec + ".0"));
  // The same release twice (.venv and a .venv-torch- copy): the project's own comes first.
  if (std::ranges::all_of(matches, [&](const auto &match) {
        return match.torch_version == matches.front().torch_version;
      }))
    return matches.front();
  throw InputError(fmt::format("torch {} matches several installed releases ({}); give the full "
                               "version",
                               spec, Listing(matches)));
}

} // namespace support
