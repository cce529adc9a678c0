#!/usr/bin/env python3
"""The lines of Inductor's CPU C++ code generation that a list of cases executes, per module.

Reads worker requests (`inductor-fuzz gen --requests`, one JSON object a line) and runs each
through the worker's own run_case (eager, then torch.compile under the case's Inductor
configuration, with its builds) under coverage.py, measuring only torch/_inductor/codegen/cpp*.py
(the C++ kernels, the CPU GEMM and flex templates, their micro-kernels and the C++ wrapper).
Prints one JSON object: {"cases": N, "modules": {module: [executed, statements]}}.

usage: codegen_coverage.py REQUESTS.jsonl [--seconds-per-case S]
"""

import argparse
import json
import os
import signal
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("requests")
    parser.add_argument("--seconds-per-case", type=int, default=240)
    args = parser.parse_args()

    import coverage

    measured = coverage.Coverage(
        data_file=None, include=["*/torch/_inductor/codegen/cpp*.py"], branch=False
    )
    measured.start()
    import torch
    import torch._inductor.cpp_builder as cpp_builder
    from inductor_fuzz_worker.capture import CompilerVersions
    from inductor_fuzz_worker.cases import run_case
    from inductor_fuzz_worker.serve import Session

    session = Session(os.path.dirname(torch.__file__) + os.sep, cpp_builder, CompilerVersions())

    def give_up(*_):
        raise TimeoutError("case took too long")

    signal.signal(signal.SIGALRM, give_up)
    statuses = {}
    with open(args.requests) as lines, tempfile.TemporaryDirectory() as scratch:
        requests = [json.loads(line) for line in lines if line.strip()]
        for index, request in enumerate(requests):
            signal.alarm(args.seconds_per_case)
            try:
                result = run_case(
                    session,
                    request["case"],
                    os.path.join(scratch, f"case-{index}"),
                    request["inductor_config"],
                    request["dynamic"],
                )
                status = result.get("status", "?")
            except BaseException as error:  # noqa: BLE001 (a bench: count it and go on)
                status = type(error).__name__
            finally:
                signal.alarm(0)
            statuses[status] = statuses.get(status, 0) + 1
            print(f"case {index + 1}/{len(requests)}: {status}", file=sys.stderr, flush=True)
    measured.stop()
    modules = {}
    for path in measured.get_data().measured_files():
        _, statements, _, missing, _ = measured.analysis2(path)
        name = "torch/_inductor/codegen/" + os.path.basename(path)
        modules[name] = [len(statements) - len(missing), len(statements)]
    print(json.dumps({"cases": len(requests), "statuses": statuses, "modules": modules}))


if __name__ == "__main__":
    main()
