# torch 2.15.0: flex_attention (eager, no torch.compile by the user) fails on its second call
# when the score_mod closes over a Python float that changed since the first call. The
# internal compile recompiles with the float as a SymFloat, which validate_subgraph_args_types
# refuses. Found by inductor-fuzz (tests/cases/softcap-two-calls.json, a two-call sequence).
import torch
from torch.nn.attention.flex_attention import flex_attention

print("torch", torch.__version__)


def make_softcap(cap):
    def softcap(score, b, h, q_idx, kv_idx):
        return cap * torch.tanh(score / cap)

    return softcap


q = k = v = torch.randn(1, 2, 128, 16, generator=torch.Generator().manual_seed(0))
for cap in (50.0, 30.0):
    flex_attention(q, k, v, score_mod=make_softcap(cap))
    print("cap", cap, "ok")
