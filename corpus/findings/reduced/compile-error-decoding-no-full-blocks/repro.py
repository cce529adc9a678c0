import sys

import torch
from torch.nn.attention.flex_attention import BlockMask, flex_attention

print("torch", torch.__version__)
g = torch.Generator().manual_seed(0)
q = torch.randn(1, 1, 1, 16, generator=g)  # Q_LEN=1, KV_LEN=512: the flash-decoding template
k, v = (torch.randn(1, 1, 512, 16, generator=g) for _ in range(2))
# All four 128-key blocks listed as partial blocks; no full blocks (full_kv_* are Optional).
block_mask = BlockMask.from_kv_blocks(torch.tensor([[[4]]], dtype=torch.int32),
                                      torch.arange(4, dtype=torch.int32).view(1, 1, 1, 4),
                                      BLOCK_SIZE=128, seq_lengths=(1, 512))
expected = flex_attention(q, k, v, block_mask=block_mask)
try:
    actual = torch.compile(flex_attention)(q, k, v, block_mask=block_mask)
except Exception as error:  # InductorError (BackendCompilerFailed on 2.6.0): CppCompileError
    print("FAIL:", [line.split("error: ")[-1] for line in str(error).splitlines() if "error:" in line][:1])
    sys.exit(1)
torch.testing.assert_close(actual, expected, atol=1e-4, rtol=0)
print("PASS: compiled and eager agree")
