# wrong-result: create_mask's values differ, no error (the silent form of the uint8 index wrap)
import torch
from torch.nn.attention.flex_attention import create_mask

print("torch", torch.__version__)


def mask_mod(b, h, q_idx, kv_idx):
    return q_idx >= (kv_idx.to(torch.uint8) * 3).long()  # uint8 wraps: 100 * 3 is 44


expected = create_mask(mask_mod, 1, 1, 129, 127, device="cpu")
actual = torch.compile(create_mask)(mask_mod, 1, 1, 129, 127, device="cpu")
print("differing:", int((actual != expected).sum()), "of", expected.numel())
torch.testing.assert_close(actual, expected)
print("PASS: compiled and eager agree")
