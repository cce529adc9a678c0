"""Which bugs are on, where a firing happens, and its log: what the patched torch calls.

The catalogue (BUGS, in the order score.py and the tests know; the first set a..m, then the
second n..q, selectable by set name), the selection from
INDUCTOR_FUZZ_INJECT, the case a compile belongs to, the rule that a case has one injected cause
(kept in the case's folder across processes, else in this process: reset() forgets it), and
rewrite_source(), which applies the first matching source bug. Nothing here imports torch.
"""

import json
import os
import re
import sys
import threading
import time

from .bugs import (
    ClangOnlyMiscompile,
    LoweringException,
    NarrowingInitializer,
    OutOfBoundsWrite,
    RedeclaredLocal,
    UndefinedSymbol,
    WrapperDeclarationMismatch,
    WrongValue,
)
from .flex_bugs import FlexDecodeOffset, FlexHalfFirstRow, FlexScaleOut, FlexTailDims
from .mask_bugs import CreateMaskHeads
from .second_set import SECOND_SET

LOG_ENV = "INDUCTOR_FUZZ_INJECT_LOG"
SELECT_ENV = "INDUCTOR_FUZZ_INJECT"
EXCLUSIVE_ENV = "INDUCTOR_FUZZ_INJECT_EXCLUSIVE"
MATRIX_EVERY_ENV = "INDUCTOR_FUZZ_INJECT_MATRIX_EVERY"

BUGS = [
    RedeclaredLocal(),
    WrapperDeclarationMismatch(),
    UndefinedSymbol(),
    NarrowingInitializer(),
    WrongValue(),
    LoweringException(),
    OutOfBoundsWrite(),
    ClangOnlyMiscompile(),
    FlexScaleOut(),
    FlexTailDims(),
    FlexDecodeOffset(),
    FlexHalfFirstRow(),
    CreateMaskHeads(),
    *SECOND_SET,
]
SETS = ("first", "second")


def catalogue():
    return [bug.describe() for bug in BUGS]


def selected(value=None):
    """The bugs INDUCTOR_FUZZ_INJECT turns on."""
    value = os.environ.get(SELECT_ENV) if value is None else value
    if value is None or value.strip().lower() in ("", "all"):
        return list(BUGS)
    names = {part.strip() for part in value.split(",") if part.strip()}
    if names & {"none", "off", "0"}:
        return []
    unknown = names - {bug.id for bug in BUGS} - {bug.kind for bug in BUGS} - set(SETS)
    if unknown:
        sys.stderr.write(
            f"inductor_fuzz_inject: unknown bug(s) {sorted(unknown)} in {SELECT_ENV}\n"
        )
    return [bug for bug in BUGS if bug.id in names or bug.kind in names or bug.set in names]


# --------------------------------------------------------------------------------------------
# Where a firing happens, and its log

_lock = threading.Lock()
_fired_in_case = {}  # case key -> the bug that fired first in it


def case_context():
    """(phase, case fields): phase "compile" inside the worker's Api.run_compiled, "eager"
    inside its eager run, "" outside the worker (a repro script, a test)."""
    context = {"case": None, "seed": None, "index": None}
    cache_dir = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "")
    match = re.search(r"(?:^|/)case-(\d+)(?:/|$)", cache_dir)
    if match:
        context["index"] = int(match.group(1))
    context["cache_dir"] = cache_dir
    # A probe's rerun of the case with one setting put back (fuzzer/campaign/probe.h) runs in
    # CASE/probe-K/: what fires there is not what the case's own finding came from.
    if re.search(r"(?:^|/)probe-\d+(?:/|$)", cache_dir):
        context["probe"] = True
    phase = ""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_name
        if name == "run_compiled" and not phase:
            phase = "compile"
        elif name in ("run_eager", "make_inputs") and not phase:
            phase = "eager"
        elif name == "run_case" and isinstance(frame.f_locals.get("case"), dict):
            case = frame.f_locals["case"]
            provenance = case.get("provenance") or {}
            context["case"] = case.get("name")
            context["api"] = case.get("api")
            context["seed"] = provenance.get("seed", context["seed"])
            context["index"] = provenance.get("index", context["index"])
            break
        frame = frame.f_back
    return phase, context


