# torch 2.15.0, CPU: create_mask compiled by Inductor leaves part of the mask unwritten.
# mask_mod reads a captured bool table at kv_idx // 76; KV_LEN=512 is not a multiple of 76.
# Inductor's CPU loop split turns the 512-long loop into 6 x 76 (= 456) iterations, so
# mask[..., 456:] is whatever empty_strided_cpu held. Eager gives all True.
# Reduced by hand from corpus/findings/wrong-result-create-mask-bool-tables-cpp-wrapper.json
# (which also needed no knob: cpp_wrapper, simdlen and threads are not involved).
import torch
from torch.nn.attention.flex_attention import create_mask

print("torch", torch.__version__)
flags = torch.ones(7, dtype=torch.bool)


def mask_mod(b, h, q_idx, kv_idx):
    return flags[kv_idx // 76]


expected = create_mask(mask_mod, 1, 1, 1, 512, device="cpu")
actual = torch.compile(create_mask)(mask_mod, 1, 1, 1, 512, device="cpu")
wrong = (actual != expected).nonzero()[:, -1].tolist()
print("elements differing:", len(wrong), "first:", wrong[:5])
torch.testing.assert_close(actual, expected)
print("PASS: compiled and eager agree")
