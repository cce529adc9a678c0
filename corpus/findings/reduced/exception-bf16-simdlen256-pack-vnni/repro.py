# torch 2.15.0, CPU with AVX-512: bf16 flex_attention compiled with cpp.simdlen=256 raises
#   RuntimeError: pack_vnni2 ... pack_vnni2 is only supported when avx512 is supported
# The CPU flex template packs K/V in the VNNI layout because the host has AVX-512, but the
# kernel is built for 256-bit vectors, where pack_vnni2 is TORCH_CHECK(false). Passes with
# simdlen=512 and in float32. Found by `inductor-fuzz fuzz --seed 1` (case s1-2); reduced by hand.
import sys

import torch
import torch._inductor.config as config
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

config.cpp.simdlen = 256
q = torch.randn(1, 8, 256, 32, dtype=torch.bfloat16)
k = torch.randn(1, 2, 256, 32, dtype=torch.bfloat16)
v = torch.randn(1, 2, 256, 32, dtype=torch.bfloat16)
block_mask = create_block_mask(lambda b, h, q_idx, kv_idx: q_idx >= kv_idx, 1, 1, 256, 256,
                               device="cpu")
try:
    torch.compile(flex_attention)(q, k, v, block_mask=block_mask, enable_gqa=True)
except RuntimeError as error:
    print("FAIL:", str(error).splitlines()[0])
    sys.exit(1)
print("PASS")
