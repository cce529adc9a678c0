import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

print("torch", torch.__version__)
g = torch.Generator().manual_seed(0)
q = torch.randn(1, 1, 1, 16, generator=g)  # Q_LEN=1, KV_LEN=512: the flash-decoding template
k, v = (torch.randn(1, 1, 512, 16, generator=g) for _ in range(2))


def mask_mod(b, h, q_idx, kv_idx):  # the one query attends to no key (an empty sequence)
    return kv_idx < 0


block_mask = create_block_mask(mask_mod, 1, 1, 1, 512, device="cpu")
expected = flex_attention(q, k, v, block_mask=block_mask)
print("eager:", expected.flatten()[:4].tolist())  # zeros: a fully masked row gives 0
compiled = torch.compile(flex_attention)
compiled(q, k, v, block_mask=block_mask)  # compile; this call may already be wrong
junk = torch.full((512,), float("nan"))  # freed just before the call: makes the
del junk  # read of never-written scratch visible
actual = compiled(q, k, v, block_mask=block_mask)
print("compiled:", actual.flatten()[:4].tolist())
torch.testing.assert_close(actual, expected, atol=1e-4, rtol=0)
print("PASS: compiled and eager agree")
