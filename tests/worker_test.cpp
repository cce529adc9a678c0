// The worker on the real torch: serving cases, surviving crashes and hangs, capture, oracle.
// One worker serves every test here, as in a campaign.
#include "corpus/case.h"
#include "corpus/finding.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"
#include "support/child_process.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <csignal>
#include <fstream>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace fuzzer {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

const std::filesystem::path kSourceDir = INDUCTOR_FUZZ_SOURCE_DIR;

corpus::Case SmallCase(const std::string &name, const std::string &body) {
  corpus::Case c;
  c.name = name;
  c.mask_mod = {"mask", "def mask(b, h, q_idx, kv_idx):\n" + body};
  c.create_block_mask.batch = 1;
  c.create_block_mask.heads = 1;
  c.create_block_mask.q_len = 256;
  c.create_block_mask.kv_len = 256;
  c.inductor.cpp_threads = 2;
  return c;
}

// The suite runs on the project's .venv, or on the torch release in $INDUCTOR_FUZZ_TEST_VENV
// (ctest's worker_other_releases runs it on every .venv-torch-* that scripts/setup made).
std::filesystem::path TestVenv() {
  const char *venv = std::getenv("INDUCTOR_FUZZ_TEST_VENV");
  return venv ? std::filesystem::path(venv) : kSourceDir / ".venv";
}

class WorkerTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    scratch_ = std::filesystem::temp_directory_path() /
               ("inductor-fuzz-worker-test-" + std::to_string(::getpid()));
    worker_ = std::make_unique<worker::Worker>(worker::WorkerOptions{
        .worker_executable = INDUCTOR_FUZZ_WORKER,
        .venv = TestVenv(),
        .scratch_dir = scratch_ / "worker",
        .log_file = scratch_ / "worker.log",
    });
  }
  static void TearDownTestSuite() {
    worker_.reset();
    std::filesystem::remove_all(scratch_);
  }

  static worker::CaseOutcome Run(const corpus::Case &c, std::chrono::milliseconds timeout = 600s) {
    return worker::RunCaseOnWorker(*worker_, c, scratch_ / ("cache-" + c.name), timeout);
  }

  static inline std::unique_ptr<worker::Worker> worker_;
  static inline std::filesystem::path scratch_;
};

TEST(ChildProcessTest, EnvironmentOverridesReachTheChildAndTheRestIsInherited) {
  ::setenv("INDUCTOR_FUZZ_INHERITED", "kept", 1);
  support::SpawnOptions options;
  options.environment = {{"TMPDIR", "/somewhere/else"}, {"INDUCTOR_FUZZ_ADDED", "added"}};
  const auto result = support::RunCommand(
      {"sh", "-c", "echo $TMPDIR $INDUCTOR_FUZZ_ADDED $INDUCTOR_FUZZ_INHERITED"}, options, 30s);
  EXPECT_EQ(result.output, "/somewhere/else added kept\n");
  const auto plain =
      support::RunCommand({"sh", "-c", "echo ${INDUCTOR_FUZZ_ADDED:-unset}"}, {}, 30s);
  EXPECT_EQ(plain.output, "unset\n");
}

TEST_F(WorkerTest, CausalSeedMatchesEagerAndCapturesRebuildableTranslationUnits) {
  const corpus::Case seed = corpus::LoadCaseFile(kSourceDir / "corpus/seeds/causal-151290.json");
  const worker::CaseOutcome outcome = Run(seed);
  ASSERT_EQ(outcome.Status(), "pass") << outcome.result.dump(2);
  EXPECT_FALSE(outcome.result.contains("mismatches"));
  const json &builds = outcome.result["builds"];
  ASSERT_GE(builds.size(), 1u);
  bool saw_threads = false;
  for (const auto &build : builds) {
    ASSERT_GE(build["sources"].size(), 1u);
    EXPECT_NE(build["compiler"]["version"].get<std::string>(), "");
    const std::string text = build["sources"][0]["text"];
    saw_threads |= text.find("#include") != std::string::npos &&
                   text.find("num_threads(8)") != std::string::npos;
  }
  EXPECT_TRUE(saw_threads) << "cpp.threads=8 from the case should reach the generated C++";

  // The captured command, run as captured, builds the TU again.
  const json &first = builds[0];
  const auto argv = first["argv"].get<std::vector<std::string>>();
  const auto output = std::find(argv.begin(), argv.end(), "-o");
  ASSERT_NE(output, argv.end());
  std::filesystem::remove(*(output + 1));
  std::filesystem::create_directories(first["cwd"].get<std::string>());
  support::SpawnOptions spawn;
  spawn.working_directory = first["cwd"].get<std::string>();
  const auto rebuilt = support::RunCommand(argv, spawn, 300s);
  EXPECT_TRUE(rebuilt.status.Succeeded()) << rebuilt.output;
  EXPECT_TRUE(std::filesystem::exists(*(output + 1)));
}

