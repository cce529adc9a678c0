# compile-error|family=gcc|message=inlining failed in call to 'always_inline' 'void kernel(bool*)': function body can be overwritten at link time|option=
# Reduced by inductor-fuzz from case s4747-281 (campaign seed 4747, issue 47).
import torch
from torch.nn.attention.flex_attention import and_masks, or_masks, create_block_mask, create_mask, flex_attention

print("torch", torch.__version__)
config = {"cpp.force_inline_kernel": True, "cpp.threads": 1}
print("inductor config:", config)
def mask_mod(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx
with torch._inductor.config.patch(config):
    expected = create_mask(mask_mod, 1, 1, 1, 1, device="cpu")
    actual = torch.compile(create_mask, dynamic=False)(mask_mod, 1, 1, 1, 1, device="cpu")
    torch.testing.assert_close(actual, expected)
print("PASS: compiled and eager agree")
