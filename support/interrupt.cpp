#include "support/interrupt.h"

#include <csignal>

namespace support {
namespace {

std::atomic<bool> stop_requested{false};

extern "C" void RequestStop(int signal_number) {
  stop_requested = true;
  std::signal(signal_number, SIG_DFL); // a second one ends the process at once
}

} // namespace

StopOnInterrupt::StopOnInterrupt() {
  stop_requested = false;
  std::signal(SIGINT, RequestStop);
  std::signal(SIGTERM, RequestStop);
}

StopOnInterrupt::~StopOnInterrupt() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

const std::atomic<bool> &StopOnInterrupt::requested() const { return stop_requested; }

} // namespace support
