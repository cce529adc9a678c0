#pragma once

#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>

namespace fuzzer::campaign {

// The first exception a campaign's threads met (a full disk, a corpus made read-only under it):
// the other threads see Halted() and stop taking work, and the campaign rethrows it once every
// thread is joined, as one line that says what is free where. An exception that escaped a
// thread would end the process (std::terminate) with nothing said.
class FirstFailure {
public:
  // Runs `body`; an exception it throws is recorded and `wake` is called, so that threads
  // waiting on each other notice.
  template <typename Body, typename Wake> void Run(Body &&body, Wake &&wake) noexcept {
    try {
      body();
    } catch (...) {
      Record(std::current_exception());
      wake();
    }
  }

  void Record(std::exception_ptr error);
  bool Halted() const { return halted_.load(); }

  // Nothing when no thread failed; else the failure as a support::InputError (exit 2) naming
  // the space left in `corpus` and that --resume goes on once it is fixed.
  void RethrowIfAny(const std::filesystem::path &corpus) const;

private:
  mutable std::mutex mutex_;
  std::exception_ptr first_;
  std::atomic<bool> halted_{false};
};

} // namespace fuzzer::campaign
