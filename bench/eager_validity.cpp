// Generator validity: cases for seeds FIRST..LAST run in eager mode on one worker. Every case
// must run, except those marked expected to raise (which must raise that class).
// Usage: build/bench_eager_validity [FIRST [LAST]]   (default 1 1000)
#include "fuzzer/generate/generator.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"
#include "support/tool_paths.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <unistd.h>

int main(int argc, char **argv) {
  const std::uint64_t first = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
  const std::uint64_t last = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000;
  const auto paths = support::LocateToolPaths(std::nullopt);
  const auto scratch = std::filesystem::temp_directory_path() /
                       fmt::format("inductor-fuzz-bench-validity-{}", ::getpid());
  fuzzer::worker::Worker worker({.worker_executable = paths.worker_executable,
                                 .venv = paths.venv,
                                 .scratch_dir = scratch / "worker",
                                 .log_file = scratch / "worker.log"});
  const auto policy = fuzzer::generate::GenerationPolicy::Default();
  std::map<std::string, int> counts;
  std::map<std::string, int> by_api;
  const auto started = std::chrono::steady_clock::now();
  for (std::uint64_t seed = first; seed <= last; ++seed) {
    const corpus::Case c = fuzzer::generate::GenerateCase({seed, 0, ""}, policy).c;
    const auto outcome = fuzzer::worker::RunCaseOnWorker(
        worker, c, scratch / "cache", std::chrono::minutes(2), {.eager_only = true});
    std::string verdict;
    if (outcome.Status() == "pass" && !c.expect_raises.empty())
      fmt::print("seed {} ({}): marked to raise {}, ran\n", seed, c.api, c.expect_raises);
    if (outcome.Status() == "pass")
      verdict = c.expect_raises.empty() ? "ran" : "expected to raise, but ran";
    else if (outcome.Status() == "expected")
      verdict = "raised as expected";
    else
      verdict = "FAILED";
    ++counts[verdict];
    ++by_api[c.api + (outcome.Status() == "finding" ? " FAILED" : " ok")];
    if (outcome.Status() == "finding")
      fmt::print("seed {} ({}): {} {}\n", seed, c.api, outcome.Kind(),
                 outcome.result.contains("exception")
                     ? outcome.result["exception"].value("normalized_message", "")
                     : outcome.result.value("detail", ""));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fmt::print("eager validity over seeds {}..{} ({:.0f} s):\n", first, last, seconds);
  for (const auto &[verdict, n] : counts)
    fmt::print("  {:<28} {:>5}\n", verdict, n);
  for (const auto &[api, n] : by_api)
    fmt::print("  {:<28} {:>5}\n", api, n);
  worker.Shutdown();
  std::filesystem::remove_all(scratch);
  return counts.contains("FAILED") ? 1 : 0;
}
