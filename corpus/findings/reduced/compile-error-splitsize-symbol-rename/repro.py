# torch 2.15.0: flex_attention compiled with dynamic=True on CPU fails to compile:
#   error: 'cur_qSplitSize8' was not declared in this scope; did you mean 'cur_qSplitSize'?
# CppFlexAttentionTemplate.modification() renames the score_mod kernel's size argument of the
# q block (here "ks1") to "cur_qSplitSize" with a plain str.replace, which also rewrites the
# captured table's size symbol "ks18" into "cur_qSplitSize8". Whether it fails depends on
# the numbers Dynamo gives the shape symbols (the fuzzer's case s1-477 failed only some runs).
# Reduced by hand from corpus/findings/unverified/compile-error-cur-kvsplitsize-undeclared.json.
import torch
from torch.nn.attention.flex_attention import flex_attention

print("torch", torch.__version__)
table = torch.arange(7) * 0.1


def score_mod(score, b, h, q_idx, kv_idx):
    return score + table[kv_idx % 7]


g = torch.Generator().manual_seed(0)
q, k, v = (torch.randn(1, 1, 64, 16, generator=g) for _ in range(3))
actual = torch.compile(flex_attention, dynamic=True)(q, k, v, score_mod=score_mod)
expected = flex_attention(q, k, v, score_mod=score_mod)
torch.testing.assert_close(actual, expected, atol=1e-4, rtol=0)
print("PASS: compiled and eager agree")
