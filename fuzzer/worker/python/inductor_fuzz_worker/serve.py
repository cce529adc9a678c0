"""The worker's protocol loop: JSON lines on stdin, replies on a private fd.

The C++ worker moves the protocol off fd 1 so that nothing torch prints can corrupt it, then
calls serve(). torch is imported once; every case gets a fresh Inductor cache folder, cleared
in-memory caches and the complete Inductor configuration the driver sends with it, so that
what Inductor generates depends on the case only.
"""

import contextlib
import json
import math
import os
import subprocess
import sys
import tempfile
import traceback

from . import isa_checks
from .capture import BuildCache, Capture, CompilerVersions, compile_command
from .cases import fresh_inductor_state, run_case
from .compat import prefix_header_include
from .confinement import Guard, refused_result
from .replay import compare_probes, replay


def resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def mapped_libtorch_cpu_copies():
    paths = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and os.path.basename(fields[5]) == "libtorch_cpu.so":
                paths.add(os.path.realpath(fields[5]))
    return sorted(paths)


class Session:
    """What one worker process keeps between cases: nothing that shapes generated code."""

    def __init__(self, torch_root, cpp_builder, versions, guard=None):
        self.torch_root = torch_root
        self.cpp_builder = cpp_builder
        self.versions = versions
        self.guard = guard  # None when the driver was told --no-confine

    def confined(self, roots, sources=()):
        """Arms the guard for one request; gives back a function that disarms it and returns
        what it refused."""
        if self.guard is None:
            return lambda: []
        self.guard.arm(list(roots) + [tempfile.gettempdir()], sources)
        return self.guard.disarm


def info():
    import torch
    from torch._inductor.cpu_vec_isa import pick_vec_isa, valid_vec_isa_list

    probe = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.version.split()[0])"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return {
        "torch_version": torch.__version__,
        "torch_path": os.path.dirname(torch.__file__),
        "python_version": sys.version.split()[0],
        "sys_executable": sys.executable,
        "sys_executable_runs_python": probe.returncode == 0 and probe.stdout.strip() != "",
        "sys_prefix": sys.prefix,
        "libtorch_cpu_copies": mapped_libtorch_cpu_copies(),
        "glibcxx_use_cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
        "vec_isas": [str(isa) for isa in valid_vec_isa_list()],
        "widest_simdlen": max((isa.bit_width() for isa in valid_vec_isa_list()), default=0),
        "picked_vec_isa": str(pick_vec_isa()),
        "rss_bytes": resident_bytes(),
    }


def _torch_names(source):
    """The dotted torch.X[.Y] names a function's source reads."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            parts, value = [node.attr], node.value
            while isinstance(value, ast.Attribute):
                parts.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id == "torch":
                names.add("torch." + ".".join(reversed(parts)))
    return names


def case_problems(case):
    """What a case asks of this torch release and this CPU that they do not have, one line each
    (the driver refuses such a case before running it): a torch op or dtype its functions name
    that the release lacks, a CPU capability the host has no vector ISA for."""
    import torch
    from torch._inductor.cpu_vec_isa import valid_vec_isa_list

    problems = []
    for key in ("mask_mod", "score_mod"):
        function = case.get(key) or {}
        try:
            names = _torch_names(function.get("source") or "")
        except SyntaxError:
            continue  # the case reader's and eager's to say
        for name in sorted(names):
            value = torch
            for part in name.split(".")[1:]:
                if not hasattr(value, part):
                    problems.append(
                        f"{key}.source names {name}, which torch {torch.__version__} does not "
                        f"have; use an op or dtype of this release (or another --torch)"
                    )
                    break
                value = getattr(value, part)
    capability = (case.get("inductor") or {}).get("ATEN_CPU_CAPABILITY")
    if capability not in (None, "default"):
        available = ["default"] + [str(isa) for isa in valid_vec_isa_list()]
        if capability not in available:
            problems.append(
                f"inductor.ATEN_CPU_CAPABILITY is {capability!r}, which this CPU cannot run; use "
                f"one of {', '.join(available)} or leave it out"
            )
    return problems


def handle(session, request, scratch):
    op = request.get("op")
    if op == "run":
        missing = [key for key in ("case", "inductor_config", "dynamic") if key not in request]
        if missing:
            raise ValueError(f"a run request needs {', '.join(missing)}")
        cache_dir = request.get("cache_dir") or os.path.join(scratch, f"case-{request['id']}")
        disarm = session.confined(
            [scratch, cache_dir, request.get("record_dir"), request.get("build_cache")]
        )
        try:
            result = run_case(
                session,
                request["case"],
                cache_dir,
                request["inductor_config"],
                request["dynamic"],
                eager_only=request.get("eager_only", False),
                plant=request.get("test_plant"),
                record_dir=request.get("record_dir"),
                defaulted_knobs=request.get("defaulted_knobs", ()),
                build_cache=request.get("build_cache"),
            )
        finally:
            refusals = disarm()
        if refusals:
            result = refused_result(refusals[0])
        result["rss_bytes"] = resident_bytes()
        return {"result": result}
    if op == "info":
        return {"info": info()}
    if op == "check_case":
        return {"problems": case_problems(request["case"])}
    if op == "surface_universe":
        from .surface import surface_universe

        return {"surface_universe": surface_universe()}
    if op == "load":
        import ctypes

        try:
            ctypes.CDLL(request["path"], mode=os.RTLD_NOW | os.RTLD_LOCAL)
            return {"load_error": ""}
        except OSError as error:
            return {"load_error": str(error)}
    if op == "replay":
        return {
            "replay": replay(
                request["module"],
                request["entry"],
                request["recording"],
                request.get("call_journal"),
                request.get("probe_dir"),
                request.get("reference"),
                request.get("tolerances"),
                request.get("family", "pointwise"),
                request.get("keep_outputs"),
                request.get("against"),
            )
        }
    if op == "compare_probes":
        return {"compare_probes": compare_probes(request["reference"], request["candidate"])}
    if op == "convert":
        from .convert import convert_module

        module = request["path"]
        disarm = session.confined([scratch], [module, os.path.realpath(module)])
        try:
            converted = convert_module(module, request.get("mask"), request.get("score"))
        except ValueError as error:  # the user's module: a one-line error for the driver
            converted = {"error": str(error)}
        finally:
            refusals = disarm()
        if refusals:
            return {"error": refusals[0]}
        return converted if "error" in converted else {"convert": converted}
    if op == "compile_command":
        return {
            "argv": compile_command(session.cpp_builder, request["compiler"]),
            "prefix_include": prefix_header_include(),
        }
    raise ValueError(f"unknown op {op!r}")


def json_safe(value):
    """value with every NaN and infinity spelt as a string: JSON has no such numbers, and a
    wrong result is exactly where they turn up."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return value


