#include "fuzzer/campaign/first_failure.h"

#include "support/errors.h"

#include <fmt/format.h>

#include <string>
#include <system_error>

namespace fuzzer::campaign {

void FirstFailure::Record(std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  if (!first_)
    first_ = std::move(error);
  halted_ = true;
}

void FirstFailure::RethrowIfAny(const std::filesystem::path &corpus) const {
  std::exception_ptr first;
  {
    std::lock_guard lock(mutex_);
    first = first_;
  }
  if (!first)
    return;
  std::string what;
  try {
    std::rethrow_exception(first);
  } catch (const std::exception &error) {
    what = error.what();
  } catch (...) {
    what = "an unknown error";
  }
  std::error_code error;
  const auto space = std::filesystem::space(corpus, error);
  const std::string free = error ? "unknown space" : fmt::format("{} MiB", space.available >> 20);
  throw support::InputError(fmt::format(
      "the campaign stopped: {}; {} free in {}; the journal and the stored findings are whole: "
      "free space (or make the folder writable) and go on with --resume",
      what, free, corpus.string()));
}

} // namespace fuzzer::campaign
