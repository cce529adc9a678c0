"""Capturing what Inductor builds: every compile command, its sources and its compiler."""

import contextlib
import functools
import json
import os
import shlex
import shutil
import subprocess
import time

CPP_SUFFIXES = (".cpp", ".cc", ".cxx", ".c", ".cu")
BUILD_JOURNAL = "builds.jsonl"  # in a case's record_dir; read by the C++ side after a crash


def read_text(path):
    with open(path, encoding="utf-8", errors="replace") as source:
        return source.read()


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

    def __init__(self, cpp_builder, versions, journal=None):
        self._cpp_builder = cpp_builder
        self._versions = versions
        self._original = cpp_builder._run_compile_cmd
        self.builds = []
        # One JSON line per finished build, written as it finishes: a process that dies later
        # in the case (a kernel corrupting the heap) still leaves its commands and sources.
        self._journal = journal
        if journal:
            os.makedirs(os.path.dirname(journal), exist_ok=True)
            open(journal, "w").close()

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
                    {"path": arg, "text": read_text(arg)}
                    for arg in argv[1:]
                    if arg.endswith(CPP_SUFFIXES) and os.path.isfile(arg)
                ],
                "exit_code": 0,
                "output": "",
            }
            self.builds.append(record)
            started = time.monotonic()
            try:
                return original(cmd_line, cwd)
            except Exception as error:
                record["exit_code"] = 1
                record["output"] = getattr(error, "output", str(error))
                raise
            finally:
                record["seconds"] = round(time.monotonic() - started, 3)
                if self._journal:
                    with open(self._journal, "a", encoding="utf-8") as journal:
                        journal.write(json.dumps(record) + "\n")

        self._cpp_builder._run_compile_cmd = recording_run_compile_cmd
        try:
            yield self
        finally:
            self._cpp_builder._run_compile_cmd = original


def collect_wrapper_code(cache_dir):
    wrappers = []
    for root, dirs, files in os.walk(cache_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                wrappers.append({"path": path, "text": read_text(path)})
    return wrappers


def clear_compiler_caches(cpp_builder):
    """cpp_builder memoizes is_gcc()/is_clang() without the compiler as a key: forget them
    whenever the compiler changes, or clang would get gcc's flags."""
    for value in vars(cpp_builder).values():
        if isinstance(value, functools._lru_cache_wrapper):
            value.cache_clear()


def compile_command(cpp_builder, compiler):
    """Inductor's own command line for a CPU kernel, as it would build it with `compiler`."""
    from torch._inductor import config as inductor_config
    from torch._inductor.cpp_builder import CppBuilder, CppTorchDeviceOptions
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    clear_compiler_caches(cpp_builder)
    with contextlib.ExitStack() as restore:
        restore.callback(clear_compiler_caches, cpp_builder)
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
