#pragma once

#include <atomic>

namespace support {

// While one is alive, SIGINT and SIGTERM ask the work to stop instead of ending the process:
// `requested()` turns true, and the handler of that signal goes back to the default, so that a
// second Ctrl-C ends the process at once. Destroying it puts the default handlers back. A
// campaign and the reducers poll the flag, keep their best result so far and exit cleanly.
// One at a time: a signal handler can reach only a flag with static storage.
class StopOnInterrupt {
public:
  StopOnInterrupt();
  ~StopOnInterrupt();
  StopOnInterrupt(const StopOnInterrupt &) = delete;
  StopOnInterrupt &operator=(const StopOnInterrupt &) = delete;

  const std::atomic<bool> &requested() const;
};

} // namespace support
