# compile-error|family=gcc|message='cur_kvSplitSize<N>' was not declared in this scope; did you mean 'cur_kvSplitSize'?|option=
# Reduced by inductor-fuzz from case splitsize-k1.
import torch
from torch.nn.attention.flex_attention import flex_attention

print("torch", torch.__version__)


def functions(c0, n):
    def score_mod(score, b, h, q_idx, kv_idx):
        return kv_idx % n + (q_idx + c0)
    return score_mod


compiled = torch.compile(flex_attention, dynamic=None)
with torch._inductor.config.patch({"force_disable_caches": True}):
    score_mod = functions(1, 7)
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(s, generator=g) for s in ((1, 1, 1, 8), (1, 1, 1, 8), (1, 1, 1, 8)))
    compiled(q, k, v, score_mod=score_mod, block_mask=None)
    score_mod = functions(2, 9)
    compiled(q, k, v, score_mod=score_mod, block_mask=None)
print("PASS: every call compiled and ran")
