#pragma once

// The text files what a workflow writes is made from (workflows/templates/*.tmpl: a matrix
// finding's repro.sh, a kernel's main), compiled into the binary by CMake so that nothing is
// read from the source tree at run time. A template's holes are @NAME@.

#include <map>
#include <string>
#include <string_view>

namespace workflows {

// The template of that file name ("matrix_repro.sh.tmpl"); std::invalid_argument for another.
std::string_view Template(std::string_view name);

// `text` with each @NAME@ of `values` put in. std::logic_error when a value names no hole of
// the text or a hole is left: a template and its caller disagree.
std::string FillTemplate(std::string_view text, const std::map<std::string, std::string> &values);

} // namespace workflows
