"""What a case's own code may do: compute masks and scores, nothing else.

A case is code: its mask and score sources, its op program and the module `convert` reads run in
the worker. The worker process is confined by the C++ side (no network namespace, Landlock
limiting writes to the folders the driver names), which holds for torch and every compiler too.
This audit hook names the culprit: when the case's own code (the nearest frame outside the
standard library is one of the case's sources) writes outside its case's folders, starts a
process, opens a socket or loads a library, that is a refusal with the case's line, recorded
for the driver, never a finding.
"""

import os
import sys
import sysconfig
import threading

CASE_SOURCES = frozenset({"<mask_mod>", "<score_mod>", "<case program>", "<case functions>"})
SPAWNS = frozenset(
    {
        "os.system",
        "subprocess.Popen",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "pty.spawn",
        "os.startfile",
    }
)
NETWORK = frozenset({"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg"})
CHANGES = frozenset(
    {
        "os.remove",
        "os.rmdir",
        "os.rename",
        "os.mkdir",
        "os.truncate",
        "os.chmod",
        "os.chown",
        "os.link",
        "os.symlink",
        "os.utime",
        "shutil.rmtree",
        "shutil.move",
        "shutil.copyfile",
        "shutil.copytree",
    }
)
LIBRARIES = frozenset({"ctypes.dlopen"})
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_STDLIB = tuple(
    os.path.realpath(path) + os.sep
    for path in {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}
)


class CaseRefused(PermissionError):
    """The case's code tried something a case may not do."""


def _writes(args):
    if len(args) >= 3 and isinstance(args[2], int) and args[2] >= 0:
        return bool(args[2] & WRITE_FLAGS)
    mode = args[1] if len(args) >= 2 else None
    return isinstance(mode, str) and any(letter in mode for letter in "wax+")


def _library_frame(filename):
    return filename.startswith("<frozen ") or os.path.realpath(filename).startswith(_STDLIB)


class Guard:
    """One per worker (an audit hook cannot be removed); armed only while a case runs."""

    def __init__(self):
        self._local = threading.local()
        self.refusals = []
        self._roots = ()
        self._sources = CASE_SOURCES
        self._armed = False
        sys.addaudithook(self._hook)

    def arm(self, roots, sources=()):
        self._roots = tuple(os.path.realpath(root) + os.sep for root in roots if root)
        self._sources = CASE_SOURCES | frozenset(sources)
        self.refusals = []
        self._armed = True

    def disarm(self):
        self._armed = False
        return self.refusals

    def _case_line(self):
        """'<mask_mod> line 3' when the case's own code is the actor, else None."""
        frame = sys._getframe(2)
        while frame is not None and _library_frame(frame.f_code.co_filename):
            frame = frame.f_back
        if frame is None or frame.f_code.co_filename not in self._sources:
            return None
        return f"{frame.f_code.co_filename} line {frame.f_lineno}"

    def _inside(self, path):
        target = os.path.realpath(os.fsdecode(path)) + os.sep
        return any(target.startswith(root) for root in self._roots)

    def _what(self, event, args):
        if event == "open":
            if not args or isinstance(args[0], int) or not _writes(args):
                return None
            return None if self._inside(args[0]) else f"write {os.fsdecode(args[0])}"
        if event in CHANGES:
            paths = [arg for arg in args if isinstance(arg, (str, bytes, os.PathLike))]
            outside = [path for path in paths if not self._inside(path)]
            return f"{event} {os.fsdecode(outside[0])}" if outside else None
        if event in SPAWNS:
            return f"start a process ({event})"
        if event in NETWORK:
            return f"use the network ({event} {args[1] if len(args) > 1 else ''})".rstrip()
        if event in LIBRARIES:
            return f"load a library ({args[0] if args else '?'})"
        return None

    def _hook(self, event, args):
        if not self._armed or getattr(self._local, "inside", False):
            return
        if not (
            event == "open"
            or event in CHANGES
            or event in SPAWNS
            or event in NETWORK
            or event in LIBRARIES
        ):
            return
        self._local.inside = True  # realpath and frame walks must not judge themselves
        try:
            what = self._what(event, args)
            where = self._case_line() if what else None
        finally:
            self._local.inside = False
        if not where:
            return
        message = (
            f"the case's code at {where} tried to {what}: a case is code, and inductor-fuzz runs "
            f"it with no network, no processes of its own and writes only under its case "
            f"folder; review the case, or give --no-confine to run code you trust"
        )
        self.refusals.append(message)
        raise CaseRefused(message)


def refused_result(message):
    """A run's result when the case's code was refused: an unusable case, never a finding."""
    described = {"type": "CaseRefused", "message": message, "normalized_message": message}
    return {
        "status": "invalid-case",
        "kind": None,
        "phase": "confinement",
        "exception": described,
        "phases": {},
        "builds": [],
        "wrappers": [],
    }
