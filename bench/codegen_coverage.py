#!/usr/bin/env python3
"""The lines of Inductor's CPU C++ code generation that a list of cases executes, per module.

Reads worker requests (`inductor-fuzz gen --requests`, one JSON object a line) and runs each
through the worker's own run_case (eager, then torch.compile under the case's Inductor
configuration, with its builds) under coverage.py, measuring only torch/_inductor/codegen/cpp*.py
(the C++ kernels, the CPU GEMM and flex templates, their micro-kernels and the C++ wrapper).
Each case runs in a process of its own (a case may crash torch, as the worker's would), its
coverage data in DATA.INDEX; then the data are combined. Prints one JSON object: {"cases": N,
"statuses": {...}, "modules": {module: [executed, statements]}}.

usage: codegen_coverage.py REQUESTS.jsonl DATA [--seconds-per-case S]
"""

import argparse
import json
import os
import signal
import sys
import tempfile

INCLUDE = ["*/torch/_inductor/codegen/cpp*.py"]


def run_one(requests_path, index, data_file, seconds):
    """Runs request `index` under coverage, writing DATA_FILE; prints its status."""
    import coverage

    measured = coverage.Coverage(data_file=data_file, include=INCLUDE)
    measured.start()
    import torch
    import torch._inductor.cpp_builder as cpp_builder
    from inductor_fuzz_worker.capture import CompilerVersions
    from inductor_fuzz_worker.cases import run_case
    from inductor_fuzz_worker.serve import Session

    session = Session(os.path.dirname(torch.__file__) + os.sep, cpp_builder, CompilerVersions())

    def give_up(*_):
        raise TimeoutError("case took too long")

    with open(requests_path) as lines:
        request = json.loads([line for line in lines if line.strip()][index])
    signal.signal(signal.SIGALRM, give_up)
    signal.alarm(seconds)
    with tempfile.TemporaryDirectory() as scratch:
        try:
            result = run_case(
                session, request["case"], scratch, request["inductor_config"], request["dynamic"]
            )
            status = result.get("status", "?")
        except BaseException as error:  # noqa: BLE001 (a bench: count it and go on)
            status = type(error).__name__
        finally:
            signal.alarm(0)
    measured.stop()
    measured.save()
    print(status)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("requests")
    parser.add_argument("data")
    parser.add_argument("--seconds-per-case", type=int, default=240)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        run_one(args.requests, args.one, f"{args.data}.{args.one}", args.seconds_per_case)
        return
    import subprocess

    import coverage

    with open(args.requests) as lines:
        count = sum(1 for line in lines if line.strip())
    statuses = {}
    for index in range(count):
        done = subprocess.run(
            [sys.executable, __file__, args.requests, args.data, "--one", str(index)],
            capture_output=True,
            text=True,
            timeout=args.seconds_per_case + 120,
        )
        lines = done.stdout.split()
        status = lines[-1] if done.returncode == 0 and lines else f"died({done.returncode})"
        statuses[status] = statuses.get(status, 0) + 1
        print(f"case {index + 1}/{count}: {status}", file=sys.stderr, flush=True)
    combined = coverage.Coverage(data_file=args.data, include=INCLUDE)
    parts = [f"{args.data}.{i}" for i in range(count) if os.path.exists(f"{args.data}.{i}")]
    combined.combine(parts, keep=False)
    modules = {}
    for path in combined.get_data().measured_files():
        _, statements, _, missing, _ = combined.analysis2(path)
        name = "torch/_inductor/codegen/" + os.path.basename(path)
        modules[name] = [len(statements) - len(missing), len(statements)]
    print(json.dumps({"cases": count, "statuses": statuses, "modules": modules}))


if __name__ == "__main__":
    main()
