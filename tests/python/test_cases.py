"""inductor_fuzz_worker.cases.run_case on cases that never reach torch.compile: a broken case
is an "invalid-case" with the phase it broke in, never a finding."""

import os
import tempfile
import unittest

import torch

from inductor_fuzz_worker.cases import run_case
from inductor_fuzz_worker.serve import Session

from test_oracles import case, quiet_eager_flex_attention


class RunCaseBeforeCompileTest(unittest.TestCase):
    def setUp(self):
        quiet_eager_flex_attention(self)
        self.scratch = tempfile.TemporaryDirectory()
        # Nothing before the compile captures builds: no compiler state is needed.
        self.session = Session(os.path.dirname(torch.__file__) + os.sep, None, None)

    def tearDown(self):
        self.scratch.cleanup()

    def run_case(self, c, eager_only=False):
        return run_case(self.session, c, os.path.join(self.scratch.name, "cache"), {}, False,
                        eager_only=eager_only)

    def assertInvalid(self, result, phase, exception_type):
        self.assertEqual(result["status"], "invalid-case", result)
        self.assertIsNone(result["kind"])
        self.assertEqual(result["phase"], phase)
        self.assertEqual(result["exception"]["type"], exception_type)
        self.assertIn("innermost", result["exception"])

    def test_a_valid_case_passes_eagerly(self):
        result = self.run_case(case(), eager_only=True)
        self.assertEqual(result["status"], "pass", result)
        self.assertIn("eager_seconds", result["phases"])

    def test_misspelt_mask_mod_name(self):
        c = case()
        c["mask_mod"]["name"] = "casual"
        self.assertInvalid(self.run_case(c), "define", "builtins.NameError")

    def test_syntax_error_in_the_mask(self):
        c = case()
        c["mask_mod"]["source"] = "def causal(b, h, q_idx, kv_idx):\n    return q_idx >= = 1\n"
        self.assertInvalid(self.run_case(c), "define", "builtins.SyntaxError")

    def test_captured_table_index_out_of_range_in_eager(self):
        c = case(tensors=[{"name": "table", "dtype": "int64", "shape": [10],
                           "values": list(range(10))}])
        c["mask_mod"]["source"] = ("def causal(b, h, q_idx, kv_idx):\n"
                                   "    return table[q_idx] >= kv_idx\n")
        result = self.run_case(c)
        self.assertInvalid(result, "eager", "builtins.IndexError")
        self.assertIn("out of bounds", result["exception"]["innermost"]["message"])

    def test_block_mask_for_512_tokens_used_on_256(self):
        c = case("flex_attention")
        c["create_block_mask"].update(Q_LEN=512, KV_LEN=512)
        c["attention"].update(Q_LEN=256, KV_LEN=256)
        result = self.run_case(c)
        self.assertInvalid(result, "eager", "builtins.RuntimeError")
        self.assertTrue(result["exception"]["innermost"]["frame"].startswith("nn/attention/"))

    def test_inputs_that_cannot_be_made(self):
        c = case("flex_attention")
        c["attention"]["dtype"] = "no_such_dtype"
        self.assertInvalid(self.run_case(c), "inputs", "builtins.AttributeError")

    def test_eager_raising_what_the_case_expects_is_expected(self):
        c = case(expect={"raises": "data-dependent"})
        c["mask_mod"]["source"] = (
            "def causal(b, h, q_idx, kv_idx):\n"
            "    raise RuntimeError('Could not guard on data-dependent expression u0')\n")
        result = self.run_case(c, eager_only=True)
        self.assertEqual(result["status"], "expected", result)
        self.assertEqual(result["exception"]["class"], "data-dependent")

    def test_eager_raising_something_else_than_expected_is_invalid(self):
        c = case(expect={"raises": "data-dependent"})
        c["mask_mod"]["source"] = "def causal(b, h, q_idx, kv_idx):\n    return 1 / 0\n"
        self.assertInvalid(self.run_case(c, eager_only=True), "eager",
                           "builtins.ZeroDivisionError")


if __name__ == "__main__":
    unittest.main()
