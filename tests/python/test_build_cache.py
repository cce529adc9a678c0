"""inductor_fuzz_worker.capture.BuildCache on real Inductor builds: a case run again in another
Inductor folder gets every compiler output from the cache and still passes, with every build
captured; a case whose kernel differs runs the compiler; a failing build is never stored. (A
second worker process's warm-up from the cache: full_tier_warm_up.py.)"""

import os
import re
import tempfile
import unittest

import torch
import torch._inductor.cpp_builder as cpp_builder
from inductor_fuzz_worker.capture import BuildCache, Capture, CompilerVersions
from inductor_fuzz_worker.cases import run_case
from inductor_fuzz_worker.serve import Session
from test_value_judge import index_case, program
from torch._inductor.exc import CppCompileError


class BuildCacheTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # As a worker does when it starts: Inductor's checks of the CPU are built once, in
        # Inductor's own cache, not inside the first case.
        from torch._inductor.cpu_vec_isa import pick_vec_isa

        pick_vec_isa()

    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.shared = os.path.join(self.scratch.name, "shared-builds")
        self.session = Session(
            os.path.dirname(torch.__file__) + os.sep, cpp_builder, CompilerVersions()
        )

    def tearDown(self):
        self.scratch.cleanup()

    def run_program(self, source, folder):
        return run_case(
            self.session,
            index_case(source),
            os.path.join(self.scratch.name, folder),
            # As the driver sends it (corpus/knobs.cpp's FixedInductorConfig): with the caches
            # off, each compile writes under a fresh temporary folder of the case's.
            {"cpp.threads": 1, "force_disable_caches": True, "fx_graph_cache": False},
            False,
            build_cache=self.shared,
        )

    def test_the_same_kernel_in_another_case_folder_comes_from_the_cache(self):
        source = program(["return (q_idx * 3 + kv_idx) % 7"])
        first = self.run_program(source, "case-1")
        self.assertEqual(first["status"], "pass", first)
        self.assertTrue(first["builds"])
        self.assertFalse(any(b.get("from_build_cache") for b in first["builds"]))

        again = self.run_program(source, "case-2")
        self.assertEqual(again["status"], "pass", again)
        # Captured as before, with its own folder in the command, but no compiler ran. (The
        # first case also built Inductor's once-per-process checks of the CPU.)
        self.assertTrue(again["builds"])
        self.assertTrue(all(b.get("from_build_cache") for b in again["builds"]), again["builds"])

        def shape(build, folder):  # the command with the case's folders as placeholders
            return re.sub(
                rf"{re.escape(self.scratch.name)}/{folder}(/tmp\w+)?",
                "CASE",
                " ".join(build["argv"]),
            )

        built_first = [shape(build, "case-1") for build in first["builds"]]
        for build in again["builds"]:
            self.assertIn("case-2", " ".join(build["argv"]))
            self.assertIn(shape(build, "case-2"), built_first)
            self.assertTrue(build["sources"])

        other = self.run_program(program(["return (q_idx * 5 + kv_idx) % 7"]), "case-3")
        self.assertEqual(other["status"], "pass", other)
        self.assertFalse(any(b.get("from_build_cache") for b in other["builds"]))

    def test_a_failing_build_is_not_stored(self):
        folder = os.path.join(self.scratch.name, "broken")
        os.makedirs(folder)
        source = os.path.join(folder, "broken.cpp")
        with open(source, "w") as text:
            text.write("int f() { return missing; }\n")
        command = f"g++ -shared -fPIC {source} -o {os.path.join(folder, 'broken.so')}"
        capture = Capture(
            cpp_builder, CompilerVersions(), build_cache=BuildCache(self.shared, folder)
        )
        for _ in range(2):
            with capture.installed(), self.assertRaises(CppCompileError):
                cpp_builder._run_compile_cmd(command, folder)
        self.assertEqual([b["exit_code"] for b in capture.builds], [1, 1])
        self.assertFalse(os.path.exists(self.shared) and os.listdir(self.shared))


if __name__ == "__main__":
    unittest.main()
