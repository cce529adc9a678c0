#include "reducers/case/repro_python.h"
#include "reducers/case/api_row.h"

#include "reducers/templates.h"
#include "support/templates.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace reducers::repro {

using nlohmann::json;

std::string PyLiteral(const json &value) {
  if (value.is_boolean())
    return value.get<bool>() ? "True" : "False";
  if (value.is_null())
    return "None";
  if (value.is_array()) {
    std::vector<std::string> items;
    for (const auto &item : value)
      items.push_back(PyLiteral(item));
    return fmt::format("[{}]", fmt::join(items, ", "));
  }
  if (value.is_object()) {
    std::vector<std::string> items;
    for (const auto &[key, item] : value.items())
      items.push_back(fmt::format("{}: {}", json(key).dump(), PyLiteral(item)));
    return fmt::format("{{{}}}", fmt::join(items, ", "));
  }
  return value.dump();
}

std::string OptionalSize(const std::optional<std::int64_t> &size) {
  return size ? std::to_string(*size) : "None";
}

std::string ConfigLiteral(const corpus::Case &c, ReproConfig which) {
  const json complete = corpus::InductorConfig(c.inductor);
  json config = json::object();
  if (which == ReproConfig::kComplete) {
    config = complete;
  } else {
    const json defaults = corpus::InductorConfig(corpus::InductorKnobs{});
    for (const auto &[key, value] : complete.items())
      if (key == "cpp.threads" || defaults[key] != value)
        config[key] = value;
  }
  std::vector<std::string> items;
  for (const auto &[key, value] : config.items())
    items.push_back(fmt::format("\"{}\": {}", key, PyLiteral(value)));
  return fmt::format("{{{}}}", fmt::join(items, ", "));
}

std::string TensorLine(const corpus::CapturedTensor &tensor) {
  const std::string values = tensor.IsFloating()      ? json(tensor.reals).dump()
                             : tensor.dtype == "bool" ? PyLiteral([&] {
                                 json flags = json::array();
                                 for (auto v : tensor.integers)
                                   flags.push_back(v != 0);
                                 return flags;
                               }())
                                                      : json(tensor.integers).dump();
  return fmt::format("{} = torch.tensor({}, dtype=torch.{}).reshape({})", tensor.name, values,
                     tensor.dtype, PyLiteral(json(tensor.shape)));
}

std::string CompiledApi(const corpus::Case &c) {
  if (c.compile_with == corpus::kAoti)
    return fmt::format("aoti({})", c.compile_scope != corpus::kCompileApi ? "program" : c.api);
  const std::string function =
      ReduceApiOf(c.api).compiles_mask_mod && c.mask_mod                         ? c.mask_mod->name
      : c.compile_scope != corpus::kCompileApi || c.api == corpus::kIndexProgram ? "program"
                                                                                 : c.api;
  return fmt::format("torch.compile({}, dynamic={})", function,
                     corpus::DynamicArgument(c).is_null() ? "None"
                     : c.inductor.dynamic                 ? "True"
                                                          : "False");
}

// An aoti case's compiled API (templates/aoti_helper.py.tmpl): each call exported in an
// nn.Module (the tensor arguments its inputs, the rest constants), compiled and packaged by
// AOTInductor, loaded and run. A BlockMask is no pytree output: the module returns its tensors,
// made a BlockMask again outside.
std::string AotiHelperFor(const corpus::Case &c) {
  return c.compile_with == corpus::kAoti
             ? "\n" + std::string(Template("aoti_helper.py.tmpl")) + "\n"
             : "";
}

std::string TensorLines(const corpus::Case &c) {
  std::string lines;
  for (const auto &tensor : c.tensors)
    lines += TensorLine(tensor) + "\n";
  return lines;
}

std::string FunctionSources(const corpus::Case &c) {
  std::string sources;
  for (const auto *function : {&c.mask_mod, &c.score_mod})
    if (*function)
      sources += (*function)->source + ((*function)->source.ends_with('\n') ? "" : "\n");
  return sources;
}

std::string BlockSizeLiteral(const corpus::BlockMaskArguments &mask) {
  return mask.block_size.size() == 1
             ? std::to_string(mask.block_size.front())
             : fmt::format("({}, {})", mask.block_size[0], mask.block_size[1]);
}

std::string WithoutLastNewline(std::string text) {
  if (text.ends_with('\n'))
    text.pop_back();
  return text;
}

std::string AttentionOptions(const corpus::AttentionArguments &a) {
  std::string options;
  if (a.scale)
    options += fmt::format(", scale={}", *a.scale);
  if (a.return_lse)
    options += ", return_lse=True";
  if (!a.kernel_options.is_null())
    options += fmt::format(", kernel_options={}", PyLiteral(a.kernel_options));
  return options;
}

std::string CreateBlockMaskOptions(const corpus::Case &c) {
  return fmt::format("device=\"cpu\", BLOCK_SIZE={}{}", BlockSizeLiteral(c.create_block_mask),
                     c.create_block_mask.separate_full_blocks ? ""
                                                              : ", separate_full_blocks=False");
}

std::string Indented(const std::string &source) {
  std::string out, line;
  std::istringstream lines(source);
  while (std::getline(lines, line))
    out += line.empty() ? "\n" : "    " + line + "\n";
  return out;
}

} // namespace reducers::repro
