#include "reducers/case/api_row.h"

#include "corpus/api_row.h"
#include "reducers/case/repro_python.h"

#include "reducers/templates.h"
#include "support/templates.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace reducers::repro {

using nlohmann::json;

namespace {

// compile_scope "function": the user's function the script compiles, of the API's inputs and
// the constants, whose body makes the functions and calls the API.
// compile_scope "module": the same body as the forward of an nn.Module holding the case's
// tensors (floating ones as parameters, the others as buffers), read into locals of the same
// names that the functions, defined in the forward, close over.
std::string ProgramDefinition(const corpus::Case &c) {
  if (c.compile_scope == corpus::kCompileApi)
    return "";
  std::vector<std::string> parameters = ReduceApiOf(c.api).attention
                                            ? std::vector<std::string>{"q", "k", "v", "block_mask"}
                                            : std::vector<std::string>{"sizes"};
  std::vector<std::string> constants;
  for (const auto &[name, value] : c.constants.items()) {
    parameters.push_back(name);
    constants.push_back(fmt::format("{}={}", name, name));
  }
  std::string call;
  if (ReduceApiOf(c.api).attention) {
    const auto &a = *c.attention;
    call = fmt::format("flex_attention(q, k, v, score_mod=score_mod, block_mask=block_mask, "
                       "enable_gqa={}{})",
                       a.enable_gqa ? "True" : "False", AttentionOptions(a));
  } else {
    call = fmt::format("{}(mask_mod, *sizes, {})", c.api,
                       corpus::CorpusApiOf(c.api).returns_block_mask ? CreateBlockMaskOptions(c)
                                                                     : "device=\"cpu\"");
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
  if (ReduceApiOf(c.api).attention && c.attention) {
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
    script += fmt::format("    return api(mask_mod, *call[\"mask\"], {})\n",
                          corpus::CorpusApiOf(c.api).returns_block_mask ? CreateBlockMaskOptions(c)
                                                                        : "device=\"cpu\"");
  }
  return script;
}

} // namespace

// The general form (templates/general_repro.py.tmpl): every call of the sequence, each eager
// reference on its own, then the calls of one compiled function in order.
std::string EmitGeneralRepro(const corpus::Case &c, const std::string &signature,
                             ReproConfig config) {
  if (ReduceApiOf(c.api).repro) // its own script (a program's one call): its short form
    return EmitShortRepro(c, signature, config);
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
  if (corpus::CorpusApiOf(c.api).returns_block_mask)
    assertion = "        torch.testing.assert_close(got.to_dense(), want.to_dense())";
  else if (ReduceApiOf(c.api).dense_mask)
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

} // namespace reducers::repro
