"""The package's modules that the C++ side runs as scripts in a venv's python (`python -c
SOURCE ARGS...`, their source taken from the package compiled into the binary): environment.py
(delivery's environment block) and first_call.py (a recording's first call, dumped for a
kernel program). Run here the same way, from their source."""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

import inductor_fuzz_worker

PACKAGE = pathlib.Path(inductor_fuzz_worker.__file__).parent


def run_source(module, *arguments):
    source = (PACKAGE / f"{module}.py").read_text()
    done = subprocess.run(
        [sys.executable, "-c", source, *arguments], capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        raise AssertionError(f"{module}.py exited {done.returncode}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


class RunAsScriptsTest(unittest.TestCase):
    def test_environment_names_python_torch_and_the_compiler(self):
        import torch

        env = run_source("environment")
        self.assertEqual(env["torch"], torch.__version__)
        self.assertEqual(env["python"], ".".join(map(str, sys.version_info[:3])))
        for key in ("platform", "cpu_capability", "threads", "compiler", "torch_git"):
            self.assertIn(key, env)
        self.assertFalse(env["compiler"].startswith("unknown"), env["compiler"])

    def test_first_call_dumps_storages_and_arguments(self):
        import torch

        recording = {
            "entry": "kernel",
            "calls": [
                {
                    "before": [
                        torch.arange(4, dtype=torch.float32),
                        torch.ones(3, dtype=torch.int64),
                    ],
                    "args": [
                        {"kind": "tensor", "dtype": "float32", "storage": 0},
                        {"kind": "tensor", "dtype": "int64", "storage": 1},
                        {"kind": "int", "value": 7},
                    ],
                }
            ],
        }
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "recording.pt")
            torch.save(recording, path)
            dumped = run_source("first_call", path, folder)
            self.assertEqual(dumped["entry"], "kernel")
            self.assertEqual(dumped["storages"], 2)
            self.assertEqual([a.get("itemsize") for a in dumped["args"]], [4, 8, None])
            with open(os.path.join(folder, "storage-0.bin"), "rb") as first:
                self.assertEqual(
                    first.read(), torch.arange(4, dtype=torch.float32).numpy().tobytes()
                )
            self.assertEqual(os.path.getsize(os.path.join(folder, "storage-1.bin")), 24)


if __name__ == "__main__":
    unittest.main()
