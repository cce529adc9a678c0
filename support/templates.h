#pragma once

// Text files that a library writes from (its templates/*.tmpl: a repro script, a shell script,
// a kernel's main), compiled into that library by inductor_fuzz_embed_templates
// (support/embed_templates.cmake), so that nothing is read from the source tree at run time.
// A template's holes are @NAME@.

#include <map>
#include <span>
#include <string>
#include <string_view>

namespace support {

struct TemplateFile {
  std::string_view name; // the file name, "matrix_repro.sh.tmpl"
  std::string_view text;
};

// The template of that file name in `table`; std::invalid_argument for another.
std::string_view FindTemplate(std::span<const TemplateFile> table, std::string_view name);

// `text` with each @NAME@ of `values` put in, in one pass, so that a value is never read as a
// hole. std::logic_error when a value names no hole of the text or a hole is left: a template
// and its caller disagree.
std::string FillTemplate(std::string_view text, const std::map<std::string, std::string> &values);

} // namespace support
