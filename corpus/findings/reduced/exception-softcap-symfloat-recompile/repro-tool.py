# exception|type=builtins.AssertionError|message=(zfN,) can only be of (<class 'torch.Tensor'>, <class 'int'>, <class 'torch.SymInt'>) but got (<class 'torch.SymFloat'>,)|frame=_higher_order_ops/utils.p
# Reduced by inductor-fuzz from case softcap-two-calls.
import torch
from torch.nn.attention.flex_attention import BlockMask, and_masks, or_masks, create_block_mask, create_mask, flex_attention

print("torch", torch.__version__)
config = {"aot_inductor.precompile_headers": False, "autotune_local_cache": False, "autotune_remote_cache": False, "compile_threads": 1, "cpp_cache_precompile_headers": False, "force_disable_caches": True, "fx_graph_cache": False, "fx_graph_remote_cache": False}
print("inductor config:", config)


def functions(cap):  # the mask_mod and score_mod, closing over the constants
    def softcap(score, b, h, q_idx, kv_idx):
        return score / cap
    return None, softcap


CALLS = [
    {"B":1,"KV_LEN":1,"Q_LEN":1,"constants":{"cap":50.0},"dtype":"float32","mask": [1, None, 1, 1]},
    {"B":1,"KV_LEN":1,"Q_LEN":1,"constants":{"cap":30.0},"dtype":"float32","mask": [1, None, 1, 1]},
]


def run(api, call):
    globals().update({k: torch.tensor(v, dtype=globals()[k].dtype).reshape(globals()[k].shape) for k, v in call.get("tables", {}).items()})
    mask_mod, score_mod = functions(**call["constants"])
    dtype = getattr(torch, call["dtype"])
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn((call["B"], h, n, e), generator=g).to(dtype) for h, n, e in ((1, call["Q_LEN"], 8), (1, call["KV_LEN"], 8), (1, call["KV_LEN"], 8)))
    return api(q, k, v, score_mod=score_mod, block_mask=None, enable_gqa=False)


expected = []
for call in CALLS:  # each eager reference on its own: eager compiles internally
    torch._dynamo.reset()
    expected.append(run(flex_attention, call))
torch._dynamo.reset()
compiled = torch.compile(flex_attention, dynamic=None)
with torch._inductor.config.patch(config):
    for number, (call, want) in enumerate(zip(CALLS, expected)):
        print("call", number, call["constants"])
        got = run(compiled, call)
        atol = {"bfloat16": 3e-2, "float16": 3e-3}.get(call["dtype"], 1e-4)
        torch.testing.assert_close(got, want, atol=atol, rtol=0, equal_nan=True)
print("PASS: compiled and eager agree")
