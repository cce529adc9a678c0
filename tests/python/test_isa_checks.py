"""isa_checks.remembered: Inductor's verdict on a vector ISA, asked once per machine and then
read back, so that a new worker process builds and dlopens nothing for it.

Runs one real dry build of Inductor's ISA check (a few seconds).
"""

import os
import tempfile
import unittest

import torch
from inductor_fuzz_worker import isa_checks


def built_files(folder):
    return [name for _, _, names in os.walk(folder) for name in names if name.endswith(".so")]


@unittest.skipUnless(torch.backends.cpu.get_cpu_capability() != "NO AVX", "an x86 vector host")
class RememberedIsaChecksTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory(prefix="isa-checks-")
        self.memo = os.path.join(self.scratch.name, "builds")
        os.makedirs(self.memo)
        self.saved = os.environ.get("TORCHINDUCTOR_CACHE_DIR")

    def tearDown(self):
        if self.saved is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = self.saved
        self.scratch.cleanup()

    def check(self, cache_name):
        from torch._inductor.cpu_vec_isa import VecAVX2, VecISA

        cache = os.path.join(self.scratch.name, cache_name)
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
        with isa_checks.remembered(self.memo):
            verdict = VecAVX2().check_build(VecISA._avx_code)
        return verdict, built_files(cache)

    def test_the_second_process_reads_the_verdict_and_builds_nothing(self):
        from torch._inductor.cpu_vec_isa import VecAVX2, VecISA

        first, first_builds = self.check("first")
        self.assertEqual(len(first_builds), 1)
        memo = [name for name in os.listdir(self.memo) if name.startswith(isa_checks.PREFIX)]
        self.assertEqual(len(memo), 1)
        again, again_builds = self.check("second")
        self.assertEqual(again, first)
        self.assertEqual(again_builds, [])
        # Inductor's own answer, outside the memo, is the same.
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(self.scratch.name, "plain")
        self.assertEqual(VecAVX2().check_build(VecISA._avx_code), first)

    def test_another_capability_or_a_damaged_verdict_is_asked_again(self):
        self.check("first")
        (name,) = os.listdir(self.memo)
        with open(os.path.join(self.memo, name), "w", encoding="utf-8") as stream:
            stream.write("garbage")
        verdict, builds = self.check("damaged")
        self.assertEqual(len(builds), 1)
        with open(os.path.join(self.memo, name), encoding="utf-8") as stream:
            self.assertEqual(stream.read(), "ok" if verdict else "unsupported")
        os.environ["ATEN_CPU_CAPABILITY"] = "default"
        try:
            _, builds = self.check("other-capability")
        finally:
            os.environ.pop("ATEN_CPU_CAPABILITY")
        self.assertEqual(len(builds), 1)
        self.assertEqual(len(os.listdir(self.memo)), 2)

    def test_the_original_check_is_back_after_the_warm_up(self):
        from torch._inductor.cpu_vec_isa import VecISA

        before = VecISA.check_build
        with isa_checks.remembered(self.memo):
            self.assertIsNot(VecISA.check_build, before)
        self.assertIs(VecISA.check_build, before)


if __name__ == "__main__":
    unittest.main()
