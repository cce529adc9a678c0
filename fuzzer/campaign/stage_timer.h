#pragma once

#include "fuzzer/worker/worker_client.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <string>

namespace fuzzer::campaign {

// Adds a stage's wall time to a case's `stages` when it goes out of scope; the start-up of a
// worker process during it (importing torch) goes to "worker_start" instead. Without a worker
// (the analysis thread's stages) the whole time is the stage's.
class StageTimer {
public:
  StageTimer(std::map<std::string, double> &stages, std::string stage, const worker::Worker *worker)
      : stages_(stages), stage_(std::move(stage)), worker_(worker),
        startup_before_(worker ? worker->startup_seconds() : 0) {}
  StageTimer(const StageTimer &) = delete;
  StageTimer &operator=(const StageTimer &) = delete;
  ~StageTimer() {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    if (!worker_) {
      stages_[stage_] += wall;
      return;
    }
    const double startup = worker_->startup_seconds() - startup_before_;
    stages_["worker_start"] += startup;
    stages_[stage_] += std::max(0.0, wall - startup);
  }

private:
  std::map<std::string, double> &stages_;
  std::string stage_;
  const worker::Worker *worker_;
  double startup_before_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

} // namespace fuzzer::campaign