TEST_F(WorkerTest, ServesThreeCasesThenShutsDownCleanly) {
  const int pid = worker_->Pid();
  const std::vector<corpus::Case> cases = {
      SmallCase("sliding", "    return (q_idx - kv_idx).abs() <= 64\n"),
      SmallCase("prefix", "    return (kv_idx < 32) | (q_idx >= kv_idx)\n"),
      SmallCase("chunked", "    return (q_idx // 64) == (kv_idx // 64)\n"),
  };
  for (const auto &c : cases) {
    const auto outcome = Run(c);
    EXPECT_EQ(outcome.Status(), "pass") << c.name << outcome.result.dump(2);
    EXPECT_GE(outcome.result["builds"].size(), 1u) << c.name;
  }
  EXPECT_EQ(worker_->Pid(), pid) << "one worker process serves every case";
  const int started = worker_->processes_started();
  worker_->Shutdown();
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, WNOHANG), -1) << "the worker was reaped";
  EXPECT_NE(::kill(pid, 0), 0) << "the worker process is gone";
  // The next request starts a new process: shutting down is not the end of the client.
  EXPECT_NE(worker_->Pid(), pid);
  EXPECT_EQ(worker_->processes_started(), started + 1);
}

// A case that cannot even be defined is broken, not a finding: a campaign counts it apart.
TEST_F(WorkerTest, SyntaxErrorInTheMaskIsAnInvalidCase) {
  const auto outcome = Run(SmallCase("syntax", "    return q_idx >= = kv_idx\n"));
  EXPECT_EQ(outcome.Status(), "invalid-case") << outcome.result.dump(2);
  EXPECT_FALSE(outcome.finding.has_value());
  EXPECT_EQ(outcome.result["exception"]["type"], "builtins.SyntaxError");
  EXPECT_EQ(outcome.result["phase"], "define");
  EXPECT_FALSE(outcome.result.contains("signature"));
}

// A misspelt mask_mod name fails eagerly: the case is wrong, not torch.
TEST_F(WorkerTest, MisspeltMaskNameIsAnInvalidCase) {
  auto c = SmallCase("misspelt", "    return q_idx >= kv_idx\n");
  c.mask_mod->name = "mask_typo";
  const auto outcome = Run(c);
  EXPECT_EQ(outcome.Status(), "invalid-case") << outcome.result.dump(2);
  EXPECT_FALSE(outcome.finding.has_value());
}

// Real failures of torch 2.15.0. The two simdlen=1 cases (float32 and bfloat16) are one bug
// and get one signature. The bool score_mod fails with the same outer InductorError, but its
// innermost cause is a C++ compile error: another bug, another signature.
TEST_F(WorkerTest, RealFailuresGetOneSignaturePerBug) {
  const std::string torch = worker_->Ready().value("torch_version", "");
  if (!torch.starts_with("2.15."))
    GTEST_SKIP() << "these are torch 2.15's failures; torch " << torch
                 << " fails differently (2.6.0: a C++ compile error for simdlen=1)";
  auto signature_of = [](const corpus::Case &c) {
    const auto outcome = Run(c);
    EXPECT_EQ(outcome.Status(), "finding") << c.name << outcome.result.dump(2);
    return outcome.finding ? corpus::Signature(*outcome.finding) : std::string();
  };
  const auto findings = kSourceDir / "corpus/findings";
  const auto fp32 = corpus::LoadCaseFile(findings / "lowering-exception-simdlen1-fp32.json");
  const auto bf16 = corpus::LoadCaseFile(findings / "lowering-exception-simdlen1-bf16.json");
  const std::string lowering = signature_of(fp32);
  EXPECT_TRUE(lowering.starts_with("exception|type=builtins.AssertionError|")) << lowering;
  EXPECT_NE(lowering.find("frame=_inductor/codegen/cpp_micro_gemm.py:"), std::string::npos)
      << lowering;
  EXPECT_EQ(signature_of(bf16), lowering);

  const auto bool_score = corpus::LoadCaseFile(findings / "compile-error-bool-score-mod.json");
  const std::string compile_error = signature_of(bool_score);
  EXPECT_TRUE(compile_error.starts_with("compile-error|")) << compile_error;
  EXPECT_NE(compile_error, lowering);
}

TEST_F(WorkerTest, WorkerKilledMidCaseIsACrashAndTheNextCaseRunsOnANewWorker) {
  const int pid = worker_->Pid();
  const int started = worker_->processes_started();
  std::thread killer([pid] {
    std::this_thread::sleep_for(3s);
    ::kill(pid, SIGKILL);
  });
  const auto outcome = Run(
      SmallCase("sleeps", "    import time\n    time.sleep(120)\n    return q_idx >= kv_idx\n"));
  killer.join();
  EXPECT_EQ(outcome.Kind(), "crash") << outcome.result.dump(2);
  EXPECT_NE(outcome.result["detail"].get<std::string>().find("signal 9"), std::string::npos);

  const auto next = Run(SmallCase("after-crash", "    return q_idx >= kv_idx\n"));
  EXPECT_EQ(next.Status(), "pass") << next.result.dump(2);
  EXPECT_EQ(worker_->processes_started(), started + 1);
  EXPECT_NE(worker_->Pid(), pid);
}

