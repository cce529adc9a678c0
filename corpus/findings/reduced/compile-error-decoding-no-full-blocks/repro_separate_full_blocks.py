import sys

import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

print("torch", torch.__version__)
g = torch.Generator().manual_seed(0)
q = torch.randn(1, 1, 1, 16, generator=g)  # Q_LEN=1, KV_LEN=512: the flash-decoding template
k, v = (torch.randn(1, 1, 512, 16, generator=g) for _ in range(2))
# separate_full_blocks=False: "all non-empty blocks are stored as partial blocks" (no full blocks)
block_mask = create_block_mask(lambda b, h, q_idx, kv_idx: kv_idx >= 0, 1, 1, 1, 512, device="cpu",
                               separate_full_blocks=False)
expected = flex_attention(q, k, v, block_mask=block_mask)
try:
    actual = torch.compile(flex_attention)(q, k, v, block_mask=block_mask)
except Exception as error:  # InductorError (BackendCompilerFailed on 2.6.0): CppCompileError
    print("FAIL:", [line.split("error: ")[-1] for line in str(error).splitlines() if "error:" in line][:1])
    sys.exit(1)
torch.testing.assert_close(actual, expected, atol=1e-4, rtol=0)
print("PASS: compiled and eager agree")