def _log(record):
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    line = (json.dumps(record, sort_keys=True) + "\n").encode()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as error:
        # Never a finding of the case: a confined worker may not write outside its folders
        # (bench/bucket_quality.sh runs with --no-confine and refuses an empty log).
        sys.stderr.write(f"inductor_fuzz_inject: cannot log to {path}: {error}\n")
        return
    try:
        os.write(fd, line)  # one write of one line: lines of processes at once never interleave
    finally:
        os.close(fd)


def case_folder(cache_dir):
    """The case's own folder for an Inductor cache folder under it. Inductor compiles some
    graphs (a call sequence's recompile, a cpp_wrapper build) in a fresh temporary folder below
    the case's cache; the campaign's probe reruns the case in CASE/probe-K/inductor-cache (and
    what a rerun showed in CASE/probe-K/probe-J/...), run-case in OUT/probe/probe-K/...; the
    sanitizer's rerun in CASE/sanitized/... All of them are the one case."""
    match = re.match(r"(.*?/case-\d+)(?:/|$)", cache_dir)
    if match:
        return match.group(1)
    folder = re.sub(r"/inductor-cache(?:/.*)?$", "", cache_dir)
    return re.sub(r"(?:/probe(?:-\d+)?)+$", "", folder)


FIRST_BUG_FILE = ".inductor-fuzz-injected-first"


def _first_bug(folder, key, bug_id):
    """The bug that fired first in the case: kept in a file in the case's folder when it exists,
    since a crash's reruns each start a new worker process; else in this process."""
    if folder and os.path.isdir(folder):
        path = os.path.join(folder, FIRST_BUG_FILE)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            with open(path) as taken:
                return taken.read().strip() or bug_id
        with os.fdopen(fd, "w") as taking:
            taking.write(bug_id)
        return bug_id
    return _fired_in_case.setdefault(key, bug_id)


def _may_fire(bug, context):
    """Whether bug may fire in this case: it is the first to fire there, or several may."""
    folder = case_folder(context.get("cache_dir") or "")
    key = (os.getpid(), folder, context.get("case"), context.get("index"))
    exclusive = os.environ.get(EXCLUSIVE_ENV, "1") != "0"
    with _lock:
        first = _first_bug(folder, key, bug.id)
    return not exclusive or first == bug.id


def fire(bug, context, where):
    """Records a firing of bug; False when an earlier bug in the case has the case."""
    allowed = _may_fire(bug, context)
    record = {
        "bug": bug.id,
        "kind": bug.kind,
        "case": context.get("case"),
        "seed": context.get("seed"),
        "index": context.get("index"),
        "where": where,
        "pid": os.getpid(),
        "time": round(time.time(), 3),
    }
    if not allowed:
        record["suppressed"] = True
    if context.get("probe"):
        record["probe"] = True
    _log(record)
    return allowed


def reset():
    """Forgets which bug fired in which case (tests)."""
    with _lock:
        _fired_in_case.clear()


def seen_by_matrix(context):
    """Whether the compiler matrix runs on this case (always, when the campaign's K is unknown)."""
    every = os.environ.get(MATRIX_EVERY_ENV, "").strip()
    if not every:
        return True
    if not every.isdigit() or int(every) == 0:
        return False
    return context.get("index") is None or int(context["index"]) % int(every) == 0


def rewrite_source(code, unit, bugs=None):
    """code with the first matching source bug applied; unit is "kernel" or "wrapper"."""
    phase, context = case_context()
    if phase == "eager":
        return code
    for bug in selected() if bugs is None else bugs:
        if bug.where != "source":
            continue
        if bug.apis and context.get("api") and context["api"] not in bug.apis:
            continue
        if bug.needs_matrix and not seen_by_matrix(context):
            continue
        try:
            result = bug.rewrite(code, unit)
        except ValueError:
            result = None
        if result is None:
            continue
        rewritten, where = result
        if fire(bug, context, where):
            return rewritten
    return code
