# torch.compile on CPU: a graph compiled with the host's vector ISA is stored in Inductor's FX
# graph cache, and a later process run with ATEN_CPU_CAPABILITY=default is handed the same
# vectorized C++, which it builds without the vector headers: 'at::vec' has not been declared
# (CppCompileError). With TORCHINDUCTOR_FX_GRAPH_CACHE=0 the second process passes.
import os
import subprocess
import sys
import tempfile

PROGRAM = """import torch
x = torch.arange(40, dtype=torch.float32).reshape(2, 20)
print(torch.compile(lambda x: torch.amax(x * 2, dim=-1))(x))"""
env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp(prefix="inductor-cache-"))
env.pop("ATEN_CPU_CAPABILITY", None)
for capability in (None, "default"):
    run_env = env if capability is None else dict(env, ATEN_CPU_CAPABILITY=capability)
    run = subprocess.run([sys.executable, "-c", PROGRAM], env=run_env, capture_output=True, text=True)
    last = (run.stdout.strip() or run.stderr.strip()).splitlines()[-1:]
    print(f"ATEN_CPU_CAPABILITY={capability}: exit {run.returncode}", *last)
    if run.returncode != 0:
        errors = [line for line in run.stderr.splitlines() if "error:" in line]
        sys.exit(f"failed on the cached graph: {errors[:1]}")
