"""inductor_fuzz_worker.prefix_headers on real g++ runs of Inductor's own command: the second
build of a prefix's key makes it and the builds after use it, the kernel built so runs as the
exact command's does, and a build that fails is the exact command's failure, not the prefix's."""

import ctypes
import os
import shlex
import tempfile
import unittest

import torch._inductor.cpp_builder as cpp_builder
from inductor_fuzz_worker.capture import BuildCache, Capture, CompilerVersions, compile_command
from inductor_fuzz_worker.prefix_headers import PrefixHeaders, leading_includes
from torch._inductor.exc import CppCompileError

KERNEL = """
// a kernel as Inductor writes one
#include <torch/csrc/inductor/cpp_prefix.h>

extern "C" void kernel(float* out) { out[0] = at::vec::Vectorized<float>::size() + 0.5f; }
"""


class LeadingIncludesTest(unittest.TestCase):
    def test_only_the_angle_includes_before_the_first_other_line(self):
        text = '\n// c\n#include <a.h>\n\n#include <b/c.h>\n#include "d.h"\n#include <e.h>\n'
        self.assertEqual(leading_includes(text), ["#include <a.h>", "#include <b/c.h>"])
        self.assertEqual(leading_includes("#define X 1\n#include <a.h>\n"), [])


class PrefixHeadersTest(unittest.TestCase):
    # One folder of prefixes for the class, as for a worker: the second test uses the prefix
    # the first made (each makes its own builds' folders).
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory()
        cls.folder = os.path.join(cls.scratch.name, "gcc-prefixes")
        cls.prefixes = PrefixHeaders(cls.folder, BuildCache.torch_stamp())
        cls.versions = CompilerVersions()
        cls.base = compile_command(cpp_builder, "g++")

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def build(self, name, text):
        """Inductor's command for the source `text`, run through a capture with the prefixes;
        the capture's record."""
        folder = os.path.join(self.scratch.name, name)
        os.makedirs(folder)
        source, output = os.path.join(folder, f"{name}.cpp"), os.path.join(folder, f"{name}.so")
        with open(source, "w") as file:
            file.write(text)
        argv = [source if a == "inductor_fuzz_probe.cpp" else a for a in self.base]
        argv[argv.index("-o") + 1] = output
        capture = Capture(cpp_builder, self.versions, prefixes=self.prefixes)
        with capture.installed():
            try:
                cpp_builder._run_compile_cmd(shlex.join(argv), folder)
            except CppCompileError:
                pass
        return capture.builds[0], output

    def test_a_the_second_build_makes_the_prefix_and_the_kernel_runs_the_same(self):
        first, plain = self.build("first", KERNEL)
        self.assertNotIn("precompiled_prefix", first)
        made = [name for _, _, names in os.walk(self.folder) for name in names]
        self.assertFalse([name for name in made if name.endswith(".gch")])
        second, _ = self.build("second", KERNEL)
        third, prefixed = self.build("third", KERNEL)
        for record in (second, third):
            self.assertTrue(record.get("precompiled_prefix"), record)
            self.assertEqual(record["exit_code"], 0)
            self.assertNotIn("-include", record["argv"])  # captured: Inductor's own command

        def run(library):
            out = ctypes.c_float(0)
            ctypes.CDLL(library).kernel(ctypes.byref(out))
            return out.value

        self.assertEqual(run(prefixed), run(plain))
        self.assertEqual(run(prefixed) % 1, 0.5)

    def test_b_a_failing_build_is_the_exact_commands_failure(self):
        made, _ = self.build("made", KERNEL)  # the prefix exists (test a, or made here)
        if not made.get("precompiled_prefix"):
            self.build("made-again", KERNEL)
        broken = KERNEL.replace("out[0] =", "out[0] = missing_name +")
        record, _ = self.build("broken", broken)
        self.assertEqual(record["exit_code"], 1)
        self.assertNotIn("precompiled_prefix", record)
        self.assertIn("missing_name", record["output"])
        self.assertNotIn(self.folder, record["output"])  # nothing of the prefix in what failed


if __name__ == "__main__":
    unittest.main()
