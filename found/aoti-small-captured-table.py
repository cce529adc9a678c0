# AOTInductor (torch 2.15.0, CPU): flex_attention whose mask_mod (or score_mod) reads a captured
# 1-D tensor of at most 8 elements fails in aoti_compile_and_package with
# NoValidChoicesError ("Cannot Append Choice: Pointwise"); torch.compile of the same call passes,
# and so does AOTI with a 9-element table. Inductor inlines a get_attr constant of <= 8 elements
# (GraphLowering.can_inline_constant) as a Pointwise, which the CPU flex template refuses.
import tempfile

import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

offsets = torch.tensor([0, 1, 2, 3])  # 9 elements: passes


def mask_mod(b, h, q_idx, kv_idx):
    return (q_idx >= kv_idx) & (offsets[h % 4] <= q_idx)


q, k, v = (torch.randn(1, 2, 200, 16) for _ in range(3))
block_mask = create_block_mask(mask_mod, 1, 2, 200, 200, device="cpu")


class M(torch.nn.Module):
    def forward(self, q, k, v):
        return flex_attention(q, k, v, block_mask=block_mask)


print("torch.compile:", torch.compile(M())(q, k, v).shape)
ep = torch.export.export(M(), (q, k, v), strict=False)
path = torch._inductor.aoti_compile_and_package(ep, package_path=tempfile.mkdtemp() + "/m.pt2")
print("aoti:", torch._inductor.aoti_load_package(path)(q, k, v).shape)
