"""Precompiled include prefixes: a build that shares no output with an earlier one still skips
most of its compile.

Half or more of a g++ run on an Inductor kernel is parsing the torch headers its source includes
first (cpp_prefix.h, the shim, ATen), the same for every kernel built with the same flags. Like
ccache's precompiled-header mode, the compile is run as the exact command plus `-include P`,
where P lists the source's own leading `#include <...>` lines and a GCC precompiled header of P,
made with the command's own flags, sits beside it. Every header is guarded, so the source's
includes then add nothing, and the kernel's code, its diagnostics and the machine code g++ emits
are the exact command's (GCC refuses a precompiled header whose flags differ, and then parses).
The captured command stays Inductor's: the prefix is how it is run, not what is recorded. A
build that fails with the prefix is run again as the exact command, whose failure and output
are the ones recorded, so a compile error is never the prefix's.

A prefix is made the second time its key (compiler, CPU, torch, flags, include lines) is met:
making one costs about one and a half plain compiles and a few hundred MB, which a one-off
build would not pay back."""

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess

INCLUDE_LINE = re.compile(r"^\s*#\s*include\s*<[^<>]+>\s*$")
LINK_ONLY = ("-l", "-L", "-Wl,")
PREFIX_NAME = "prefix.h"


def leading_includes(source_text):
    """The `#include <...>` lines a source starts with (blank lines and // comments between
    them skipped); empty when anything else comes first."""
    includes = []
    for line in source_text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        if not INCLUDE_LINE.match(line):
            break
        includes.append(stripped)
    return includes


def cpu_identity():
    """-march=native means this CPU: a prefix made on another is never offered."""
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as info:
        wanted = [line for line in info if line.startswith(("model name", "flags"))][:2]
        return hashlib.sha256("".join(wanted).encode()).hexdigest()
    return ""


class PrefixHeaders:
    """The folder of precompiled prefixes (beside the shared builds, ~/.cache/inductor-fuzz)."""

    MAX_BYTES = 6 << 30
    MAKE_TIMEOUT = 600

    def __init__(self, folder, torch_stamp):
        self._folder = folder
        self._torch_stamp = torch_stamp

    @staticmethod
    def usable_compiler(compiler):
        version = compiler.get("version", "")
        return bool(version) and "clang" not in version.lower() and "g++" in version

    def _plan(self, argv, cwd, compiler):
        """(key, the prefix's include lines, the flags a prefix is made with), or None when this
        build is not one a prefix can serve."""
        if len(argv) < 2 or not self.usable_compiler(compiler):
            return None
        if any(arg in ("-include", "-x", "-E", "-S", "-M", "-MM") for arg in argv):
            return None
        sources = [arg for arg in argv[1:] if arg.endswith((".cpp", ".cc", ".cxx"))]
        if len(sources) != 1 or "-o" not in argv:
            return None
        source = os.path.join(cwd or "", sources[0])
        try:
            with open(source, encoding="utf-8") as text:
                includes = leading_includes(text.read())
        except (OSError, UnicodeDecodeError):
            return None
        if not includes:
            return None
        flags, skip = [], False
        for arg in argv[1:]:
            if skip:
                skip = False
            elif arg == "-o":
                skip = True
            elif arg == sources[0] or arg == "-shared" or arg.startswith(LINK_ONLY):
                continue
            else:
                flags.append(arg)
        output = os.path.abspath(os.path.join(cwd or "", argv[argv.index("-o") + 1]))
        output_folder = os.path.dirname(output)
        if any(output_folder in flag or (cwd and cwd in flag) for flag in flags):
            return None  # a flag naming the case's folder: no other build would share it
        # The torch stamp names the CPU too (-march=native).
        identity = [compiler.get("path"), compiler.get("version"), self._torch_stamp]
        identity += [flags, includes]
        key = hashlib.sha256(json.dumps(identity).encode()).hexdigest()[:32]
        return key, includes, flags

    def accelerated(self, argv, cwd, compiler):
        """argv with `-include` of a precompiled prefix made for it, or None to run argv as it is
        (no prefix fits, or its key is met for the first time, or making it failed)."""
        plan = self._plan(argv, cwd, compiler)
        if plan is None:
            return None
        key, includes, flags = plan
        folder = os.path.join(self._folder, key)
        header = os.path.join(folder, PREFIX_NAME)
        made = header + ".gch"
        try:
            if not os.path.exists(made):
                if not self._make(folder, header, made, argv[0], includes, flags):
                    return None
            os.utime(folder)  # recently used: the last to be trimmed
        except OSError:  # a full disk or an unwritable folder costs the prefix, not the build
            return None
        return [argv[0], "-include", header] + argv[1:]

    def _make(self, folder, header, made, compiler, includes, flags):
        os.makedirs(folder, exist_ok=True)
        seen = os.path.join(folder, "seen")
        if not os.path.exists(seen):
            open(seen, "w").close()
            return False
        if os.path.exists(os.path.join(folder, "failed")):
            return False
        with open(os.path.join(folder, "lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another worker making it: wait and use it
            if os.path.exists(made):
                return True
            with open(header + ".tmp", "w", encoding="utf-8") as text:
                text.write("\n".join(includes) + "\n")
            os.replace(header + ".tmp", header)
            partial = f"{made}.{os.getpid()}"
            try:
                subprocess.run(
                    [compiler, "-x", "c++-header", header, *flags, "-o", partial],
                    cwd=folder,
                    check=True,
                    capture_output=True,
                    timeout=self.MAKE_TIMEOUT,
                )
                os.replace(partial, made)
            except (OSError, subprocess.SubprocessError):
                with contextlib.suppress(OSError):
                    os.remove(partial)
                open(os.path.join(folder, "failed"), "w").close()
                return False
        self.trim()
        return True

    def trim(self):
        """The least recently used prefixes removed until the folder is under 3/4 of MAX_BYTES."""
        entries = []
        with contextlib.suppress(OSError), os.scandir(self._folder) as found:
            for entry in found:
                with contextlib.suppress(OSError):
                    size = sum(
                        inner.stat().st_size for inner in os.scandir(entry.path) if inner.is_file()
                    )
                    entries.append((entry.stat().st_mtime_ns, size, entry.path))
        total = sum(size for _, size, _ in entries)
        if total <= self.MAX_BYTES:
            return
        for _, size, path in sorted(entries):
            shutil.rmtree(path, ignore_errors=True)
            total -= size
            if total <= self.MAX_BYTES * 3 // 4:
                break
