"""inductor_fuzz_worker.surface on the real Inductor: the cells one compile reaches, and the
release's universe as eager and Inductor's codegen report it.

One small torch.compile (an int16 shift and abs, a float sin over 33 lanes): seconds; the
universe's probe (codegen only, no C++ compile): about half a minute.
"""

import json
import os
import tempfile
import unittest

import torch
from inductor_fuzz_worker import cases, surface
from torch._inductor.codegen import cpp
from torch._inductor.codegen.cpp_utils import CppCSEVariable

ORIGINAL_UPDATE = CppCSEVariable.update_on_args
ORIGINAL_VEC_LOAD = cpp.CppVecKernel.__dict__["load"]


class SurfaceRecorderTest(unittest.TestCase):
    def test_cells_are_the_overrides_inductor_emitted_by_dtype_and_path(self):
        def program(q, kv):
            x = (q * 37 + kv).to(torch.int16)
            return torch.abs(x) + (x >> 3), torch.sin(kv.to(torch.float32) * 0.5)

        q, kv = torch.arange(5).view(-1, 1), torch.arange(33).view(1, -1)
        recorder = surface.SurfaceRecorder()
        with tempfile.TemporaryDirectory() as cache, cases.fresh_inductor_state(cache):
            with recorder.installed():
                compiled = torch.compile(program)(q, kv)
        eager = program(q, kv)
        torch.testing.assert_close(compiled[0], eager[0])
        cells = {tuple(cell) for cell in recorder.cells()}
        ops = {(op, dtype) for op, dtype, _ in cells}
        self.assertIn(("abs", "int16"), ops)
        self.assertIn(("bitwise_right_shift", "int16"), ops)
        self.assertIn(("sin", "float32"), ops)
        # The float kernel over 33 lanes has a vector body and a tail (or a scalar one).
        sin_paths = {path for op, dtype, path in cells if (op, dtype) == ("sin", "float32")}
        self.assertIn("vector", sin_paths)
        self.assertTrue(sin_paths & {"vector_tail", "scalar"}, sin_paths)
        self.assertIn(("to_dtype->float32", "int64", "cast"), cells)
        # Restored: Inductor's own hook and kernel methods are back after installed().
        self.assertIs(CppCSEVariable.update_on_args, ORIGINAL_UPDATE)
        self.assertIs(cpp.CppVecKernel.__dict__["load"], ORIGINAL_VEC_LOAD)

    def test_universe_asks_eager_then_inductors_codegen(self):
        with tempfile.TemporaryDirectory() as cache:
            universe = surface.surface_universe(cache_dir=cache)
            (stored,) = os.listdir(cache)
            # Asked again: the cached file, the same universe.
            self.assertEqual(surface.surface_universe(cache_dir=cache), universe)
            # A damaged file is derived again (the derivation, tested here already, stands in
            # by its result) and replaced.
            with open(os.path.join(cache, stored), "w") as damaged:
                damaged.write("{not json")
            derived = []
            original = surface._derive_universe
            surface._derive_universe = lambda: derived.append(1) or universe
            try:
                self.assertEqual(surface.surface_universe(cache_dir=cache), universe)
            finally:
                surface._derive_universe = original
            self.assertEqual(derived, [1])
            with open(os.path.join(cache, stored)) as replaced:
                self.assertEqual(json.load(replaced), universe)
        self.assertEqual(universe["torch_version"], torch.__version__)
        self.assertEqual(universe["derived_from"], "eager+inductor-codegen")
        ops = {row["op"]: row for row in universe["ops"]}
        # Inductor emits abs on int8 in scalar and vector code, on int16 in scalar code only
        # (int16 is not among the dtypes its C++ backend vectorizes).
        self.assertEqual(ops["abs"]["dtypes"]["int8"], "supported")
        self.assertEqual(ops["abs"]["dtypes"]["int16"], "scalar-only")
        self.assertEqual(ops["sin"]["dtypes"]["int8"], "promoted")  # eager computes it in float
        # Eager keeps float16, but Inductor computes it in float32: sin never sees float16.
        self.assertEqual(ops["sin"]["dtypes"]["float16"], "not-emitted")
        self.assertEqual(ops["load"]["dtypes"]["float16"], "supported")
        self.assertEqual(ops["square"]["dtypes"]["float32"], "not-emitted")  # lowered to mul
        self.assertEqual(ops["bitwise_and"]["dtypes"]["float32"], "unsupported")
        self.assertEqual(ops["to_dtype"]["dtypes"]["bfloat16"], "supported")
        self.assertTrue(ops["sin"]["vectorized"])
        self.assertNotIn("rand", ops)
        self.assertTrue(all(set(row["dtypes"]) == set(surface.DTYPES) for row in ops.values()))


if __name__ == "__main__":
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    unittest.main()
