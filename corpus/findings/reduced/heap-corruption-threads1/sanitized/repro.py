# memory-error|error=out-of-bounds-access|access=WRITE|kernel=kernel_fill_stub<float>|statement=data_vec.store(data + d);
# Reduced by inductor-fuzz from case s1-24.
# A memory error only a sanitizer sees: the script runs itself again with Inductor's kernels
# built by g++-12 with -fsanitize=address -fno-omit-frame-pointer -g, the runtime preloaded.
import os, subprocess, sys, tempfile
if "REPRO_SANITIZED" not in os.environ:
    folder = tempfile.mkdtemp(prefix="repro-sanitized-")
    cxx = os.path.join(folder, "g++")  # named as the compiler: Inductor picks its flags
    with open(cxx, "w") as wrapper:
        wrapper.write('#!/bin/sh\nexec g++-12 "$@" -fsanitize=address -fno-omit-frame-pointer -g\n')
    os.chmod(cxx, 0o755)
    env = dict(os.environ, REPRO_SANITIZED="1", CXX=cxx)
    env.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(folder, "cache"))
    env["LD_PRELOAD"] = subprocess.run(["g++-12", "-print-file-name=libasan.so"], capture_output=True, text=True, check=True).stdout.strip() + " libstdc++.so.6"
    env["ASAN_OPTIONS"] = "detect_leaks=0:halt_on_error=1:abort_on_error=1:symbolize=1:" + os.environ.get("ASAN_OPTIONS", "")
    env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1:" + os.environ.get("UBSAN_OPTIONS", "")
    os.execve(sys.executable, [sys.executable] + sys.argv, env)
import torch
from torch.nn.attention.flex_attention import and_masks, or_masks, create_block_mask, create_mask, flex_attention

print("torch", torch.__version__)
config = {"aot_inductor.precompile_headers": False, "autotune_local_cache": False, "autotune_remote_cache": False, "compile_threads": 1, "cpp.dynamic_threads": False, "cpp.enable_loop_tail_vec": True, "cpp.simdlen": None, "cpp.threads": 1, "cpp_cache_precompile_headers": False, "cpp_wrapper": False, "force_disable_caches": True, "freezing": False, "fx_graph_cache": False, "fx_graph_remote_cache": False, "max_autotune": False}
print("inductor config:", config)
def mask_mod(b, h, q_idx, kv_idx):
    return (q_idx >= kv_idx)
with torch._inductor.config.patch(config):
    g = torch.Generator().manual_seed(0)
    q = torch.randn((1, 1, 255, 64), generator=g).to(torch.float32)
    k = torch.randn((1, 1, 512, 64), generator=g).to(torch.float32)
    v = torch.randn((1, 1, 512, 64), generator=g).to(torch.float32)
    kwargs = dict(score_mod=None, block_mask=create_block_mask(mask_mod, 1, None, 255, 512, device="cpu", BLOCK_SIZE=128), enable_gqa=False)
    expected = flex_attention(q, k, v, **kwargs)
    actual = torch.compile(flex_attention, dynamic=False)(q, k, v, **kwargs)
    torch.testing.assert_close(actual, expected, atol=0.0001, rtol=0, equal_nan=True)
print("PASS: compiled and eager agree")
