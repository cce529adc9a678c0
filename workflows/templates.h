#pragma once

// The templates the workflows write files from (workflows/templates/*.tmpl: a matrix finding's
// repro.sh, a kernel's main); fill them with support::FillTemplate.

#include "support/templates.h"

#include <string_view>

namespace workflows {

// The template of that file name ("matrix_repro.sh.tmpl"); std::invalid_argument for another.
std::string_view Template(std::string_view name);

} // namespace workflows
