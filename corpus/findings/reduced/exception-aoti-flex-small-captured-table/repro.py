# torch 2.15.0 CPU: AOTInductor fails (NoValidChoicesError) on flex_attention whose score_mod
# reads a module buffer of <= 8 elements; torch.compile passes, and AOTI passes with 9 elements.
import sys, tempfile
import torch
from torch.nn.attention.flex_attention import flex_attention

N = int(sys.argv[1]) if len(sys.argv) > 1 else 2  # 9: passes


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.arange(N, dtype=torch.float32) / 4)

    def forward(self, q, k, v):
        return flex_attention(q, k, v, score_mod=lambda s, b, h, qi, kv: s + self.bias[h % N])


q, k, v = (torch.randn(1, 2, 16, 16) for _ in range(3))
ref = M()(q, k, v)
print("torch.compile ok:", torch.allclose(torch.compile(M())(q, k, v), ref, atol=1e-5))
ep = torch.export.export(M(), (q, k, v), strict=False)
path = torch._inductor.aoti_compile_and_package(ep, package_path=tempfile.mkdtemp() + "/m.pt2")
out = torch._inductor.aoti_load_package(path)(q, k, v)
print("PASS: aoti matches eager" if torch.allclose(out, ref, atol=1e-5) else "FAIL: aoti differs")
