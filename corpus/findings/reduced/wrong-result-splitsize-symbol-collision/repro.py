# torch.compile(dynamic=True) of flex_attention on CPU: score_mod `score * n0` computes `score * cur_qSplitSize`.
# n0's symbol is s1 (sha256("L['n0']") % 100 == 1), so the score_mod kernel calls it "ks1", the same name
# CppFlexAttentionTemplate.modification() gives the q-block-size symbol and then str.replace()s with
# "cur_qSplitSize". Rename n0 to n (symbol s86) and it passes.
import torch
from torch.nn.attention.flex_attention import flex_attention

print("torch", torch.__version__)


@torch.compile(dynamic=True)
def f(q, k, v, n0):
    return flex_attention(q, k, v, score_mod=lambda score, b, h, q_idx, kv_idx: score * n0)


q, k, v = (torch.randn(1, 1, 16, 16, generator=torch.Generator().manual_seed(i)) for i in range(3))
actual = f(q, k, v, 3)
expected = flex_attention(q, k, v, score_mod=lambda score, b, h, q_idx, kv_idx: score * 3)
print("max abs diff", (actual - expected).abs().max().item())
torch.testing.assert_close(actual, expected, atol=1e-4, rtol=0)
print("PASS: compiled and eager agree")
