#pragma once

// The templates the worker's scripts are written from (fuzzer/worker/templates/*.tmpl: a case's
// standalone repro.py); fill them with support::FillTemplate.

#include <string_view>

namespace fuzzer::worker {

// The template of that file name ("case_repro.py.tmpl"); std::invalid_argument for another.
std::string_view Template(std::string_view name);

} // namespace fuzzer::worker
