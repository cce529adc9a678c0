# wrong-result|api=create_mask|fields=mask|problems=values differ
# Reduced by inductor-fuzz from case s1-103.
import torch
from torch.nn.attention.flex_attention import and_masks, or_masks, create_block_mask, create_mask, flex_attention

print("torch", torch.__version__)
config = {"cpp.threads": 1, "force_disable_caches": True}
print("inductor config:", config)
def mask_mod(b, h, q_idx, kv_idx):
    return kv_idx // 9
with torch._inductor.config.patch(config):
    expected = create_mask(mask_mod, 1, 1, 1, 10, device="cpu")
    actual = torch.compile(create_mask, dynamic=False)(mask_mod, 1, 1, 1, 10, device="cpu")
    torch.testing.assert_close(actual, expected)
print("PASS: compiled and eager agree")
