"""Capturing what Inductor builds: every compile command, its sources and its compiler."""

import contextlib
import functools
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import time

from .prefix_headers import cpu_identity

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


class BuildCache:
    """Compiler outputs by content, like ccache: a build whose compiler, command and inputs are
    those of an earlier build (another case, another process: the folder outlives both) gets
    the earlier output instead of a compiler run. Inductor still generates and writes every
    source (its own caches stay off), and the build is still captured; only the compiler's run
    is skipped, whose output is a function of what the key holds: the compiler's path and
    version, the command, the inputs the case made, and the installed torch's headers and
    library (by path, size and time). The case's own Inductor folder is a placeholder in the
    key, since it is in the command and in the sources. What it saves: Inductor's checks of the
    CPU (ten builds, 15 s or more in every new worker process's warm-up, serve.warm_up), a
    mutated case's rebuilds of its parent's kernels and a probe's rebuilds of what its reverted
    setting did not change.

    Sanitized builds are never shared: a sanitizer's report names the source path the build
    was made from, which must be the case's own. A failed build is never stored. The folder is
    kept under MAX_BYTES by removing the least recently used outputs."""

    PLACEHOLDER = "<inductor-cache>"
    MAX_BYTES = 2 << 30
    TRIM_EVERY = 32  # stores between two looks at the folder's size

    _torch_stamp = None
    _stores = 0

    def __init__(self, folder, cache_dir):
        self._folder = folder
        self._case_folders = sorted(
            {os.path.abspath(cache_dir), os.path.realpath(cache_dir)}, key=len, reverse=True
        )

    @classmethod
    def torch_stamp(cls):
        """What identifies the installed torch's headers and library, asked once a process."""
        if cls._torch_stamp is None:
            import torch

            root = os.path.dirname(os.path.realpath(torch.__file__))
            # Inductor builds with -march=native: an output built on another CPU is not ours.
            stamp = [torch.__version__, root, cpu_identity()]
            for part in (
                "include/torch/csrc/inductor/cpp_prefix.h",
                "include/ATen/cpu/vec/vec_base.h",
                "lib/libtorch_cpu.so",
            ):
                try:
                    info = os.stat(os.path.join(root, part))
                    stamp.append([part, info.st_size, info.st_mtime_ns])
                except OSError:
                    stamp.append([part, None])
            cls._torch_stamp = json.dumps(stamp)
        return cls._torch_stamp

    @staticmethod
    def shareable(argv):
        return not any(arg.startswith("-fsanitize") for arg in argv)

    def _neutral(self, text, folders):
        for folder in folders:
            text = text.replace(folder, self.PLACEHOLDER)
        return text

    def _neutral_bytes(self, data, folders):
        for folder in folders:
            data = data.replace(folder.encode(), self.PLACEHOLDER.encode())
        return data

    def _folders_of(self, output):
        """With Inductor's caches off, each compile writes under a fresh temporary folder of the
        case's (CASE/tmpXXXXXXXX/...): that folder is named by the placeholder too."""
        for folder in self._case_folders:
            relative = os.path.relpath(os.path.abspath(output), folder)
            first = relative.split(os.sep)[0]
            if not relative.startswith("..") and first.startswith("tmp") and first != relative:
                return [os.path.join(folder, first)] + self._case_folders
        return self._case_folders

    def key(self, argv, cwd, compiler, output):
        """The build's key, or None when an input cannot be read (then it is compiled: the
        sharing must never make a finding of its own)."""
        try:
            return self._key(argv, cwd, compiler, output)
        except (OSError, ValueError):
            return None

    def _key(self, argv, cwd, compiler, output):
        folders = self._folders_of(output)
        digest = hashlib.sha256()
        digest.update(
            json.dumps([compiler, self.torch_stamp(), self._neutral(cwd or "", folders)]).encode()
        )
        for arg in argv:
            digest.update(b"\0" + self._neutral(arg, folders).encode())
            path = os.path.abspath(os.path.join(cwd or "", arg))
            # The inputs the case made (sources, objects); torch's headers and libraries are
            # in the torch stamp.
            if path != os.path.abspath(output) and self._neutral(path, folders) != path:
                if os.path.isfile(path):
                    with open(path, "rb") as data:
                        neutral = self._neutral_bytes(data.read(), folders)
                        digest.update(hashlib.sha256(neutral).digest())
        return digest.hexdigest()

    def fetch(self, key, output):
        stored = os.path.join(self._folder, key)
        partial = f"{output}.from-cache-{os.getpid()}"
        try:
            os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
            shutil.copyfile(stored, partial)
            shutil.copymode(stored, partial)
            os.replace(partial, output)
            os.utime(stored)  # recently used: the last to be trimmed
            return True
        except OSError:  # not there, or trimmed by another process meanwhile: compile it
            with contextlib.suppress(OSError):
                os.remove(partial)
            return False

    def store(self, key, output):
        partial = os.path.join(self._folder, f".{key}.{os.getpid()}")
        try:
            os.makedirs(self._folder, exist_ok=True)
            shutil.copyfile(output, partial)
            shutil.copymode(output, partial)
            os.replace(partial, os.path.join(self._folder, key))
        except OSError:  # a full disk or an unwritable folder costs the sharing, not the case
            with contextlib.suppress(OSError):
                os.remove(partial)
            return
        BuildCache._stores += 1
        if BuildCache._stores % self.TRIM_EVERY == 0:
            self.trim()

    def trim(self):
        """The least recently used outputs removed until the folder is under 3/4 of MAX_BYTES."""
        entries = []
        with contextlib.suppress(OSError), os.scandir(self._folder) as found:
            for entry in found:
                with contextlib.suppress(OSError):
                    info = entry.stat()
                    entries.append((info.st_mtime_ns, info.st_size, entry.path))
        total = sum(size for _, size, _ in entries)
        if total <= self.MAX_BYTES:
            return
        for _, size, path in sorted(entries):
            with contextlib.suppress(OSError):
                os.remove(path)
                total -= size
            if total <= self.MAX_BYTES * 3 // 4:
                break


