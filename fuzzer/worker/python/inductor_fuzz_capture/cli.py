"""python -m inductor_fuzz_capture: the command line. Exit 0: the program passed (or no case
found anything); 1: the program failed or a case found something; 2: the capture could not do
what was asked (one line on stderr says what and what to do)."""

import argparse
import json
import os
import sys

from . import tool_version

EXIT_NOTHING_FOUND = 0
EXIT_FINDINGS = 1
EXIT_INPUT_ERROR = 2

USAGE_EXAMPLES = """\
examples:
  python -m inductor_fuzz_capture --out cap -- train_step.py --steps 2
  python -m inductor_fuzz_capture --out cap -- -m pytest test_attn.py -k causal
  python -m inductor_fuzz_capture --out night --cases requests.jsonl --device cuda

Bring the folder to where inductor-fuzz runs:
  inductor-fuzz check cap/sources/*.cpp --commands cap/commands.json
  inductor-fuzz matrix cap;  inductor-fuzz corpus import night --corpus fuzz-corpus
A cases file holds one run request per line, as `inductor-fuzz gen --requests` writes them.
"""


class InputError(Exception):
    """What the user gave cannot be captured: said in one line, exit 2."""


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="python -m inductor_fuzz_capture",
        description=(
            "Capture every C++ compile Inductor runs (sources, exact commands, compilers, "
            "wrappers, recorded kernel calls, float64 references) on this machine, into a "
            "folder inductor-fuzz analyses elsewhere. Runs a Python program (after --), or a "
            "file of cases through the worker's oracles (eager against compiled, the float64 "
            "reference, exceptions, crashes in a child process)."
        ),
        epilog=USAGE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", required=True, help="the folder to write (new or empty)")
    parser.add_argument(
        "--cases", help="a JSON-lines file of run requests (inductor-fuzz gen --requests)"
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        default="cpu",
        help="--cases: the device the cases run on (default cpu)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=600,
        help="seconds: the whole program, or each case (default 600)",
    )
    parser.add_argument(
        "--time",
        type=float,
        default=0,
        help="--cases: seconds after which no new case starts (default 0: every case); the "
        "folder lists those that ran",
    )
    parser.add_argument("--version", action="version", version=tool_version())
    parser.add_argument(
        "program", nargs=argparse.REMAINDER, help="-- script.py ARGS, or -- -m MODULE ARGS"
    )
    arguments = parser.parse_args(argv)
    if arguments.program and arguments.program[0] == "--":
        arguments.program = arguments.program[1:]
    return arguments


def check_torch(device):
    """torch imports and has the hook the capture wraps; the device exists."""
    try:
        import torch
        import torch._inductor.cpp_builder as cpp_builder
    except Exception as error:  # a broken install: say what, not a traceback
        raise InputError(
            f"torch cannot be imported here ({type(error).__name__}: {error}); install torch 2.6 "
            "or later in this Python"
        ) from None
    if not hasattr(cpp_builder, "_run_compile_cmd"):
        raise InputError(
            f"torch {torch.__version__} has no torch._inductor.cpp_builder._run_compile_cmd, "
            "the hook the capture wraps; use torch 2.6 or later"
        )
    if device == "cuda" and not torch.cuda.is_available():
        raise InputError(
            f"--device cuda, but torch {torch.__version__} sees no CUDA device here "
            f"(torch.version.cuda is {torch.version.cuda}); run on a machine with a GPU or "
            "use --device cpu"
        )


def main(argv=None):
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    command_line = ["python", "-m", "inductor_fuzz_capture"] + list(
        sys.argv[1:] if argv is None else argv
    )
    provenance = {
        "tool": "inductor_fuzz_capture",
        "tool_version": tool_version(),
        "command_line": " ".join(command_line),
    }
    try:
        if sys.version_info < (3, 10):
            raise InputError(f"Python {sys.version.split()[0]} is too old: use 3.10 or later")
        if arguments.cases and arguments.program:
            raise InputError("give either --cases FILE or a program after --, not both")
        if not arguments.cases and not arguments.program:
            raise InputError("give a program after -- (-- script.py ARGS) or --cases FILE")
        check_torch(arguments.device)
        if arguments.cases:
            from .case_runs import run_cases

            return run_cases(arguments, provenance, sys.stdout)
        from .program_run import run_program

        return run_program(arguments, provenance, sys.stdout)
    except InputError as error:
        print(f"inductor_fuzz_capture: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except KeyboardInterrupt:
        print("inductor_fuzz_capture: interrupted", file=sys.stderr)
        return EXIT_INPUT_ERROR


def prepare_output_folder(out_dir, ours):
    """out_dir new or empty, or holding only what a capture writes (`ours`): those entries are
    removed; anything else is not ours to overwrite."""
    import shutil

    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise InputError(f"--out {out_dir} exists and is not a folder")
    if os.path.isdir(out_dir):
        for name in sorted(os.listdir(out_dir)):
            if name not in ours and not name.startswith("."):
                raise InputError(
                    f"--out {out_dir} holds {name}, which the capture did not write; choose an "
                    "empty or new folder"
                )
        for name in ours:
            path = os.path.join(out_dir, name)
            if os.path.isdir(path):
                shutil.rmtree(path)
            elif os.path.exists(path):
                os.remove(path)
    os.makedirs(out_dir, exist_ok=True)


def write_json(path, document):
    with open(path + ".tmp", "w", encoding="utf-8") as out:
        json.dump(document, out, indent=2)
        out.write("\n")
    os.replace(path + ".tmp", path)
