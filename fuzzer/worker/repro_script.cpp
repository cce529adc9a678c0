#include "fuzzer/worker/repro_script.h"

#include <fmt/format.h>

namespace fuzzer::worker {
namespace {

std::string PythonBool(bool value) { return value ? "True" : "False"; }

std::string PythonOptional(const std::optional<std::int64_t> &value) {
  return value ? std::to_string(*value) : "None";
}

std::string BlockSize(const corpus::BlockMaskArguments &args) {
  return args.block_size.size() == 1
             ? std::to_string(args.block_size[0])
             : fmt::format("({}, {})", args.block_size[0], args.block_size[1]);
}

std::string Tensors(const corpus::Case &c) {
  std::string out;
  for (const auto &tensor : c.tensors) {
    std::string values;
    for (double value : tensor.values) {
      if (!values.empty())
        values += ", ";
      if (tensor.dtype == "bool")
        values += PythonBool(value != 0);
      else if (tensor.dtype == "float32")
        values += fmt::format("{}", value);
      else
        values += std::to_string(static_cast<std::int64_t>(value));
    }
    std::string shape;
    for (auto extent : tensor.shape)
      shape += std::to_string(extent) + ",";
    out += fmt::format("{} = torch.tensor([{}], dtype=torch.{}).reshape(({}))\n", tensor.name,
                       values, tensor.dtype, shape);
  }
  return out;
}

} // namespace

std::string EmitPythonScript(const corpus::Case &c) {
  const auto &k = c.inductor;
  const auto &m = c.create_block_mask;
  std::string script = fmt::format(
      "#!/usr/bin/env python3\n"
      "# inductor-fuzz case {name}\n"
      "# provenance: {provenance}\n"
      "# Runs the case eagerly and through torch.compile and compares the two; exit 1 on a\n"
      "# difference. Expected to raise: {raises}.\n"
      "import sys\n\n"
      "import torch\n"
      "import torch._inductor.config as inductor_config\n"
      "from torch.nn.attention.flex_attention import (\n"
      "    and_masks, create_block_mask, create_mask, flex_attention, or_masks)\n\n"
      "settings = {{\n"
      "    \"cpp.threads\": {threads},\n"
      "    \"cpp.simdlen\": {simdlen},\n"
      "    \"cpp_wrapper\": {cpp_wrapper},\n"
      "    \"max_autotune\": {max_autotune},\n"
      "    \"freezing\": {freezing},\n"
      "    \"cpp.enable_loop_tail_vec\": {tail},\n"
      "    \"cpp.dynamic_threads\": {dynamic_threads},\n"
      "    \"compile_threads\": 1,\n"
      "    \"force_disable_caches\": True,\n"
      "}}\n"
      "DYNAMIC = {dynamic}\n"
      "print(\"torch\", torch.__version__)\n"
      "for key, value in settings.items():\n"
      "    print(f\"inductor_config.{{key}} = {{value!r}}\")\n"
      "print(\"dynamic =\", DYNAMIC)\n"
      "inductor_config.patch(settings).__enter__()\n\n",
      fmt::arg("name", c.name), fmt::arg("provenance", c.provenance.dump()),
      fmt::arg("raises", c.expect_raises.empty() ? "no" : c.expect_raises),
      fmt::arg("threads", k.cpp_threads),
      fmt::arg("simdlen", k.cpp_simdlen ? std::to_string(*k.cpp_simdlen) : "None"),
      fmt::arg("cpp_wrapper", PythonBool(k.cpp_wrapper)),
      fmt::arg("max_autotune", PythonBool(k.max_autotune)),
      fmt::arg("freezing", PythonBool(k.freezing)),
      fmt::arg("tail", PythonBool(k.enable_loop_tail_vec)),
      fmt::arg("dynamic_threads", PythonBool(k.dynamic_threads)),
      fmt::arg("dynamic", PythonBool(k.dynamic)));
  script += Tensors(c);
  if (c.mask_mod)
    script += "\n" + c.mask_mod->source;
  if (c.score_mod)
    script += "\n" + c.score_mod->source;
  const std::string mask_call =
      fmt::format("{}, {}, {}, {}, {}, device=\"cpu\"", c.mask_mod ? c.mask_mod->name : "None",
                  PythonOptional(m.batch), PythonOptional(m.heads), m.q_len, m.kv_len);
  script += "\n";
  if (c.api == "create_block_mask") {
    script += fmt::format(
        "eager = create_block_mask({call}, BLOCK_SIZE={bs})\n"
        "compiled = torch.compile(create_block_mask, dynamic=DYNAMIC)({call}, BLOCK_SIZE={bs})\n"
        "differs = [name for name in (\"kv_num_blocks\", \"kv_indices\", \"full_kv_num_blocks\",\n"
        "    \"full_kv_indices\", \"q_num_blocks\", \"q_indices\", \"full_q_num_blocks\",\n"
        "    \"full_q_indices\")\n"
        "    if (getattr(eager, name) is None) != (getattr(compiled, name) is None)\n"
        "    or (getattr(eager, name) is not None\n"
        "        and not torch.equal(getattr(eager, name), getattr(compiled, name)))]\n",
        fmt::arg("call", mask_call), fmt::arg("bs", BlockSize(m)));
  } else if (c.api == "create_mask") {
    script += fmt::format("eager = create_mask({call})\n"
                          "compiled = torch.compile(create_mask, dynamic=DYNAMIC)({call})\n"
                          "differs = [] if torch.equal(eager, compiled) else [\"mask\"]\n",
                          fmt::arg("call", mask_call));
  } else {
    const auto &a = *c.attention;
    script += fmt::format(
        "generator = torch.Generator().manual_seed({seed})\n"
        "q = torch.randn(({b}, {hq}, {lq}, {e}), generator=generator).to(torch.{dtype})\n"
        "k = torch.randn(({b}, {hkv}, {lkv}, {e}), generator=generator).to(torch.{dtype})\n"
        "v = torch.randn(({b}, {hkv}, {lkv}, {ev}), generator=generator).to(torch.{dtype})\n"
        "block_mask = {block_mask}\n"
        "kwargs = dict(score_mod={score}, block_mask=block_mask, enable_gqa={gqa})\n"
        "reference = flex_attention(q.double(), k.double(), v.double(), **kwargs)\n"
        "eager = flex_attention(q, k, v, **kwargs)\n"
        "compiled = torch.compile(flex_attention, dynamic=DYNAMIC)(q, k, v, **kwargs)\n"
        "eager_error = (eager.double() - reference).abs().nan_to_num(0).max().item()\n"
        "compiled_error = (compiled.double() - reference).abs().nan_to_num(0).max().item()\n"
        "tolerance = {{\"float32\": 1e-4, \"bfloat16\": 3e-2, \"float16\": 3e-3}}[\"{dtype}\"]\n"
        "print(f\"largest absolute error: compiled {{compiled_error:.3g}}, eager "
        "{{eager_error:.3g}}\")\n"
        "differs = [\"output\"] if compiled_error > max(tolerance, 4 * eager_error) else []\n",
        fmt::arg("seed", a.input_seed), fmt::arg("b", a.batch), fmt::arg("hq", a.q_heads),
        fmt::arg("hkv", a.kv_heads), fmt::arg("lq", a.q_len), fmt::arg("lkv", a.kv_len),
        fmt::arg("e", a.head_dim), fmt::arg("ev", a.value_dim), fmt::arg("dtype", a.dtype),
        fmt::arg("block_mask",
                 a.use_block_mask
                     ? fmt::format("create_block_mask({}, BLOCK_SIZE={})", mask_call, BlockSize(m))
                     : "None"),
        fmt::arg("score", c.score_mod ? c.score_mod->name : "None"),
        fmt::arg("gqa", PythonBool(a.enable_gqa)));
  }
  script += "if differs:\n"
            "    print(\"MISMATCH between eager and compiled:\", \", \".join(differs))\n"
            "    sys.exit(1)\n"
            "print(\"PASS: eager and compiled agree\")\n";
  return script;
}

} // namespace fuzzer::worker
