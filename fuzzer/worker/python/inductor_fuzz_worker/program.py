"""Running a user's own program under the capture (`inductor-fuzz capture -- python ...`).

The program runs as `python script.py ARGS` or `python -m MODULE ARGS` would run it, in this
process, with every compile Inductor runs captured and its kernels' calls recorded, as a case
is. When it ends, however it ends (an exception, sys.exit, pytest's exit code), what was
captured is written to OUT/capture-report.json for the driver to store. Every graph Inductor
compiles also gets a float64 reference of its first calls' outputs (graph_reference.py), kept
beside the recordings, so that `compare` can tell a rebuilt kernel's rounding from a miscompile.
"""

import atexit
import json
import os
import runpy
import sys
import time
import traceback

REPORT = "capture-report.json"


def _write_report(out_dir, capture, recorder, references, cache_dir, started, outcome):
    from .capture import collect_wrapper_code
    from .replay import save_references

    save_references(recorder.record_dir, references.entries)
    report = {
        "builds": capture.builds,
        "recordings": recorder.save(),
        "recording_skipped": sorted(set(recorder.skipped)),
        "float64_references": len(references.entries),
        "reference_skipped": sorted(set(references.skipped)),
        "wrappers": collect_wrapper_code(cache_dir),
        "seconds": round(time.monotonic() - started, 3),
        "outcome": outcome,
    }
    path = os.path.join(out_dir, REPORT)
    with open(path + ".tmp", "w", encoding="utf-8") as out:
        json.dump(report, out)
    os.replace(path + ".tmp", path)


def main():
    """argv: [script.py ARGS...] or [-m MODULE ARGS...]; OUT and the cache come from the
    environment the driver set (INDUCTOR_FUZZ_CAPTURE_OUT, TORCHINDUCTOR_CACHE_DIR)."""
    out_dir = os.environ["INDUCTOR_FUZZ_CAPTURE_OUT"]
    cache_dir = os.environ["TORCHINDUCTOR_CACHE_DIR"]
    args = sys.argv[1:]

    import torch._inductor.cpp_builder as cpp_builder

    from .capture import BUILD_JOURNAL, Capture, CompilerVersions
    from .graph_reference import GraphReferences
    from .kernels import KernelRecorder

    record_dir = os.path.join(out_dir, "recordings")
    capture = Capture(
        cpp_builder, CompilerVersions(), journal=os.path.join(record_dir, BUILD_JOURNAL)
    )
    recorder = KernelRecorder(record_dir)
    references = GraphReferences()
    started = time.monotonic()
    outcome = {"exit_code": 0, "exception": None}
    # atexit too: a program that calls os._exit or dies in C code leaves the journal; one that
    # calls sys.exit is seen below.
    written = []

    def finish():
        if not written:
            written.append(True)
            _write_report(out_dir, capture, recorder, references, cache_dir, started, outcome)

    atexit.register(finish)
    with capture.installed(), recorder.installed(), references.installed():
        try:
            if args[0] == "-m":
                sys.argv = args[1:]
                runpy.run_module(args[1], run_name="__main__", alter_sys=True)
            else:
                sys.argv = args
                sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))
                runpy.run_path(args[0], run_name="__main__")
        except SystemExit as exit:
            code = exit.code
            outcome["exit_code"] = code if isinstance(code, int) else (0 if code is None else 1)
        except BaseException as error:
            outcome["exit_code"] = 1
            outcome["exception"] = {
                "type": type(error).__qualname__,
                "message": str(error)[:2000],
                "traceback": traceback.format_exc()[-8000:],
            }
            traceback.print_exc()
    finish()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(outcome["exit_code"] & 0xFF if outcome["exit_code"] >= 0 else 1)
