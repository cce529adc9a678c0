# torch 2.15.0: compiled flex_attention on CPU applies a score_mod that reads neither `score`
# nor `q_idx` to the first query row only: the template's score_mod loop runs `for x0 < 1`
# (the pointwise node has no q dimension) and stores out_ptr[x1], so the other rows keep the
# raw q.k scores. Eager (and softmax(kv_idx) @ v by hand) disagree. Passes on torch 2.6.0.
# From corpus/findings/unverified/wrong-result-int-score-mod.json (`return kv_idx`): not
# about integer scores, the float `kv_idx * 0.5` fails the same way; `score * 0 + kv_idx` passes.
import torch
from torch.nn.attention.flex_attention import flex_attention

print("torch", torch.__version__)
g = torch.Generator().manual_seed(0)
q, k, v = (torch.randn(1, 1, 4, 8, generator=g) for _ in range(3))


def score_mod(score, b, h, q_idx, kv_idx):
    return kv_idx * 0.5


expected = flex_attention(q, k, v, score_mod=score_mod)
by_hand = torch.softmax(torch.arange(4.0).expand(4, 4) * 0.5, dim=-1) @ v
torch.testing.assert_close(expected, by_hand)  # eager is right
actual = torch.compile(flex_attention)(q, k, v, score_mod=score_mod)
torch.testing.assert_close(actual, expected, atol=1e-4, rtol=0)
print("PASS: compiled and eager agree")
