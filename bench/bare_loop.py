#!/usr/bin/env python3
"""The bare loop bench/pipeline_overhead.sh measures `inductor-fuzz fuzz` against.

One process runs every case of a `gen --python` file (the repro scripts of N cases, separated
by `# ----` lines): for each, a fresh Inductor cache folder and cleared in-memory caches, the
case's complete Inductor configuration and torch.compile(dynamic=...) argument exactly as the
tool emitted them, then eager and torch.compile of the case's API, as the worker runs them
(fuzzer/worker/python/inductor_fuzz_worker/cases.py run_case), and nothing else: no capture of
compile commands or sources, no kernel call recording, no wrapper collection, no result JSON.
Eager vs compiled comparison (the worker's oracle) only with --compare.

It uses the worker package's own functions to define the case (oracles.build_namespace,
oracles.Api), to give it fresh Inductor state (cases.fresh_inductor_state) and to run
Inductor's one-time ISA probes once per process before the first case (serve.warm_up), from
the source tree, so that both sides run the same case code.

Some cases crash the process (a torch bug the fuzzer reports as a `crash` finding; fuzz then
starts a fresh worker). So the loop runs in a child process of this script, and when a case
kills it, a new child (a new torch import, as fuzz's new worker) goes on with the next case.
The parent imports nothing but the standard library.

Usage: .venv/bin/python bench/bare_loop.py CASES.py --scratch DIR [--compare]
Prints one line per case and the total to stdout; exit 0 unless the input is unusable.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fuzzer", "worker", "python"))

SEPARATOR = "\n# ----\n"  # between the scripts of `inductor-fuzz gen --python`
MAIN = "\ndef main():"  # where a repro script's case and settings end


def split_scripts(path):
    with open(path, encoding="utf-8") as scripts:
        return [script for script in scripts.read().split(SEPARATOR) if script.strip()]


def load_cases(path):
    """(name, case, inductor_config, dynamic) of each repro script in a `gen --python` file."""
    cases = []
    for number, script in enumerate(split_scripts(path)):
        # Only the script's top half: its case, sources and settings (the rest is main() and
        # the oracle code, which this loop takes from the package instead).
        head = script.split(MAIN, 1)[0]
        namespace = {"__name__": "inductor_fuzz_bare_loop_case"}
        exec(compile(head, f"{path}#{number}", "exec"), namespace)
        case = namespace["CASE"]
        cases.append((case["name"], case, namespace["INDUCTOR_CONFIG"], namespace["DYNAMIC"]))
    return cases


def run(case, cache_dir, inductor_config, dynamic, compare):
    """The worker's run_case without capture, recording or result bookkeeping: the status and
    the seconds of eager and of torch.compile (compile and first run)."""
    from inductor_fuzz_worker.cases import fresh_inductor_state
    from inductor_fuzz_worker.oracles import Api, build_namespace

    expected = (case.get("expect") or {}).get("raises")
    seconds = {"eager": 0.0, "compiled": 0.0}
    started = time.monotonic()
    try:
        api = Api(case, build_namespace(case))
    except Exception as error:
        return f"define failed: {type(error).__name__}", seconds
    with fresh_inductor_state(cache_dir):
        eager = None
        try:
            api.make_inputs()
            eager = api.run_eager()
        except Exception as error:
            if not expected:  # the worker stops here too: an invalid case
                seconds["eager"] = time.monotonic() - started
                return f"eager raised {type(error).__name__}", seconds
        seconds["eager"] = time.monotonic() - started
        started = time.monotonic()
        try:
            compiled = api.run_compiled(inductor_config, dynamic)
        except Exception as error:
            seconds["compiled"] = time.monotonic() - started
            return f"compile raised {type(error).__name__}", seconds
        seconds["compiled"] = time.monotonic() - started
    if compare and eager is not None:
        started = time.monotonic()
        mismatches, _ = api.compare(eager, compiled)
        seconds["compare"] = time.monotonic() - started
        if mismatches:
            return "mismatch", seconds
    return "ran", seconds


def serve(args):
    """The child: runs the cases from --first on, one line each, in this one process."""
    started = time.monotonic()
    import torch  # noqa: F401  (timed, as the worker's import is timed in fuzz)
    from inductor_fuzz_worker.serve import warm_up

    cases = load_cases(args.cases)
    # Inductor's one-time ISA probes, as the worker runs them before its first case, into a
    # folder every process of the loop shares (as fuzz's workers share theirs): a new process
    # after a crash does not compile them again (8 s each), as a new worker does not.
    warm_up(args.scratch, session=None)  # no capture: the shared builds are the worker's
    print(
        f"bare loop process {os.getpid()}: torch {torch.__version__}, cases {args.first}.."
        f"{len(cases) - 1}, import, load and warm-up {time.monotonic() - started:.1f} s",
        flush=True,
    )
    for index in range(args.first, len(cases)):
        name, case, inductor_config, dynamic = cases[index]
        print(f"start {index}", flush=True)
        case_started = time.monotonic()
        cache_dir = os.path.join(args.scratch, f"case-{index}", "inductor-cache")
        status, seconds = run(case, cache_dir, inductor_config, dynamic, args.compare)
        shutil.rmtree(os.path.dirname(cache_dir), ignore_errors=True)  # as fuzz removes its case
        extra = f" compare {seconds['compare']:.2f}" if "compare" in seconds else ""
        print(
            f"case {index:3d} {name:<10} {case['api']:<18} {time.monotonic() - case_started:7.2f} s"
            f"  (eager {seconds['eager']:.2f}, compiled {seconds['compiled']:.2f}{extra})"
            f"  {status}",
            flush=True,
        )
    return 0


def supervise(args):
    """The parent: runs the loop in a child, and a new child after the case that killed one."""
    started = time.monotonic()
    count = len(split_scripts(args.cases))
    first, restarts = 0, 0
    while first < count:
        argv = [
            sys.executable,
            os.path.abspath(__file__),
            args.cases,
            "--scratch",
            args.scratch,
            "--first",
            str(first),
        ] + (["--compare"] if args.compare else [])
        child = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        current = None
        for line in child.stdout:
            if line.startswith("start "):
                current = int(line.split()[1])
                continue
            sys.stdout.write(line)
            sys.stdout.flush()
            if line.startswith("case "):
                current = None
        code = child.wait()
        if current is None:  # every case ran, or the process failed before a case
            if code != 0:
                print(f"bare loop: the loop process failed (exit {code})", flush=True)
                return 2
            break
        print(
            f"case {current:3d} crashed the process (exit {code}); a new process goes on",
            flush=True,
        )
        shutil.rmtree(os.path.join(args.scratch, f"case-{current}"), ignore_errors=True)
        first, restarts = current + 1, restarts + 1
    print(
        f"bare loop total: {time.monotonic() - started:.1f} s, {count} case(s), "
        f"{restarts} process restart(s)",
        flush=True,
    )
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("cases", help="output of `inductor-fuzz gen --python`")
    parser.add_argument("--scratch", required=True, help="where the per-case caches go")
    parser.add_argument("--compare", action="store_true", help="also compare eager and compiled")
    parser.add_argument("--first", type=int, help=argparse.SUPPRESS)  # the child: from this case
    args = parser.parse_args()
    if args.first is None:
        return supervise(args)
    code = serve(args)
    sys.stdout.flush()
    os._exit(code)  # as the worker ends: torch's atexit hooks make a full shutdown slow


if __name__ == "__main__":
    sys.exit(main())
