import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

print("torch", torch.__version__)
g = torch.Generator().manual_seed(0)
q, k, v = (torch.randn(1, 1, 128, 16, generator=g) for _ in range(3))


def mask_mod(b, h, q_idx, kv_idx):  # max(|x|, 0) > 0 == x != 0, on int16
    x = (q_idx >= kv_idx).to(torch.int16)
    return torch.maximum(torch.abs(x), x * 0) > 0


block_mask = create_block_mask(mask_mod, 1, 1, 128, 128, device="cpu")
expected = flex_attention(q, k, v, block_mask=block_mask)
actual = torch.compile(flex_attention)(q, k, v, block_mask=block_mask)  # CppCompileError (max_propagate_nan(int&, short int&))
torch.testing.assert_close(actual, expected, atol=1e-4, rtol=0)
print("PASS")
