import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

print("torch", torch.__version__)
g = torch.Generator().manual_seed(0)
q = torch.randn(1, 2, 1, 16, generator=g)  # Q_LEN=1, KV_LEN=512: the flash-decoding template
k, v = (torch.randn(1, 2, 512, 16, generator=g) for _ in range(2))


def mask_mod(b, h, q_idx, kv_idx):  # head 0 sees 128 keys, head 1 sees 256
    return kv_idx < 128 * (h + 1)


def score_mod(score, b, h, q_idx, kv_idx):  # a constant bias: softmax is unchanged by it
    return score - 200


block_mask = create_block_mask(mask_mod, 1, 2, 1, 512, device="cpu")
expected = flex_attention(q, k, v, block_mask=block_mask)  # = flex_attention with score - 200
eager = flex_attention(q, k, v, score_mod=score_mod, block_mask=block_mask)
torch.testing.assert_close(eager, expected, atol=1e-5, rtol=0)  # eager is right
actual = torch.compile(flex_attention)(q, k, v, score_mod=score_mod, block_mask=block_mask)
print("compiled row norms:", actual.norm(dim=-1).flatten().tolist())  # 0.0, 0.0
torch.testing.assert_close(actual, expected, atol=1e-4, rtol=0)
print("PASS: compiled and eager agree")
