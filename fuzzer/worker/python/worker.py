"""The inductor-fuzz worker's Python half.

The C++ worker (fuzzer/worker_main.cpp) embeds CPython, moves the protocol off fd 1 so that
nothing torch prints can corrupt it, and calls serve(). Requests and replies are JSON lines.
torch is imported once; every case gets a fresh Inductor cache folder, cleared in-memory
caches and explicitly set codegen knobs, so that what it generates depends on the case only.
"""

import contextlib
import functools
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import traceback

CPP_SUFFIXES = (".cpp", ".cc", ".cxx", ".c", ".cu")
HEX_HASH = re.compile(r"\b[0-9a-f]{16,}\b")
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
TMP_PATH = re.compile(r"(/tmp|/var/tmp)/[^\s'\"]*")


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

    def __init__(self, torch_root, cpp_builder, versions):
        self.torch_root = torch_root
        self.cpp_builder = cpp_builder
        self.versions = versions


class CompilerVersions:
    """`--version` of each compiler Inductor runs, asked once per worker."""

    def __init__(self):
        self._known = {}

    def describe(self, program):
        resolved = shutil.which(program) or program
        if resolved not in self._known:
            try:
                out = subprocess.run(
                    [resolved, "--version"], capture_output=True, text=True, timeout=30
                ).stdout
                first = out.splitlines()[0] if out else ""
            except (OSError, subprocess.SubprocessError):
                first = ""
            self._known[resolved] = first
        return {"path": os.path.realpath(resolved), "version": self._known[resolved]}


class Capture:
    """Wraps cpp_builder._run_compile_cmd: every compile Inductor runs passes through it."""

    def __init__(self, cpp_builder, versions):
        self._cpp_builder = cpp_builder
        self._versions = versions
        self._original = cpp_builder._run_compile_cmd
        self.builds = []

    @contextlib.contextmanager
    def installed(self):
        original = self._original

        def recording_run_compile_cmd(cmd_line, cwd):
            argv = shlex.split(cmd_line)
            record = {
                "argv": argv,
                "cwd": cwd,
                "compiler": self._versions.describe(argv[0]) if argv else {},
                "sources": [
                    {"path": arg, "text": _read_text(arg)}
                    for arg in argv[1:]
                    if arg.endswith(CPP_SUFFIXES) and os.path.isfile(arg)
                ],
                "exit_code": 0,
                "output": "",
            }
            self.builds.append(record)
            started = time.monotonic()
            try:
                original(cmd_line, cwd)
            except Exception as error:
                record["exit_code"] = 1
                record["output"] = getattr(error, "output", str(error))
                raise
            finally:
                record["seconds"] = round(time.monotonic() - started, 3)

        self._cpp_builder._run_compile_cmd = recording_run_compile_cmd
        try:
            yield self
        finally:
            self._cpp_builder._run_compile_cmd = original


def _read_text(path):
    with open(path, encoding="utf-8", errors="replace") as source:
        return source.read()


def normalize_message(message):
    message = ADDRESS.sub("0x<addr>", message)
    message = TMP_PATH.sub("<tmp>", message)
    message = HEX_HASH.sub("<hash>", message)
    return message.strip()


def _exception_chain(error):
    seen = []
    while error is not None and error not in seen:
        seen.append(error)
        error = getattr(error, "inner_exception", None) or error.__cause__ or error.__context__
    return seen


def describe_exception(error, torch_root):
    from torch._inductor.exc import CppCompileError

    frames = [
        f"{os.path.relpath(frame.filename, torch_root)}:{frame.name}"
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename.startswith(torch_root)
    ]
    chain = _exception_chain(error)
    described = {
        "type": f"{type(error).__module__}.{type(error).__qualname__}",
        "message": str(error),
        "normalized_message": normalize_message(str(error).splitlines()[0] if str(error) else ""),
        "torch_frames": frames[-12:],
        "chain": [f"{type(e).__module__}.{type(e).__qualname__}" for e in chain],
    }
    for inner in chain:
        if isinstance(inner, CppCompileError):
            described["compile_error"] = {"argv": list(inner.cmd), "output": inner.output}
            break
    return described


