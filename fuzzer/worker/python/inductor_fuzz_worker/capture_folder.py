"""The capture folder: the one writer of what `inductor-fuzz capture` and the portable capture
(`python -m inductor_fuzz_capture`) store, on whichever machine they run.

    capture.json      what ran, how it ended, its provenance (this machine's Python, torch,
                      CUDA, GPU, host compiler and the roots its paths start with)
    commands.json     every compile command, as corpus/run_record.h reads it (format 2)
    sources/ wrappers/ recordings/   the TUs, the Python wrappers, the recorded kernel calls

Every path inside is relative to the folder; the absolute paths a command names (the other
machine's torch, its Inductor cache) stay as they were and `paths` in capture.json says which
roots they start with, so that the reading side maps them and never follows them.
"""

import json
import os
import platform
import shutil
import subprocess
import sys

CAPTURE_FORMAT_VERSION = 1
COMMANDS_FORMAT_VERSION = 2  # corpus::kRunRecordFormatVersion
CAPTURE_FILE = "capture.json"
COMMANDS_FILE = "commands.json"


def safe_file_name(path, index):
    """NN-name: the name a stored copy of `path` gets (corpus/run_record.cpp reads these)."""
    # Byte by byte, as the C++ writer of run records does (corpus/run_record.cpp).
    name = "".join(
        chr(byte) if chr(byte).isascii() and (chr(byte).isalnum() or chr(byte) in "._-") else "_"
        for byte in os.path.basename(path).encode("utf-8")
    )
    return f"{index:02}-{name}"


def write_atomically(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(path + ".tmp", path)


def _output_of(argv):
    for i, argument in enumerate(argv[:-1]):
        if argument == "-o":
            return argv[i + 1]
    return ""


def _relative_inside(path, folder):
    """path relative to folder when it is inside it, else None."""
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(folder))
    return None if relative.startswith("..") or os.path.isabs(relative) else relative


def write_builds(out_dir, report):
    """Stores `report`'s builds, wrappers and recordings into out_dir (sources/, wrappers/,
    commands.json) and returns the report without its builds, its paths relative to out_dir."""
    report = dict(report)
    recordings = [dict(recording) for recording in report.get("recordings", [])]
    commands = []
    index = 0
    for build in report.pop("builds", []):
        argv = list(build.get("argv", []))
        sources = []
        for source in build.get("sources", []):
            stored = os.path.join(
                "sources", safe_file_name(source.get("path", "source.cpp"), index)
            )
            index += 1
            write_atomically(os.path.join(out_dir, stored), source.get("text", ""))
            sources.append({"captured_path": source.get("path", ""), "stored": stored})
        compiler = build.get("compiler") or {}
        command = {
            "argv": argv,
            "cwd": build.get("cwd") or "",
            "compiler": {"path": compiler.get("path", ""), "version": compiler.get("version", "")},
            "exit_code": build.get("exit_code", 0),
            "seconds": build.get("seconds", 0.0),
            "output": build.get("output", ""),
            "sources": sources,
        }
        output = _output_of(argv)
        for recording in recordings:
            if output and output == recording.get("module", ""):
                relative = _relative_inside(recording.get("file", ""), out_dir)
                if relative is not None:
                    command["recording"] = relative
                    command["entry"] = recording.get("entry", "kernel")
        commands.append(command)
    for recording in recordings:
        relative = _relative_inside(recording.get("file", ""), out_dir)
        if relative is not None:
            recording["file"] = relative
    report["recordings"] = recordings
    if "wrappers" in report:
        stored_wrappers = []
        for wrapper_index, wrapper in enumerate(report["wrappers"]):
            stored = os.path.join(
                "wrappers", safe_file_name(wrapper.get("path", "wrapper.py"), wrapper_index)
            )
            write_atomically(os.path.join(out_dir, stored), wrapper.get("text", ""))
            stored_wrappers.append(stored)
        report["wrappers"] = stored_wrappers
    document = {"format_version": COMMANDS_FORMAT_VERSION, "commands": commands}
    write_atomically(os.path.join(out_dir, COMMANDS_FILE), json.dumps(document, indent=2) + "\n")
    report["commands"] = COMMANDS_FILE
    return report


def _first_line(argv):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.splitlines()[0].strip() if out.strip() else ""


def machine_provenance(cache_dir):
    """This machine as a capture needs it said: Python, torch, CUDA, the GPU, the host compiler
    Inductor uses, and the roots of the absolute paths its commands name."""
    import sysconfig

    import torch

    provenance = {
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "torch": torch.__version__,
        "torch_git": getattr(torch.version, "git_version", None),
        "cuda": getattr(torch.version, "cuda", None),
        "gpu": None,
    }
    try:
        if torch.cuda.is_available():
            provenance["gpu"] = torch.cuda.get_device_name(0)
    except Exception as error:  # a driver that fails to answer is said, not fatal
        provenance["gpu"] = f"unknown ({type(error).__name__})"
    try:
        from torch._inductor.cpp_builder import get_cpp_compiler

        compiler = get_cpp_compiler()
        provenance["host_compiler"] = {
            "path": shutil.which(compiler) or compiler,
            "version": _first_line([compiler, "--version"]),
        }
    except Exception as error:
        provenance["host_compiler"] = {"path": "", "version": f"unknown ({type(error).__name__})"}
    nvcc = shutil.which("nvcc") or (
        os.path.join(os.environ["CUDA_HOME"], "bin", "nvcc") if os.environ.get("CUDA_HOME") else ""
    )
    if nvcc and os.path.exists(nvcc):
        lines = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
        release = [line for line in lines.splitlines() if "release" in line]
        provenance["nvcc"] = {"path": nvcc, "version": (release or [""])[0].strip()}
    try:
        from torch.utils.cpp_extension import CUDA_HOME
    except Exception:  # a CPU-only torch: no CUDA home to map
        CUDA_HOME = None
    provenance["paths"] = {
        "cuda_home": os.path.abspath(CUDA_HOME) if CUDA_HOME else "",
        "torch": os.path.dirname(os.path.abspath(torch.__file__)),
        "python_include": sysconfig.get_paths().get("include", ""),
        "prefix": sys.prefix,
        "inductor_cache": os.path.abspath(cache_dir),
    }
    return provenance


def write_capture(out_dir, report, program, exit_description, provenance):
    """The whole folder: sources, wrappers and commands.json from `report` (what the capture
    saw), then capture.json; returns capture.json's content."""
    stored = write_builds(out_dir, report)
    stored["format_version"] = CAPTURE_FORMAT_VERSION
    stored["program"] = list(program)
    stored["exit"] = exit_description
    stored["provenance"] = provenance
    write_atomically(os.path.join(out_dir, CAPTURE_FILE), json.dumps(stored, indent=2) + "\n")
    return stored