// A library whose constructor tries what a hostile case would, from C where no audit hook sees
// it: create a file outside the worker's folders and connect to a port the test listens on. It
// writes what happened (the errno of each, 0 when it worked) to a file inside its folder.
constexpr const char *kHostileLibrary = R"C(
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
__attribute__((constructor)) static void try_everything(void) {
  int fd = open(getenv("HOSTILE_OUTSIDE"), O_CREAT | O_WRONLY, 0644);
  int write_errno = fd < 0 ? errno : 0;
  struct sockaddr_in address = {0};
  address.sin_family = AF_INET;
  address.sin_port = htons((unsigned short)atoi(getenv("HOSTILE_PORT")));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int sock = socket(AF_INET, SOCK_STREAM, 0);
  int connect_errno = connect(sock, (struct sockaddr *)&address, sizeof address) < 0 ? errno : 0;
  FILE *report = fopen(getenv("HOSTILE_REPORT"), "w");
  fprintf(report, "%d %d\n", write_errno, connect_errno);
  fclose(report);
}
)C";

struct HostileRun {
  json confinement;
  int write_errno = -1;
  int connect_errno = -1;
  bool outside_exists = false;
};

HostileRun LoadHostileLibrary(const std::filesystem::path &folder, bool confine) {
  namespace fs = std::filesystem;
  fs::remove_all(folder);
  fs::create_directories(folder / "inside");
  fs::create_directories(folder / "outside");
  std::ofstream(folder / "hostile.c") << kHostileLibrary;
  const auto built =
      support::RunCommand({"gcc", "-shared", "-fPIC", "-o", (folder / "hostile.so").string(),
                           (folder / "hostile.c").string()},
                          {}, 120s);
  EXPECT_TRUE(built.status.Succeeded()) << built.output;
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  EXPECT_EQ(::bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
  EXPECT_EQ(::listen(listener, 4), 0);
  ::getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length);
  HostileRun run;
  {
    worker::Worker hostile(worker::WorkerOptions{
        .worker_executable = INDUCTOR_FUZZ_WORKER,
        .venv = TestVenv(),
        .confine = confine,
        .scratch_dir = folder / "inside" / "worker",
        .log_file = folder / "worker.log",
        .environment = {{"HOSTILE_OUTSIDE", (folder / "outside" / "written").string()},
                        {"HOSTILE_PORT", std::to_string(ntohs(address.sin_port))},
                        {"HOSTILE_REPORT", (folder / "inside" / "report").string()}},
        .write_roots = {folder / "inside"}});
    run.confinement = hostile.Ready().value("confinement", json::object());
    const auto reply =
        hostile.Request({{"op", "load"}, {"path", (folder / "hostile.so").string()}}, 120s);
    EXPECT_EQ(reply.status, worker::ReplyStatus::kOk) << reply.detail;
  }
  ::close(listener);
  std::ifstream(folder / "inside" / "report") >> run.write_errno >> run.connect_errno;
  run.outside_exists = fs::exists(folder / "outside" / "written");
  return run;
}

// The worker runs cases that are code: by default it has no network and writes only beneath the
// folders it was given, which holds for whatever it loads or starts, not just for Python. The
// same library in a worker told not to confine it writes and connects: the test would see a
// confinement that held nothing.
TEST(WorkerConfinementTest, ALoadedLibraryCanNeitherWriteOutsideNorConnect) {
  const auto folder = std::filesystem::temp_directory_path() /
                      ("inductor-fuzz-confinement-test-" + std::to_string(::getpid()));
  const HostileRun free = LoadHostileLibrary(folder, false);
  EXPECT_EQ(free.write_errno, 0);
  EXPECT_EQ(free.connect_errno, 0);
  EXPECT_TRUE(free.outside_exists);
  EXPECT_FALSE(free.confinement.value("requested", true)) << free.confinement.dump();

  const HostileRun confined = LoadHostileLibrary(folder, true);
  std::filesystem::remove_all(folder);
  ASSERT_TRUE(confined.confinement.value("requested", false)) << confined.confinement.dump();
  if (!confined.confinement.value("writes_limited", false) ||
      !confined.confinement.value("network_cut", false))
    GTEST_SKIP() << "this kernel cannot confine the worker: " << confined.confinement.dump();
  EXPECT_EQ(confined.write_errno, EACCES) << confined.confinement.dump();
  EXPECT_FALSE(confined.outside_exists);
  EXPECT_NE(confined.connect_errno, 0);
}

TEST_F(WorkerTest, CaseRunningPastItsTimeoutIsStopped) {
  const auto outcome = Run(
      SmallCase("hangs", "    import time\n    time.sleep(600)\n    return q_idx >= kv_idx\n"), 5s);
  EXPECT_EQ(outcome.Kind(), "timeout") << outcome.result.dump(2);
}

} // namespace
} // namespace fuzzer
