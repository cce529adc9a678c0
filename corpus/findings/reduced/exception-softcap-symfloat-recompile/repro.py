# torch 2.15.0: a flex_attention score_mod closing over a Python float (Gemma-2 style soft
# capping) fails on the second call with another value: Dynamo recompiles with the float as a
# SymFloat and validate_subgraph_args_types raises
#   AssertionError: (zfN,) can only be of (Tensor, int, SymInt) but got (SymFloat,)
# Trimmed by hand from repro-tool.py (what `inductor-fuzz reduce` wrote for
# tests/cases/softcap-two-calls.json). eager_only.py: the same failure without torch.compile.
import torch
from torch.nn.attention.flex_attention import flex_attention

print("torch", torch.__version__)
g = torch.Generator().manual_seed(0)
q, k, v = (torch.randn(1, 1, 1, 8, generator=g) for _ in range(3))
mods = [(lambda cap: lambda score, b, h, q_idx, kv_idx: score / cap)(c) for c in (50.0, 30.0)]
expected = []
for score_mod in mods:  # eager flex_attention compiles internally: each on its own
    torch._dynamo.reset()
    expected.append(flex_attention(q, k, v, score_mod=score_mod))
torch._dynamo.reset()
compiled = torch.compile(flex_attention)
for cap, score_mod, want in zip((50.0, 30.0), mods, expected):
    torch.testing.assert_close(compiled(q, k, v, score_mod=score_mod), want, atol=1e-4, rtol=0)
    print("cap", cap, "ok")
print("PASS: compiled and eager agree")
