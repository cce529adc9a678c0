#include "reducers/case/minimal_repro.h"

#include "reducers/templates.h"
#include "support/templates.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <regex>
#include <sstream>

namespace reducers {
namespace {

using nlohmann::json;

// A JSON value as a Python literal.
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

// The configuration the script patches, as a Python dict literal.
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

// Whether the case needs the general form of the repro: a call sequence, closure constants,
// or flex_attention inputs and options the short form does not spell.

// How the script compiles the case's API: torch.compile, or the aoti helper above.
std::string CompiledApi(const corpus::Case &c) {
  if (c.compile_with == corpus::kAoti)
    return fmt::format("aoti({})", c.compile_scope != corpus::kCompileApi ? "program" : c.api);
  return fmt::format(
      "torch.compile({}, dynamic={})",
      c.compile_scope != corpus::kCompileApi || c.api == corpus::kIndexProgram ? "program" : c.api,
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

// flex_attention's options beyond the inputs, as the call spells them: ", scale=0.5, ...".
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

// One input of the unrolled form, from its shape `s` (B, H, N, E), laid out as the worker lays
// it out (oracles.laid_out) and drawn in the same order.
std::string UnrolledInput(const std::string &layout, const std::string &dtype) {
  const std::string to = dtype == "float32" ? "" : ".to(torch." + dtype + ")";
  if (layout == "bshd-transposed")
    return "torch.randn((s[0], s[2], s[1], s[3]), generator=g)" + to + ".transpose(1, 2)";
  if (layout == "sliced")
    return "torch.randn((s[0], s[1], s[2] + 1, 2 * s[3]), generator=g)" + to + "[:, :, 1:, :s[3]]";
  if (layout == "expanded-kv")
    return "torch.randn((s[0], s[1] if i == 0 else 1, s[2], s[3]), generator=g)" + to +
           ".expand(*s)";
  return "torch.randn(s, generator=g)" + to;
}

bool NeedsGeneralForm(const corpus::Case &c) {
  if (!c.calls.empty() || !c.constants.empty() || c.compile_scope != corpus::kCompileApi ||
      !c.create_block_mask.separate_full_blocks)
    return true;
  if (!c.attention)
    return false;
  const auto &a = *c.attention;
  return a.scale || a.return_lse || !a.kernel_options.is_null() || !a.qkv.empty() ||
         !a.block_mask_tensors.empty() || a.layout != corpus::kContiguousLayout || a.from_kv_blocks;
}

// create_block_mask's keyword arguments after the mask's sizes, as the script spells them.
std::string CreateBlockMaskOptions(const corpus::Case &c) {
  return fmt::format("device=\"cpu\", BLOCK_SIZE={}{}", BlockSizeLiteral(c.create_block_mask),
                     c.create_block_mask.separate_full_blocks ? ""
                                                              : ", separate_full_blocks=False");
}

// compile_scope "function": the user's function the script compiles, of the API's inputs and
// the constants, whose body makes the functions and calls the API.
std::string Indented(const std::string &source);

// compile_scope "module": the same body as the forward of an nn.Module holding the case's
// tensors (floating ones as parameters, the others as buffers), read into locals of the same
// names that the functions, defined in the forward, close over.
std::string ProgramDefinition(const corpus::Case &c) {
  if (c.compile_scope == corpus::kCompileApi)
    return "";
  std::vector<std::string> parameters = c.api == "flex_attention"
                                            ? std::vector<std::string>{"q", "k", "v", "block_mask"}
                                            : std::vector<std::string>{"sizes"};
  std::vector<std::string> constants;
  for (const auto &[name, value] : c.constants.items()) {
    parameters.push_back(name);
    constants.push_back(fmt::format("{}={}", name, name));
  }
  std::string call;
  if (c.api == "flex_attention") {
    const auto &a = *c.attention;
    call = fmt::format("flex_attention(q, k, v, score_mod=score_mod, block_mask=block_mask, "
                       "enable_gqa={}{})",
                       a.enable_gqa ? "True" : "False", AttentionOptions(a));
  } else {
    call = fmt::format("{}(mask_mod, *sizes, {})", c.api,
                       c.api == "create_block_mask" ? CreateBlockMaskOptions(c) : "device=\"cpu\"");
  }
  if (c.compile_scope == corpus::kCompileFunction)
    return fmt::format("\n\ndef program({}):  # compiled whole: the constants are its arguments\n"
                       "    mask_mod, score_mod = functions({})\n"
                       "    return {}\n",
                       fmt::join(parameters, ", "), fmt::join(constants, ", "), call);
  std::string model =
      "\n\nclass Model(torch.nn.Module):  # the tables as its buffers and parameters\n"
      "    def __init__(self):\n"
      "        super().__init__()\n";
  std::string forward = fmt::format("    def forward(self, {}):\n", fmt::join(parameters, ", "));
  for (const auto &tensor : c.tensors) {
    model += tensor.IsFloating() ? fmt::format("        self.{} = torch.nn.Parameter({}.clone(), "
                                               "requires_grad=False)\n",
                                               tensor.name, tensor.name)
                                 : fmt::format("        self.register_buffer(\"{}\", {}.clone())\n",
                                               tensor.name, tensor.name);
    forward += fmt::format("        {} = self.{}\n", tensor.name, tensor.name);
  }
  if (c.tensors.empty())
    model += "        pass\n";
  std::string functions;
  for (const auto *function : {&c.mask_mod, &c.score_mod})
    if (*function)
      functions += Indented(Indented((*function)->source));
  if (!c.mask_mod)
    functions += "        mask_mod = None\n";
  if (!c.score_mod)
    functions += "        score_mod = None\n";
  const std::string names =
      fmt::format("        mask_mod, score_mod = {}, {}\n", c.mask_mod ? c.mask_mod->name : "None",
                  c.score_mod ? c.score_mod->name : "None");
  return model + "\n" + forward + functions + names + fmt::format("        return {}\n", call) +
         "\n\nprogram = Model()\n";
}

// attention.from_kv_blocks: the helper that rebuilds create_block_mask's mask with
// BlockMask.from_kv_blocks from tensors laid out as the case says.
std::string BlockMaskHelper(const corpus::Case &c) {
  return c.attention && c.attention->from_kv_blocks
             ? "\n" + std::string(Template("from_kv_blocks_helper.py.tmpl"))
             : "";
}

std::string Indented(const std::string &source) {
  std::string out, line;
  std::istringstream lines(source);
  while (std::getline(lines, line))
    out += line.empty() ? "\n" : "    " + line + "\n";
  return out;
}

json TensorValues(const corpus::CapturedTensor &tensor) {
  if (tensor.IsFloating())
    return tensor.reals;
  if (tensor.dtype != "bool")
    return tensor.integers;
  json flags = json::array();
  for (auto v : tensor.integers)
    flags.push_back(v != 0);
  return flags;
}

// One call's settings as the script's CALLS holds them: what the worker's case_for_call makes
// of the case for that call.
json CallSettings(const corpus::Case &c, std::size_t index) {
  json constants = c.constants;
  auto mask = c.create_block_mask;
  std::optional<corpus::AttentionArguments> attention = c.attention;
  std::vector<corpus::CapturedTensor> tensors = c.tensors;
  if (index > 0) {
    const auto &call = c.calls[index - 1];
    for (const auto &[name, value] : call.constants.items())
      constants[name] = value;
    if (call.batch) {
      if (mask.batch)
        mask.batch = call.batch;
      if (attention)
        attention->batch = *call.batch;
    }
    for (auto [field, value] : {std::pair{&mask.q_len, call.q_len}, {&mask.kv_len, call.kv_len}})
      if (value)
        *field = *value;
    if (attention && call.q_len)
      attention->q_len = *call.q_len;
    if (attention && call.kv_len)
      attention->kv_len = *call.kv_len;
    if (attention && !call.dtype.empty())
      attention->dtype = call.dtype;
    for (const auto &replacement : call.tensors)
      for (auto &tensor : tensors)
        if (tensor.name == replacement.name)
          tensor = replacement;
  }
  json settings = {{"constants", constants},
                   {"mask",
                    {mask.batch ? json(*mask.batch) : json(nullptr),
                     mask.heads ? json(*mask.heads) : json(nullptr), mask.q_len, mask.kv_len}}};
  if (attention) {
    settings["B"] = attention->batch;
    settings["Q_LEN"] = attention->q_len;
    settings["KV_LEN"] = attention->kv_len;
    settings["dtype"] = attention->dtype;
  }
  bool tables_change = false;
  for (const auto &call : c.calls)
    tables_change |= !call.tensors.empty();
  if (tables_change) {
    json values = json::object();
    for (const auto &tensor : tensors)
      values[tensor.name] = TensorValues(tensor);
    settings["tables"] = values;
  }
  return settings;
}

// The body of the general form's run(api, call): the call's inputs, its block mask and its
// options, as the worker makes them for that call.
std::string GeneralRunBody(const corpus::Case &c) {
  std::string script;
  const std::string block_size = BlockSizeLiteral(c.create_block_mask);
  if (c.api == "flex_attention" && c.attention) {
    const auto &a = *c.attention;
    script += "    dtype = getattr(torch, call[\"dtype\"])\n";
    if (!a.qkv.empty()) {
      script += fmt::format("    q, k, v = ({}.to(dtype), {}.to(dtype), {}.to(dtype))\n", a.qkv[0],
                            a.qkv[1], a.qkv[2]);
    } else {
      script += fmt::format("    g = torch.Generator().manual_seed({})\n", a.input_seed);
      // The inputs laid out as the worker lays them out (oracles.laid_out), in the same order.
      std::string input = "torch.randn((call[\"B\"], h, n, e), generator=g).to(dtype)";
      if (a.layout == "bshd-transposed")
        input = "torch.randn((call[\"B\"], n, h, e), generator=g).to(dtype).transpose(1, 2)";
      else if (a.layout == "sliced")
        input = "torch.randn((call[\"B\"], h, n + 1, 2 * e), generator=g).to(dtype)[:, :, 1:, :e]";
      else if (a.layout == "expanded-kv")
        input = "torch.randn((call[\"B\"], 1 if i else h, n, e), generator=g).to(dtype)"
                ".expand(call[\"B\"], h, n, e)";
      const std::string shapes =
          fmt::format("(({}, call[\"Q_LEN\"], {}), ({}, call[\"KV_LEN\"], {}), ({}, "
                      "call[\"KV_LEN\"], {}))",
                      a.q_heads, a.head_dim, a.kv_heads, a.head_dim, a.kv_heads, a.value_dim);
      script +=
          a.layout == "expanded-kv"
              ? fmt::format("    q, k, v = ({} for i, (h, n, e) in enumerate({}))\n", input, shapes)
              : fmt::format("    q, k, v = ({} for h, n, e in {})\n", input, shapes);
    }
    std::string block_mask = "None";
    if (a.from_kv_blocks && c.mask_mod)
      block_mask = fmt::format(
          "from_kv_blocks(create_block_mask(mask_mod, *call[\"mask\"], {}), {}, {})",
          CreateBlockMaskOptions(c),
          PyLiteral(json{{"partial", a.from_kv_blocks->partial}, {"full", a.from_kv_blocks->full}}),
          a.q_heads);
    else if (!a.block_mask_tensors.empty())
      block_mask = fmt::format("BlockMask.from_kv_blocks({}, BLOCK_SIZE={}, mask_mod=mask_mod, "
                               "seq_lengths=(call[\"Q_LEN\"], call[\"KV_LEN\"]))",
                               fmt::join(a.block_mask_tensors, ", "), block_size);
    else if (a.use_block_mask && c.mask_mod)
      block_mask = fmt::format("create_block_mask(mask_mod, *call[\"mask\"], {})",
                               CreateBlockMaskOptions(c));
    const std::string options = AttentionOptions(a);
    if (c.compile_scope != corpus::kCompileApi)
      return script +
             fmt::format("    return api(q, k, v, {}, **call[\"constants\"])\n", block_mask);
    script += fmt::format("    return api(q, k, v, score_mod=score_mod, block_mask={}, "
                          "enable_gqa={}{})\n",
                          block_mask, a.enable_gqa ? "True" : "False", options);
  } else if (c.compile_scope != corpus::kCompileApi) {
    script += "    return api(call[\"mask\"], **call[\"constants\"])\n";
  } else {
    script +=
        fmt::format("    return api(mask_mod, *call[\"mask\"], {})\n",
                    c.api == "create_block_mask" ? CreateBlockMaskOptions(c) : "device=\"cpu\"");
  }
  return script;
}

// The general form (templates/general_repro.py.tmpl): every call of the sequence, each eager
// reference on its own, then the calls of one compiled function in order.
std::string EmitGeneralRepro(const corpus::Case &c, const std::string &signature,
                             ReproConfig config) {
  std::vector<std::string> parameters;
  for (const auto &[name, value] : c.constants.items())
    parameters.push_back(name);
  std::string functions;
  for (const auto *function : {&c.mask_mod, &c.score_mod})
    if (*function)
      functions += Indented((*function)->source);
  std::vector<std::string> calls;
  for (std::size_t i = 0; i <= c.calls.size(); ++i)
    calls.push_back("    " + PyLiteral(CallSettings(c, i)) + ",");
  std::string assertion;
  if (c.api == "create_block_mask")
    assertion = "        torch.testing.assert_close(got.to_dense(), want.to_dense())";
  else if (c.api == "create_mask")
    assertion = "        torch.testing.assert_close(got, want)";
  else
    assertion =
        "        atol = {\"bfloat16\": 3e-2, \"float16\": 3e-3}.get(call[\"dtype\"], 1e-4)\n"
        "        torch.testing.assert_close(got, want, atol=atol, rtol=0, equal_nan=True)";
  return support::FillTemplate(Template("general_repro.py.tmpl"),
                               {{"SIGNATURE", signature.substr(0, 200)},
                                {"CASE", c.name},
                                {"CONFIG", ConfigLiteral(c, config)},
                                {"TENSORS", TensorLines(c)},
                                {"PARAMETERS", fmt::format("{}", fmt::join(parameters, ", "))},
                                {"FUNCTIONS", functions},
                                {"MASK_MOD", c.mask_mod ? c.mask_mod->name : "None"},
                                {"SCORE_MOD", c.score_mod ? c.score_mod->name : "None"},
                                {"CALLS", fmt::format("{}", fmt::join(calls, "\n"))},
                                {"RUN", WithoutLastNewline(GeneralRunBody(c))},
                                {"API", c.compile_scope != corpus::kCompileApi ? "program" : c.api},
                                {"PROGRAM", ProgramDefinition(c)},
                                {"BLOCK_MASK_HELPER", BlockMaskHelper(c)},
                                {"AOTI_HELPER", AotiHelperFor(c)},
                                {"COMPILED", CompiledApi(c)},
                                {"ASSERTION", assertion}});
}

// A call sequence (or one call) as a person writes it (templates/unrolled_repro.py.tmpl), for a
// failure in the compiled calls themselves (a compile error, an exception, a crash or a hang: no
// eager reference needed): the calls unrolled in order, each saying only what changes from the call
// before it; the tables the functions read and nothing else. Nothing: the case needs the general
// form (a wrong result compares every call with eager, AOTInductor, custom inputs).
std::optional<std::string> EmitUnrolledRepro(const corpus::Case &c, const std::string &signature,
                                             ReproConfig config) {
  const std::string kind = signature.substr(0, signature.find('|'));
  const bool compiled_call_fails =
      kind == "compile-error" || kind == "exception" || kind == "crash" || kind == "timeout";
  if (!compiled_call_fails || c.compile_with == corpus::kAoti ||
      c.compile_scope != corpus::kCompileApi)
    return std::nullopt;
  if (c.api == "flex_attention") {
    if (!c.attention)
      return std::nullopt;
    const auto &a = *c.attention;
    if (!a.qkv.empty() || !a.block_mask_tensors.empty() || a.from_kv_blocks)
      return std::nullopt;
  }
  const auto reads = [&](const std::string &name) {
    for (const auto *function : {&c.mask_mod, &c.score_mod})
      if (*function && std::regex_search((*function)->source, std::regex("\\b" + name + "\\b")))
        return true;
    return false;
  };
  const auto &mask = c.create_block_mask;
  const bool attention = c.api == "flex_attention";
  const bool block_mask = attention ? c.attention->use_block_mask && c.mask_mod : true;
  std::vector<std::string> imports;
  if (!attention || block_mask)
    imports.push_back(c.api == "create_mask" ? "create_mask" : "create_block_mask");
  if (attention)
    imports.push_back("flex_attention");
  for (const std::string name : {"and_masks", "or_masks"})
    if (reads(name))
      imports.insert(imports.begin(), name);
  std::string tensors;
  for (const auto &tensor : c.tensors)
    if (reads(tensor.name))
      tensors += TensorLine(tensor) + "\n";
  const std::string mask_name = c.mask_mod ? c.mask_mod->name : "None";
  const std::string score_name = c.score_mod ? c.score_mod->name : "None";
  std::vector<std::string> names;
  for (const auto *function : {&c.mask_mod, &c.score_mod})
    if (*function)
      names.push_back((*function)->name);
  // The functions close over the constants, as the case's do: a later call makes them again.
  std::vector<std::string> parameters;
  for (const auto &[name, value] : c.constants.items())
    parameters.push_back(name);
  std::string functions = FunctionSources(c);
  if (!parameters.empty()) {
    functions = fmt::format("\n\ndef functions({}):\n", fmt::join(parameters, ", "));
    for (const auto *function : {&c.mask_mod, &c.score_mod})
      if (*function)
        functions += Indented((*function)->source);
    functions += fmt::format("    return {}\n\n\n", fmt::join(names, ", "));
  }
  const std::string block_size = BlockSizeLiteral(mask);
  std::string script;
  json constants = c.constants;
  std::int64_t batch = attention ? c.attention->batch : mask.batch.value_or(1);
  std::int64_t q_len = attention ? c.attention->q_len : mask.q_len;
  std::int64_t kv_len = attention ? c.attention->kv_len : mask.kv_len;
  std::string dtype = attention ? c.attention->dtype : "float32";
  for (std::size_t index = 0; index <= c.calls.size(); ++index) {
    bool inputs_change = index == 0, functions_change = index == 0;
    if (index > 0) {
      const auto &call = c.calls[index - 1];
      for (const auto &[name, value] : call.constants.items())
        if (constants[name] != value) {
          constants[name] = value;
          functions_change = true;
        }
      for (auto [field, value] :
           {std::pair{&batch, call.batch}, {&q_len, call.q_len}, {&kv_len, call.kv_len}})
        if (value && *value != *field) {
          *field = *value;
          inputs_change = true;
        }
      if (!call.dtype.empty() && call.dtype != dtype) {
        dtype = call.dtype;
        inputs_change = true;
      }
      for (const auto &tensor : call.tensors)
        if (reads(tensor.name))
          script += "    " + TensorLine(tensor) + "\n";
    }
    if (functions_change && !parameters.empty()) {
      std::vector<std::string> arguments;
      for (const auto &[name, value] : constants.items())
        arguments.push_back(PyLiteral(value));
      script += fmt::format("    {} = functions({})\n", fmt::join(names, ", "),
                            fmt::join(arguments, ", "));
    }
    const std::string heads =
        attention ? std::to_string(c.attention->q_heads) : OptionalSize(mask.heads);
    const std::string mask_args =
        fmt::format("{}, {}, {}, {}, {}", mask_name,
                    attention || mask.batch ? std::to_string(batch) : "None", heads, q_len, kv_len);
    if (!attention) {
      script +=
          fmt::format("    compiled({}, {})\n", mask_args,
                      c.api == "create_block_mask" ? CreateBlockMaskOptions(c) : "device=\"cpu\"");
      continue;
    }
    const auto &a = *c.attention;
    if (inputs_change) {
      script += fmt::format("    g = torch.Generator().manual_seed({})\n", a.input_seed);
      script += fmt::format(
          "    q, k, v = ({} for {} in (({}, {}, {}, {}), ({}, {}, {}, {}), ({}, {}, {}, {})))\n",
          UnrolledInput(a.layout, dtype), a.layout == "expanded-kv" ? "i, s" : "s", batch,
          a.q_heads, q_len, a.head_dim, batch, a.kv_heads, kv_len, a.head_dim, batch, a.kv_heads,
          kv_len, a.value_dim);
    }
    script += fmt::format(
        "    compiled(q, k, v, score_mod={}, block_mask={}{}{})\n", score_name,
        block_mask ? fmt::format("create_block_mask({}, {})", mask_args, CreateBlockMaskOptions(c))
                   : "None",
        a.enable_gqa ? ", enable_gqa=True" : "", AttentionOptions(a));
  }
  return support::FillTemplate(Template("unrolled_repro.py.tmpl"),
                               {{"SIGNATURE", signature.substr(0, 200)},
                                {"CASE", c.name},
                                {"IMPORTS", fmt::format("{}", fmt::join(imports, ", "))},
                                {"TENSORS", tensors},
                                {"FUNCTIONS", functions},
                                {"COMPILED", CompiledApi(c)},
                                {"CONFIG", ConfigLiteral(c, config)},
                                {"CALLS", script}});
}

// An index program (api "index_program", case_calls.index_program): mask_mod on broadcast
// aranges, reduced as the case says, eager against compiled.
std::string IndexProgramBody(const corpus::Case &c, const std::string &compiled) {
  const auto &mask = c.create_block_mask;
  const std::int64_t sizes[] = {mask.batch.value_or(1), mask.heads.value_or(1), mask.q_len,
                                mask.kv_len};
  const char *names[] = {"b", "h", "q_idx", "kv_idx"};
  std::string body = "    def program():\n";
  for (int axis = 0; axis < 4; ++axis) {
    std::vector<std::string> view;
    for (int other = 0; other < 4; ++other)
      view.push_back(other == axis ? std::to_string(sizes[axis]) : "1");
    body += fmt::format("        {} = torch.arange({}).view({})\n", names[axis], sizes[axis],
                        fmt::join(view, ", "));
  }
  const std::string shape = fmt::format("({}, {}, {}, {})", sizes[0], sizes[1], sizes[2], sizes[3]);
  std::string reduced;
  if (c.index_reduction == "sum")
    reduced = ".to(torch.int64).sum(-1)";
  else if (c.index_reduction == "amax")
    reduced = ".to(torch.int64).amax(-1)";
  else if (c.index_reduction == "any")
    reduced = ".bool().any(-1)";
  body += fmt::format("        return torch.broadcast_to({}(b, h, q_idx, kv_idx), {}){}\n",
                      c.mask_mod->name, shape, reduced);
  body += "    expected = program()\n";
  body += fmt::format("    actual = {}()\n", compiled);
  body += "    torch.testing.assert_close(actual, expected)\n";
  return body;
}

// The short form (templates/short_repro.py.tmpl): one call, eager against compiled.
std::string EmitShortRepro(const corpus::Case &c, const std::string &signature,
                           ReproConfig config) {
  const auto &mask = c.create_block_mask;
  const std::string block_size = BlockSizeLiteral(mask);
  const std::string mask_args =
      c.mask_mod ? fmt::format("{}, {}, {}, {}, {}", c.mask_mod->name, OptionalSize(mask.batch),
                               OptionalSize(mask.heads), mask.q_len, mask.kv_len)
                 : "";
  const std::string compiled = CompiledApi(c);
  std::string script;
  if (c.api == corpus::kIndexProgram) {
    script += IndexProgramBody(c, compiled);
  } else if (c.api == "flex_attention" && c.attention) {
    const auto &a = *c.attention;
    script += fmt::format("    g = torch.Generator().manual_seed({})\n", a.input_seed);
    for (const auto &[name, heads, length, dim] :
         {std::tuple{"q", a.q_heads, a.q_len, a.head_dim},
          std::tuple{"k", a.kv_heads, a.kv_len, a.head_dim},
          std::tuple{"v", a.kv_heads, a.kv_len, a.value_dim}})
      script += fmt::format("    {} = torch.randn(({}, {}, {}, {}), generator=g).to(torch.{})\n",
                            name, a.batch, heads, length, dim, a.dtype);
    const std::string block_mask =
        a.use_block_mask && c.mask_mod
            ? fmt::format("create_block_mask({}, device=\"cpu\", BLOCK_SIZE={})", mask_args,
                          block_size)
            : "None";
    script += fmt::format("    kwargs = dict(score_mod={}, block_mask={}, enable_gqa={})\n",
                          c.score_mod ? c.score_mod->name : "None", block_mask,
                          a.enable_gqa ? "True" : "False");
    const double tolerance = a.dtype == "bfloat16" ? 3e-2 : a.dtype == "float16" ? 3e-3 : 1e-4;
    script += "    expected = flex_attention(q, k, v, **kwargs)\n";
    script += fmt::format("    actual = {}(q, k, v, **kwargs)\n", compiled);
    script += fmt::format(
        "    torch.testing.assert_close(actual, expected, atol={}, rtol=0, equal_nan=True)\n",
        tolerance);
  } else {
    const bool block = c.api == "create_block_mask";
    const std::string kwargs =
        block ? fmt::format("device=\"cpu\", BLOCK_SIZE={}", block_size) : "device=\"cpu\"";
    script += fmt::format("    expected = {}({}, {})\n", c.api, mask_args, kwargs);
    script += fmt::format("    actual = {}({}, {})\n", compiled, mask_args, kwargs);
    script += block ? "    torch.testing.assert_close(actual.to_dense(), expected.to_dense())\n"
                    : "    torch.testing.assert_close(actual, expected)\n";
  }
  return support::FillTemplate(
      Template("short_repro.py.tmpl"),
      {{"SIGNATURE", signature.substr(0, 200)},
       {"CASE", c.name},
       {"BLOCK_MASK_IMPORT", c.compile_with == corpus::kAoti ? "BlockMask, " : ""},
       {"CONFIG", ConfigLiteral(c, config)},
       {"TENSORS", TensorLines(c)},
       {"FUNCTIONS", FunctionSources(c)},
       {"AOTI_HELPER", AotiHelperFor(c)},
       {"BODY", script}});
}

} // namespace

std::string EmitMinimalRepro(const corpus::Case &c, const std::string &signature,
                             ReproConfig config, const std::string &prelude) {
  std::string script;
  if (!NeedsGeneralForm(c))
    script = EmitShortRepro(c, signature, config);
  else if (auto unrolled = EmitUnrolledRepro(c, signature, config))
    script = std::move(*unrolled);
  else
    script = EmitGeneralRepro(c, signature, config);
  // Before torch is imported: the prelude may run the script again in another environment.
  script.insert(script.find("import torch\n"), prelude);
  return script;
}

} // namespace reducers
