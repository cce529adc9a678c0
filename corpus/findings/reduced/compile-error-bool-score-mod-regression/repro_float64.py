# Same root cause as repro.py (the score_mod value is stored in its own dtype into the
# template's float score buffer): a float64 bias table makes the score float64, the kernel
# stores a VectorizedN<double,2> (16 doubles, 128 bytes) through accum_t* out_ptr: wrong values
# and a write twice as wide as the row. Passes on 2.6.0.
import torch
from torch.nn.attention.flex_attention import flex_attention

print("torch", torch.__version__)
g = torch.Generator().manual_seed(0)
q, k, v = (torch.randn(1, 1, 4, 8, generator=g) for _ in range(3))
bias = torch.tensor([0.5, -0.5, 1.0, 0.0], dtype=torch.float64)  # a float64 bias table


def score_mod(score, b, h, q_idx, kv_idx):
    return score + bias[kv_idx]


expected = flex_attention(q, k, v, score_mod=score_mod)
by_hand = torch.softmax(q @ k.transpose(-1, -2) / 8**0.5 + bias.float(), dim=-1) @ v
torch.testing.assert_close(expected, by_hand)  # eager is right
actual = torch.compile(flex_attention)(q, k, v, score_mod=score_mod)
print("compiled:", actual.flatten()[:4].tolist())
torch.testing.assert_close(actual, expected, atol=1e-4, rtol=0)
print("PASS: compiled and eager agree")
