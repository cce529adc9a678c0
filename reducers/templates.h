#pragma once

// The templates the reducers write scripts from (reducers/templates/*.tmpl: a reduced finding's
// repro.py in its short, unrolled and general forms); fill them with support::FillTemplate.

#include <string_view>

namespace reducers {

// The template of that file name ("short_repro.py.tmpl"); std::invalid_argument for another.
std::string_view Template(std::string_view name);

} // namespace reducers
