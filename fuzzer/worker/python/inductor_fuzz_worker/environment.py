"""What a PyTorch bug report's environment block needs, as one JSON line: Python, the OS, the
CPU, torch and its build, the C++ compiler Inductor uses. Run as a script by a venv's python
(workflows/delivery.cpp: `python -c SOURCE`), so that it describes that venv; never imported by
the worker."""

import json
import platform
import subprocess


def _first_line_starting(path, prefix, separator):
    try:
        with open(path) as lines:
            for line in lines:
                if line.startswith(prefix):
                    return line.split(separator, 1)[1].strip().strip('"')
    except OSError:
        pass
    return None


def collect():
    env = {"python": platform.python_version(), "platform": platform.platform()}
    os_name = _first_line_starting("/etc/os-release", "PRETTY_NAME=", "=")
    if os_name is not None:
        env["os"] = os_name
    cpu = _first_line_starting("/proc/cpuinfo", "model name", ":")
    if cpu is not None:
        env["cpu"] = cpu
    import torch

    env["torch"] = torch.__version__
    env["torch_git"] = torch.version.git_version
    env["cuda_available"] = torch.cuda.is_available()
    env["cpu_capability"] = torch.backends.cpu.get_cpu_capability()
    env["threads"] = torch.get_num_threads()
    try:
        from torch._inductor.cpp_builder import get_cpp_compiler

        compiler = get_cpp_compiler()
        version = subprocess.run(
            [compiler, "--version"], capture_output=True, text=True, timeout=30
        ).stdout
        env["compiler"] = compiler + ": " + version.splitlines()[0]
    except Exception as error:  # any failure leaves the field saying so, not the report
        env["compiler"] = "unknown (" + type(error).__name__ + ")"
    return env


if __name__ == "__main__":
    print(json.dumps(collect()))
