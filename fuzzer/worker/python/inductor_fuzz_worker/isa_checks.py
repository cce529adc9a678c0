"""Inductor's checks of the CPU's vector ISAs, remembered per machine.

Every new worker process asks Inductor which vector ISAs this machine can build and load
(cpu_vec_isa.valid_vec_isa_list): ten dry builds and, for each, a child Python that dlopens the
result, 20 s the first time and 3 s or more even with the builds shared (the dlopen children
always run: their markers live in the process's fresh Inductor cache). The verdict is a
function of the check's source, the ISA's flags, the compiler, the torch release and the CPU;
remembered under those, a later process on this machine asks nothing. The builds themselves
are never used again: only the verdict is.
"""

import contextlib
import hashlib
import os
import tempfile

from .prefix_headers import cpu_identity

PREFIX = "isa-check-"  # beside the shared builds, whose trim may drop one: it is asked again


def _key(isa, code):
    import torch
    from torch._inductor.cpp_builder import get_compiler_version_info, get_cpp_compiler

    parts = [
        torch.__version__,
        get_compiler_version_info(get_cpp_compiler()),
        type(isa).__name__,
        isa.build_arch_flags(),
        code,
        cpu_identity(),
        os.environ.get("ATEN_CPU_CAPABILITY", ""),
    ]
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()


@contextlib.contextmanager
def remembered(folder):
    """While installed, VecISA.check_build answers from folder when it asked before."""
    from torch._inductor.cpu_vec_isa import VecISA

    original = VecISA.check_build

    def check_build(isa, code):
        path = os.path.join(folder, PREFIX + _key(isa, code))
        with contextlib.suppress(OSError), open(path, encoding="utf-8") as stream:
            verdict = stream.read().strip()
            if verdict in ("ok", "unsupported"):
                return verdict == "ok"
        verdict = original(isa, code)
        with contextlib.suppress(OSError):
            with tempfile.NamedTemporaryFile(
                "w", dir=folder, delete=False, suffix=".tmp", encoding="utf-8"
            ) as stream:
                stream.write("ok" if verdict else "unsupported")
            os.replace(stream.name, path)
        return verdict

    VecISA.check_build = check_build
    try:
        yield
    finally:
        VecISA.check_build = original