def warm_up(scratch, session, shared_builds=None):
    """Runs the one-time ISA probes Inductor caches per process, so that no case captures them.
    Their ten builds (15 s or more) are the same in every worker process: with shared_builds
    their verdicts are remembered there (isa_checks.py) after the first process on this
    machine made them.
    Returns the builds, as Capture records them (none without shared_builds)."""
    from torch._inductor.cpu_vec_isa import pick_vec_isa, valid_vec_isa_list

    folder = os.path.join(scratch, "warm-up")
    capture = None
    remembered = contextlib.nullcontext()
    if shared_builds:
        cache = BuildCache(shared_builds, folder)
        capture = Capture(session.cpp_builder, session.versions, build_cache=cache)
        remembered = isa_checks.remembered(shared_builds)
    with (
        fresh_inductor_state(folder),
        capture.installed() if capture else contextlib.nullcontext(),
        remembered,
    ):
        valid_vec_isa_list()
        pick_vec_isa()
    return capture.builds if capture else []


def serve(protocol_fd, scratch, confinement=None, shared_builds=None):
    out = os.fdopen(protocol_fd, "w", buffering=1)

    def reply(message):
        out.write(json.dumps(json_safe(message), allow_nan=False) + "\n")
        out.flush()

    try:
        import torch

        from .compat import unsupported_reasons

        reasons = unsupported_reasons()
    except Exception as error:  # a broken install: torch or one of its libraries is missing
        torch, reasons = None, [f"torch cannot be imported ({type(error).__name__}: {error})"]
    if reasons:
        reply(
            {
                "event": "unsupported",
                "torch_version": getattr(torch, "__version__", None),
                "torch_path": os.path.dirname(torch.__file__) if torch else None,
                "reasons": reasons,
            }
        )
        return 4
    import torch._inductor.cpp_builder as cpp_builder

    confinement = dict(confinement or {})
    session = Session(
        torch_root=os.path.dirname(torch.__file__) + os.sep,
        cpp_builder=cpp_builder,
        versions=CompilerVersions(),
        guard=Guard() if confinement.get("requested") else None,
    )
    rss_after_import = resident_bytes()
    warm_up(scratch, session, shared_builds)
    reply(
        {
            "event": "ready",
            "pid": os.getpid(),
            "torch_version": torch.__version__,
            "rss_after_import_bytes": rss_after_import,
            "confinement": confinement,
        }
    )
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
        except ValueError as error:
            reply({"error": f"request is not JSON: {error}"})
            continue
        if request.get("op") == "shutdown":
            reply({"event": "bye", "id": request.get("id")})
            return 0
        try:
            message = handle(session, request, scratch)
        except Exception as error:  # the worker survives a request it cannot serve
            message = {
                "error": f"{type(error).__name__}: {error}",
                "traceback": traceback.format_exc()[-4000:],
            }
        message["id"] = request.get("id")
        reply(message)
    return 0
