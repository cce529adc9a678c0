"""The second tier (scripts/test --full): a second worker process gets its warm-up's checks of the
CPU (Inductor's ten ISA builds) from the shared builds the first one made."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

WARM_UP = """
import json, sys, torch._inductor.cpp_builder as cpp_builder
from inductor_fuzz_worker.capture import CompilerVersions
from inductor_fuzz_worker.serve import Session, warm_up
session = Session("", cpp_builder, CompilerVersions())
builds = warm_up(sys.argv[1], session, sys.argv[2])
print(json.dumps([bool(b.get("from_build_cache")) for b in builds if b["exit_code"] == 0]))
"""


class WarmUpTest(unittest.TestCase):
    def test_a_second_worker_process_gets_its_checks_of_the_cpu_from_the_shared_builds(self):
        with tempfile.TemporaryDirectory() as scratch:
            shared = os.path.join(scratch, "shared-builds")

            def warm_up_in_a_new_process(name):
                done = subprocess.run(
                    [sys.executable, "-c", WARM_UP, os.path.join(scratch, name), shared],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                return json.loads(done.stdout.splitlines()[-1])

            first = warm_up_in_a_new_process("first")
            self.assertTrue(first)
            self.assertFalse(any(first))
            self.assertEqual(warm_up_in_a_new_process("second"), [True] * len(first))


if __name__ == "__main__":
    unittest.main()
