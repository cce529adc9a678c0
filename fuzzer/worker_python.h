#pragma once

#include <string_view>

namespace fuzzer {

// The source of fuzzer/python/worker.py, compiled into the worker.
extern const std::string_view kWorkerPython;

} // namespace fuzzer