def output_of(argv):
    """The file a compile command writes (its `-o`), or None when it names none or several."""
    outputs = [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "-o"]
    return outputs[0] if len(outputs) == 1 else None


class Capture:
    """Wraps cpp_builder._run_compile_cmd: every compile Inductor runs passes through it."""

    def __init__(self, cpp_builder, versions, journal=None, build_cache=None, prefixes=None):
        self._cpp_builder = cpp_builder
        self._versions = versions
        self._original = cpp_builder._run_compile_cmd
        self._build_cache = build_cache
        self._prefixes = prefixes  # a PrefixHeaders: how a build is run, not what is captured
        self.builds = []
        # One JSON line per finished build, written as it finishes: a process that dies later
        # in the case (a kernel corrupting the heap) still leaves its commands and sources.
        self._journal = journal
        if journal:
            os.makedirs(os.path.dirname(journal), exist_ok=True)
            open(journal, "w").close()

    def _run(self, original, argv, cmd_line, cwd, record):
        accelerated = (
            self._prefixes.accelerated(argv, cwd, record["compiler"]) if self._prefixes else None
        )
        if accelerated:
            try:
                original(shlex.join(accelerated), cwd)
                record["precompiled_prefix"] = True
                return
            except Exception:  # the exact command decides a failure and says what failed
                pass
        original(cmd_line, cwd)

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
            cache, output = self._build_cache, output_of(argv)
            key = None
            try:
                if cache and output and cache.shareable(argv):
                    output = os.path.join(cwd or "", output)
                    key = cache.key(argv, cwd, record["compiler"], output)
                    if key and cache.fetch(key, output):
                        record["from_build_cache"] = True
                        return None
                self._run(original, argv, cmd_line, cwd, record)
                if key:
                    cache.store(key, output)
                return None
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
