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

// The ISA Inductor targets, where the case sets it: after eager, before the compiled call.
std::string CapabilityLine(const corpus::Case &c, const std::string &indent) {
  const auto capability = c.inductor.optional.find("ATEN_CPU_CAPABILITY");
  if (capability == c.inductor.optional.end())
    return "";
  return fmt::format("{}os.environ[\"ATEN_CPU_CAPABILITY\"] = \"{}\"  # the ISA Inductor targets\n",
                     indent, capability->second.get<std::string>());
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
  else if (c.index_reduction == "all")
    reduced = ".bool().all(-1)";
  else if (c.index_reduction == "value_sum")
    reduced = ".sum(-1)";
  else if (c.index_reduction == "value_amax")
    reduced = ".amax(-1)";
  else if (c.index_reduction != "none")
    reduced = fmt::format(".{}(-1)", c.index_reduction); // prod, amin
  if (c.index_reduction == "argmax") // argmax has no bool kernel: case_calls.index_program
    body += fmt::format("        values = torch.broadcast_to({}(b, h, q_idx, kv_idx), {})\n"
                        "        if values.dtype == torch.bool:\n"
                        "            values = values.to(torch.uint8)\n"
                        "        return values.argmax(-1)\n",
                        c.mask_mod->name, shape);
  else
    body += fmt::format("        return torch.broadcast_to({}(b, h, q_idx, kv_idx), {}){}\n",
                        c.mask_mod->name, shape, reduced);
  body += "    expected = program()\n";
  body += CapabilityLine(c, "    ");
  body += fmt::format("    actual = {}()\n", compiled);
  body += "    torch.testing.assert_close(actual, expected, equal_nan=True)\n";
  return body;
}

// The short form (templates/short_repro.py.tmpl): one call, eager against compiled.
std::string EmitShortRepro(const corpus::Case &c, const std::string &signature,
                           ReproConfig config) {
  if (const auto repro = ReduceApiOf(c.api).repro)
    if (auto script = repro(c, signature, config))
      return std::move(*script);
  const auto &mask = c.create_block_mask;
  const std::string block_size = BlockSizeLiteral(mask);
  const std::string mask_args =
      c.mask_mod ? fmt::format("{}, {}, {}, {}, {}", c.mask_mod->name, OptionalSize(mask.batch),
                               OptionalSize(mask.heads), mask.q_len, mask.kv_len)
                 : "";
  const std::string compiled = CompiledApi(c);
  std::string script;
  if (const auto body = ReduceApiOf(c.api).short_body) {
    script += body(c, compiled);
  } else if (ReduceApiOf(c.api).attention && c.attention) {
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
    const bool block = corpus::CorpusApiOf(c.api).returns_block_mask;
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

} // namespace reducers::repro
