# wrong-result|api=flex_attention|fields=output|problems=compiled output off the reference
# Reduced by inductor-fuzz from case wrong-result-int-score-mod.
import torch
from torch.nn.attention.flex_attention import and_masks, or_masks, create_block_mask, create_mask, flex_attention

print("torch", torch.__version__)
config = {"cpp.threads": 1, "force_disable_caches": True}
print("inductor config:", config)
def mask_mod(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx
def score_mod(score, b, h, q_idx, kv_idx):
    return kv_idx
with torch._inductor.config.patch(config):
    g = torch.Generator().manual_seed(0)
    q = torch.randn((1, 1, 2, 8), generator=g).to(torch.float32)
    k = torch.randn((1, 1, 2, 8), generator=g).to(torch.float32)
    v = torch.randn((1, 1, 2, 8), generator=g).to(torch.float32)
    kwargs = dict(score_mod=score_mod, block_mask=create_block_mask(mask_mod, None, 1, 2, 2, device="cpu", BLOCK_SIZE=16), enable_gqa=False)
    expected = flex_attention(q, k, v, **kwargs)
    actual = torch.compile(flex_attention, dynamic=False)(q, k, v, **kwargs)
    torch.testing.assert_close(actual, expected, atol=0.0001, rtol=0, equal_nan=True)
print("PASS: compiled and eager agree")
