#include "reducers/case/api_row.h"

#include "corpus/api_row.h"
#include "reducers/case/repro_python.h"

#include "corpus/finding_kinds.h"

#include "reducers/templates.h"
#include "support/templates.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <regex>

namespace reducers::repro {

using nlohmann::json;

namespace {

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

// The case's functions as it defines them; with constants, made by one function of them (the
// functions close over its parameters), which a later call that changes one calls again.
std::string ClosedFunctions(const corpus::Case &c, const std::vector<std::string> &names,
                            const std::vector<std::string> &parameters) {
  if (parameters.empty())
    return FunctionSources(c);
  std::string functions = fmt::format("\n\ndef functions({}):\n", fmt::join(parameters, ", "));
  for (const auto *function : {&c.mask_mod, &c.score_mod})
    if (*function)
      functions += Indented((*function)->source);
  return functions + fmt::format("    return {}\n\n\n", fmt::join(names, ", "));
}

} // namespace

// A call sequence (or one call) as a person writes it (templates/unrolled_repro.py.tmpl), for a
// failure in the compiled calls themselves (a compile error, an exception, a crash or a hang: no
// eager reference needed): the calls unrolled in order, each saying only what changes from the call
// before it; the tables the functions read and nothing else. Nothing: the case needs the general
// form (a wrong result compares every call with eager, AOTInductor, custom inputs), or has its
// own script (api_row.h: a tensor program, one call, whose short form is its calls unrolled).
std::optional<std::string> EmitUnrolledRepro(const corpus::Case &c, corpus::FindingKind kind,
                                             const std::string &signature, ReproConfig config) {
  if (!corpus::RowOf(kind).unrolls || c.compile_with == corpus::kAoti ||
      c.compile_scope != corpus::kCompileApi || ReduceApiOf(c.api).repro)
    return std::nullopt;
  const ReduceApi &api = ReduceApiOf(c.api);
  if (api.attention) {
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
  const bool attention = api.attention;
  const bool block_mask = attention ? c.attention->use_block_mask && c.mask_mod : true;
  std::vector<std::string> imports;
  if (!attention || block_mask)
    imports.push_back(api.dense_mask ? "create_mask" : "create_block_mask");
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
  const std::string functions = ClosedFunctions(c, names, parameters);
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
                      corpus::CorpusApiOf(c.api).returns_block_mask ? CreateBlockMaskOptions(c)
                                                                    : "device=\"cpu\"");
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

} // namespace reducers::repro
