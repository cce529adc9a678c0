// Resident memory of one worker: after `import torch`, then after each of N cases (default 20),
// so that a leak across cases shows as growth. Usage: build/bench_worker_memory [N]
#include "corpus/case.h"
#include "fuzzer/worker/case_runner.h"
#include "fuzzer/worker/worker_client.h"
#include "support/tool_paths.h"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <unistd.h>

int main(int argc, char **argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 20;
  const auto paths = support::LocateToolPaths(std::nullopt);
  const auto scratch = std::filesystem::temp_directory_path() /
                       fmt::format("inductor-fuzz-bench-memory-{}", ::getpid());
  fuzzer::worker::Worker worker({.worker_executable = paths.worker_executable,
                                 .venv = paths.venv,
                                 .scratch_dir = scratch / "worker",
                                 .log_file = scratch / "worker.log"});
  const auto &ready = worker.Ready();
  const double mib = 1024.0 * 1024.0;
  fmt::print("worker rss after import torch: {:.0f} MiB\n",
             ready["rss_after_import_bytes"].get<double>() / mib);
  const std::array<const char *, 4> bodies = {"    return q_idx >= kv_idx\n",
                                              "    return (q_idx - kv_idx).abs() <= 64\n",
                                              "    return (q_idx // 64) == (kv_idx // 64)\n",
                                              "    return (kv_idx < 32) | (q_idx >= kv_idx)\n"};
  double total_seconds = 0;
  for (int i = 0; i < count; ++i) {
    corpus::Case c;
    c.name = fmt::format("memory-{}", i);
    c.mask_mod = {"mask", std::string("def mask(b, h, q_idx, kv_idx):\n") + bodies[i % 4]};
    c.create_block_mask.batch = 1;
    c.create_block_mask.heads = 1;
    c.create_block_mask.q_len = 128 * (1 + i % 4);
    c.create_block_mask.kv_len = 128 * (1 + i % 3);
    c.inductor.cpp_threads = 1 << (i % 4);
    const auto started = std::chrono::steady_clock::now();
    const auto outcome = fuzzer::worker::RunCaseOnWorker(
        worker, c, scratch / fmt::format("cache-{}", i), std::chrono::minutes(10));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    total_seconds += seconds;
    fmt::print("case {:2} {:<8} {:5.1f} s  rss {:.0f} MiB\n", i + 1, outcome.Status(), seconds,
               outcome.result.value("rss_bytes", 0.0) / mib);
    std::filesystem::remove_all(scratch / fmt::format("cache-{}", i));
  }
  fmt::print("mean wall time per case: {:.1f} s over {} cases\n", total_seconds / count, count);
  worker.Shutdown();
  std::filesystem::remove_all(scratch);
  return 0;
}
