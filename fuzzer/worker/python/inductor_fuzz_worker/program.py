"""Running a user's own program under the capture (`inductor-fuzz capture -- python ...`).

The program runs as `python script.py ARGS` or `python -m MODULE ARGS` would run it, in this
process, with every compile Inductor runs captured and its kernels' calls recorded, as a case
is. When it ends, however it ends (an exception, sys.exit, pytest's exit code), what was
captured is written into OUT as a capture folder (capture_folder.py). Every graph Inductor
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


def _write_folder(out_dir, capture, recorder, references, cache_dir, started, outcome, program):
    from .capture import collect_wrapper_code
    from .capture_folder import machine_provenance, write_capture
    from .replay import save_references

    save_references(recorder.record_dir, references.entries)
    seconds = round(time.monotonic() - started, 3)
    report = {
        "builds": capture.builds,
        "recordings": recorder.save(),
        "recording_skipped": sorted(set(recorder.skipped)),
        "float64_references": len(references.entries),
        "reference_skipped": sorted(set(references.skipped)),
        "wrappers": collect_wrapper_code(cache_dir),
        "seconds": seconds,
        "outcome": outcome,
    }
    # Who ran the capture (the C++ tool or the portable package) says so in the environment.
    provenance = json.loads(os.environ.get("INDUCTOR_FUZZ_CAPTURE_PROVENANCE") or "{}")
    provenance.update(machine_provenance(cache_dir))
    provenance["wall_seconds"] = seconds
    code = outcome["exit_code"]
    write_capture(
        out_dir, report, program, f"exit code {code & 0xFF if code >= 0 else 1}", provenance
    )


def main():
    """argv: [script.py ARGS...] or [-m MODULE ARGS...]; OUT and the cache come from the
    environment the driver set (INDUCTOR_FUZZ_CAPTURE_OUT, TORCHINDUCTOR_CACHE_DIR)."""
    out_dir = os.environ["INDUCTOR_FUZZ_CAPTURE_OUT"]
    cache_dir = os.environ["TORCHINDUCTOR_CACHE_DIR"]
    args = sys.argv[1:]
    program = list(args)

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
            _write_folder(
                out_dir, capture, recorder, references, cache_dir, started, outcome, program
            )

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
