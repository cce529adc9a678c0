#include "fuzzer/worker/worker_confinement.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fuzzer::worker {
namespace {

// Landlock's user API, spelt here because the distribution's header predates the network rules.
constexpr std::uint64_t kMakeAll = (1ULL << 6) | (1ULL << 7) | (1ULL << 8) | (1ULL << 9) |
                                   (1ULL << 10) | (1ULL << 11) | (1ULL << 12);
constexpr std::uint64_t kWriteFile = 1ULL << 1;
constexpr std::uint64_t kRemoveDir = 1ULL << 4;
constexpr std::uint64_t kRemoveFile = 1ULL << 5;
constexpr std::uint64_t kRefer = 1ULL << 13;    // ABI 2
constexpr std::uint64_t kTruncate = 1ULL << 14; // ABI 3
constexpr std::uint64_t kBindTcp = 1ULL << 0;   // ABI 4, network
constexpr std::uint64_t kConnectTcp = 1ULL << 1;
constexpr std::uint32_t kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;

struct RulesetAttributes {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
};

struct __attribute__((packed)) PathBeneath {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

long LandlockAbi() {
#ifdef SYS_landlock_create_ruleset
  return ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
#else
  errno = ENOSYS;
  return -1;
#endif
}

bool WriteProcFile(const char *path, const std::string &text) {
  std::ofstream file(path);
  file << text;
  file.flush();
  return static_cast<bool>(file);
}

// Enters an own user and network namespace whose ids map to ours; false when any step fails.
bool EnterNamespaces(uid_t uid, gid_t gid) {
  return ::unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 &&
         WriteProcFile("/proc/self/setgroups", "deny") &&
         WriteProcFile("/proc/self/uid_map",
                       std::to_string(uid) + " " + std::to_string(uid) + " 1") &&
         WriteProcFile("/proc/self/gid_map",
                       std::to_string(gid) + " " + std::to_string(gid) + " 1");
}

// An own user and network namespace: the only interface is a loopback that is down. The user
// namespace maps our own ids to themselves, so files are made with the same owner as before. A
// namespace whose ids cannot be mapped cannot make files at all, and there is no way back from
// one: a child tries first, and the worker follows only where the child could.
std::string CutNetwork(bool &cut) {
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  const pid_t trial = ::fork();
  if (trial == 0)
    ::_exit(EnterNamespaces(uid, gid) ? 0 : 1);
  int status = 0;
  if (trial < 0 || ::waitpid(trial, &status, 0) != trial || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return "kept: no user namespace with our ids here";
  if (!EnterNamespaces(uid, gid))
    return std::string("kept: the user namespace failed (") + std::strerror(errno) + ")";
  cut = true;
  return "none (own network namespace)";
}

std::string LimitWrites(const std::vector<std::filesystem::path> &roots, bool tcp_too,
                        bool &limited, bool &tcp_cut) {
  const long abi = LandlockAbi();
  if (abi < 2)
    return abi < 0 ? std::string("not limited: no Landlock in this kernel (") +
                         std::strerror(errno) + ")"
                   : "not limited: Landlock ABI 1 cannot allow renames between folders";
  std::uint64_t handled = kWriteFile | kRemoveDir | kRemoveFile | kMakeAll | kRefer;
  if (abi >= 3)
    handled |= kTruncate;
  RulesetAttributes attributes{handled, 0};
  std::size_t size = sizeof(std::uint64_t);
  if (tcp_too && abi >= 4) {
    attributes.handled_access_net = kBindTcp | kConnectTcp; // no rule allows any port
    size = sizeof(attributes);
  }
  const int ruleset =
      static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attributes, size, 0));
  if (ruleset < 0)
    return std::string("not limited: Landlock refused the ruleset (") + std::strerror(errno) + ")";
  std::size_t allowed = 0;
  for (const auto &root : roots) {
    const int fd = ::open(root.c_str(), O_PATH | O_CLOEXEC | O_DIRECTORY);
    if (fd < 0)
      continue;
    PathBeneath rule{handled, fd};
    if (::syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &rule, 0) == 0)
      ++allowed;
    ::close(fd);
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      ::syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
    const std::string why = std::strerror(errno);
    ::close(ruleset);
    return "not limited: Landlock could not be applied (" + why + ")";
  }
  ::close(ruleset);
  limited = true;
  tcp_cut = size == sizeof(attributes);
  return "beneath " + std::to_string(allowed) + " folders (Landlock ABI " + std::to_string(abi) +
         ")";
}

} // namespace

ConfinementReport ApplyConfinement(const ConfinementRequest &request) {
  ConfinementReport report;
  if (!request.confine) {
    report.network = "kept: --no-confine";
    report.writes = "not limited: --no-confine";
    return report;
  }
  report.network = CutNetwork(report.network_cut);
  bool tcp_cut = false;
  report.writes =
      LimitWrites(request.write_roots, !report.network_cut, report.writes_limited, tcp_cut);
  if (!report.network_cut && tcp_cut) {
    report.network = "TCP refused by Landlock (" + report.network + ")";
    report.network_cut = true;
  }
  return report;
}

} // namespace fuzzer::worker
