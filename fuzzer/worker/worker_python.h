#pragma once

#include <string_view>

namespace fuzzer::worker {

// fuzzer/python/worker.py and oracles.py, one after the other, compiled into the worker.
extern const std::string_view kWorkerPython;

} // namespace fuzzer::worker
