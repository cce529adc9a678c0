"""A user's program under the capture, in a child python: the same run `inductor-fuzz capture`
makes (inductor_fuzz_worker.program), its output shown and kept in OUT/output.log."""

import json
import os
import signal
import subprocess
import sys
import time

from .cli import EXIT_FINDINGS, EXIT_NOTHING_FOUND, InputError, prepare_output_folder

# What the capture writes into OUT (capture_folder.py), and the program's log.
PROGRAM_OUTPUTS = (
    "capture.json",
    "commands.json",
    "sources",
    "wrappers",
    "recordings",
    "inductor-cache",
    "output.log",
)


def program_arguments(program):
    """[script.py ARGS] or [-m MODULE ARGS], with the script's path made absolute."""
    if program and os.path.basename(program[0]).startswith("python"):
        program = program[1:]  # `-- python script.py` reads as `-- script.py`
    if not program or (program[0] == "-m" and len(program) < 2):
        raise InputError("give a script (-- script.py ARGS) or a module (-- -m MODULE ARGS)")
    if program[0].startswith("-") and program[0] != "-m":
        raise InputError(f"python option {program[0]} is not supported: give a script or -m MODULE")
    if program[0] != "-m":
        if not os.path.isfile(program[0]):
            raise InputError(f"{program[0]} is not a file: give the Python script to run")
        return [os.path.abspath(program[0])] + list(program[1:])
    return list(program)


def package_root():
    import inductor_fuzz_worker

    return os.path.dirname(os.path.dirname(os.path.abspath(inductor_fuzz_worker.__file__)))


def run_program(arguments, provenance, out):
    program = program_arguments(arguments.program)
    out_dir = os.path.abspath(arguments.out)
    prepare_output_folder(out_dir, PROGRAM_OUTPUTS)
    cache_dir = os.path.join(out_dir, "inductor-cache")
    os.makedirs(cache_dir)
    environment = dict(os.environ)
    existing = environment.get("PYTHONPATH")
    environment.update(
        {
            "PYTHONPATH": package_root() + (os.pathsep + existing if existing else ""),
            "INDUCTOR_FUZZ_CAPTURE_OUT": out_dir,
            "INDUCTOR_FUZZ_CAPTURE_PROVENANCE": json.dumps(provenance),
            "TORCHINDUCTOR_CACHE_DIR": cache_dir,
            "TORCHINDUCTOR_COMPILE_THREADS": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    argv = [sys.executable, "-c", "from inductor_fuzz_worker.program import main; main()"]
    out.write(
        f"capture: running {' '.join(program)} with {sys.executable}; Inductor's cache "
        f"in {cache_dir}\n"
    )
    out.flush()
    started = time.monotonic()
    child = subprocess.Popen(
        argv + program,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=environment,
        start_new_session=True,
    )
    timed_out = False
    with open(os.path.join(out_dir, "output.log"), "wb") as log:
        deadline = started + arguments.timeout
        import selectors

        with selectors.DefaultSelector() as selector:
            selector.register(child.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    os.killpg(child.pid, signal.SIGKILL)
                    break
                if not selector.select(timeout=min(left, 1.0)):
                    continue
                chunk = os.read(child.stdout.fileno(), 65536)
                if not chunk:
                    break
                log.write(chunk)
                out.write(
                    "".join(
                        "  | " + line + "\n"
                        for line in chunk.decode("utf-8", "replace").splitlines()
                    )
                )
                out.flush()
    code = child.wait()
    seconds = time.monotonic() - started
    ended = describe_exit(code)
    capture_file = os.path.join(out_dir, "capture.json")
    if not os.path.exists(capture_file):
        raise InputError(
            f"{' '.join(program)} "
            + (
                f"did not finish in {arguments.timeout:g} s (raise --timeout)"
                if timed_out
                else "ended"
            )
            + f" before the capture could write what it saw ({ended}); see {out_dir}/output.log"
        )
    with open(capture_file, encoding="utf-8") as stored_file:
        stored = json.load(stored_file)
    with open(os.path.join(out_dir, "commands.json"), encoding="utf-8") as commands_file:
        builds = len(json.load(commands_file)["commands"])
    out.write(
        f"capture: the program {'timed out' if timed_out else 'ended with ' + ended}; captured "
        f"{builds} compile command(s), {len(stored.get('recordings', []))} recorded kernel "
        f"module(s), {stored.get('float64_references', 0)} graph output(s) with a float64 "
        f"reference; {seconds:.1f} s\n"
    )
    for why in stored.get("reference_skipped", []):
        out.write(f"  no float64 reference: {why}\n")
    out.write(f"  wrote {out_dir} (inductor-fuzz check, matrix and compare take the folder)\n")
    return EXIT_NOTHING_FOUND if code == 0 and not timed_out else EXIT_FINDINGS


def describe_exit(code):
    """As the C++ side says it (support::ExitStatus::Describe)."""
    if code >= 0:
        return f"exit code {code}"
    number = -code
    try:
        name = signal.strsignal(number)
    except ValueError:
        name = "unknown signal"
    return f"killed by signal {number} ({name})"