def inductor_patches(knobs):
    return {
        "cpp.threads": knobs["cpp.threads"],
        "cpp.simdlen": knobs["cpp.simdlen"],
        "cpp_wrapper": knobs["cpp_wrapper"],
        "max_autotune": knobs["max_autotune"],
        "freezing": knobs["freezing"],
        "cpp.enable_loop_tail_vec": knobs["cpp.enable_loop_tail_vec"],
        "cpp.dynamic_threads": knobs["cpp.dynamic_threads"],
        "compile_threads": 1,
        "force_disable_caches": True,
        "fx_graph_cache": False,
        "fx_graph_remote_cache": False,
        "autotune_local_cache": False,
        "autotune_remote_cache": False,
        "cpp_cache_precompile_headers": False,
        "aot_inductor.precompile_headers": False,
    }


@contextlib.contextmanager
def fresh_inductor_state(cache_dir):
    import torch
    from torch._inductor.utils import clear_caches

    os.makedirs(cache_dir, exist_ok=True)
    saved = {key: os.environ.get(key) for key in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")}
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir
    os.environ["TRITON_CACHE_DIR"] = os.path.join(cache_dir, "triton")
    torch._dynamo.reset()
    clear_caches()
    try:
        yield
    finally:
        torch._dynamo.reset()
        clear_caches()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def collect_wrapper_code(cache_dir):
    wrappers = []
    for root, dirs, files in os.walk(cache_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                wrappers.append({"path": path, "text": _read_text(path)})
    return wrappers


def run_case(session, case, cache_dir, eager_only=False, plant=None, record_dir=None):
    import torch
    from torch._inductor import config as inductor_config

    result = {"status": "pass", "kind": None, "phases": {}, "builds": [], "wrappers": []}
    expected = case.get("expect", {}).get("raises")
    started = time.monotonic()
    try:
        api = Api(case, build_namespace(case))
    except BaseException as error:  # a SyntaxError or NameError in the case is a finding
        return _failed(session, result, "exception", "define", error, expected)

    capture = Capture(session.cpp_builder, session.versions)
    recorder = KernelRecorder(record_dir)
    with fresh_inductor_state(cache_dir):
        eager = None
        try:
            eager = api.run(api.eager_function())
        except BaseException as error:
            if not expected or eager_only:
                return _failed(session, result, "exception", "eager", error, expected)
            # Meant to raise: eager's exception is kept, and the compile still runs, since what
            # torch.compile raises for it is what the case is about.
            result["eager_exception"] = describe_exception(error, session.torch_root)
        result["phases"]["eager_seconds"] = round(time.monotonic() - started, 3)
        if eager_only:
            return result
        started = time.monotonic()
        try:
            with (
                inductor_config.patch(inductor_patches(case["inductor"])),
                capture.installed(),
                recorder.installed(),
            ):
                compiled_function = torch.compile(
                    api.eager_function(), dynamic=case["inductor"]["dynamic"]
                )
                compiled = api.run(compiled_function)
        except BaseException as error:
            result["builds"] = capture.builds
            result["wrappers"] = collect_wrapper_code(cache_dir)
            kind = "exception"
            if any(b["exit_code"] != 0 for b in capture.builds):
                kind = "compile-error"
            return _failed(session, result, kind, "compile", error, expected)
        result["phases"]["compiled_seconds"] = round(time.monotonic() - started, 3)
        result["recordings"] = recorder.save()
        result["recording_skipped"] = sorted(set(recorder.skipped))
        result["builds"] = capture.builds
        result["wrappers"] = collect_wrapper_code(cache_dir)
    if eager is None:
        result["expected_exception_missing"] = expected
        return result
    if plant:
        compiled = plant_difference(case["api"], compiled, plant)
    mismatches, details = api.compare(eager, compiled)
    result.update(details)
    if mismatches:
        result.update(status="finding", kind="wrong-result", mismatches=mismatches)
    if expected:
        result["expected_exception_missing"] = expected
    return result


def _failed(session, result, kind, phase, error, expected):
    described = describe_exception(error, session.torch_root)
    if kind == "exception" and "compile_error" in described:
        kind = "compile-error"
    described["class"] = classify_exception(described)
    described["expected"] = bool(expected) and described["class"] == expected
    status = "expected" if described["expected"] else "finding"
    result.update(status=status, kind=kind, phase=phase, exception=described)
    return result


def clear_compiler_caches(cpp_builder):
    """cpp_builder memoizes is_gcc()/is_clang() without the compiler as a key: forget them
    whenever the compiler changes, or clang would get gcc's flags."""
    for value in vars(cpp_builder).values():
        if isinstance(value, functools._lru_cache_wrapper):
            value.cache_clear()


def compile_command(session, compiler):
    """Inductor's own command line for a CPU kernel, as it would build it with `compiler`."""
    from torch._inductor import config as inductor_config
    from torch._inductor.cpp_builder import CppBuilder, CppTorchDeviceOptions
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    clear_compiler_caches(session.cpp_builder)
    with contextlib.ExitStack() as restore:
        restore.callback(clear_compiler_caches, session.cpp_builder)
        restore.enter_context(inductor_config.patch({"cpp.cxx": (None, compiler)}))
        options = CppTorchDeviceOptions(
            vec_isa=pick_vec_isa(), device_type="cpu", compile_only=False
        )
        builder = CppBuilder(
            name="inductor_fuzz_probe",
            sources="inductor_fuzz_probe.cpp",
            BuildOption=options,
            output_dir="inductor_fuzz_out",
        )
        return shlex.split(builder.get_command_line())


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


def handle(session, request, scratch):
    op = request.get("op")
    if op == "run":
        cache_dir = request.get("cache_dir") or os.path.join(scratch, f"case-{request['id']}")
        result = run_case(
            session,
            request["case"],
            cache_dir,
            eager_only=request.get("eager_only", False),
            plant=request.get("test_plant"),
            record_dir=request.get("record_dir"),
        )
        result["rss_bytes"] = resident_bytes()
        return {"result": result}
    if op == "info":
        return {"info": info()}
    if op == "load":
        import ctypes

        try:
            ctypes.CDLL(request["path"], mode=os.RTLD_NOW | os.RTLD_LOCAL)
            return {"load_error": ""}
        except OSError as error:
            return {"load_error": str(error)}
    if op == "replay":
        return {"replay": replay(request["module"], request["entry"], request["recording"])}
    if op == "compile_command":
        return {"argv": compile_command(session, request["compiler"])}
    raise ValueError(f"unknown op {op!r}")


def warm_up(scratch):
    """Runs the one-time ISA probes Inductor caches per process, so that no case captures them."""
    from torch._inductor.cpu_vec_isa import pick_vec_isa, valid_vec_isa_list

    with fresh_inductor_state(os.path.join(scratch, "warm-up")):
        valid_vec_isa_list()
        pick_vec_isa()


def serve(protocol_fd, scratch):
    out = os.fdopen(protocol_fd, "w", buffering=1)

    def reply(message):
        out.write(json.dumps(message) + "\n")
        out.flush()

    import torch
    import torch._inductor.cpp_builder as cpp_builder

    session = Session(
        torch_root=os.path.dirname(torch.__file__) + os.sep,
        cpp_builder=cpp_builder,
        versions=CompilerVersions(),
    )
    rss_after_import = resident_bytes()
    warm_up(scratch)
    reply(
        {
            "event": "ready",
            "pid": os.getpid(),
            "torch_version": torch.__version__,
            "rss_after_import_bytes": rss_after_import,
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
            message = {"error": f"{type(error).__name__}: {error}"}
        message["id"] = request.get("id")
        reply(message)
    return 0
