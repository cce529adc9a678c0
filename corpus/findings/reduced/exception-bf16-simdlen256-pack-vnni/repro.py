# torch 2.15.0, CPU with AVX-512 (and AMX): flex_attention in bfloat16 compiled with
# cpp.simdlen=256 raises at run time
#   RuntimeError: pack_vnni2, .../ATen/cpu/vec/vec_half.h:114, pack_vnni2 is only supported
#   when avx512 is supported
# The CPU flex template packs K/V into the VNNI layout because the host has AVX-512, but the
# kernel is built for the configured 256-bit width, where pack_vnni2 is the TORCH_CHECK(false)
# fallback. Passes with cpp.simdlen=512, and in float32 with cpp.simdlen=256; fails with and
# without cpp_wrapper. Found by `inductor-fuzz fuzz --seed 1` (case s1-2, GQA, cpp_wrapper,
# cpp.threads=4) on an Intel Xeon with avx512_bf16 and amx_bf16; reduced by hand from its
# repro.py. Usage: python repro.py  (exit 1 when it fails)
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
