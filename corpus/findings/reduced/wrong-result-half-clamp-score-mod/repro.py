# torch.compile(flex_attention) on CPU: a score_mod calling torch.clamp gives wrong output
# for float16 and bfloat16 inputs; float32 is right, and so is the same clamp spelled
# with torch.minimum/torch.maximum.
import sys
import torch
from torch.nn.attention.flex_attention import flex_attention

torch.manual_seed(0)
dtype = getattr(torch, sys.argv[1] if len(sys.argv) > 1 else "float16")
q, k, v = [torch.randn(1, 1, 16, 16, dtype=dtype) for _ in range(3)]

def score_mod(score, b, h, q_idx, kv_idx):
    return torch.clamp(score, -0.5, 0.5)

reference = flex_attention(q.double(), k.double(), v.double(), score_mod=score_mod)
eager = flex_attention(q, k, v, score_mod=score_mod)
compiled = torch.compile(flex_attention)(q, k, v, score_mod=score_mod)
eager_error = (eager.double() - reference).abs().max().item()
compiled_error = (compiled.double() - reference).abs().max().item()
print(torch.__version__, dtype, f"eager error {eager_error:.2e}, compiled error {compiled_error:.2e}")
# An AssertionError, as torch.testing's would be: compiled is judged against the float64 reference.
assert compiled_error <= 10 * eager_error + 1e-3, (
    f"compiled is {compiled_error:.2e} off the float64 reference where eager is {eager_error:.2e} off")
