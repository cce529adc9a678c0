"""inductor_fuzz_worker.cases.run_case on cases that never reach torch.compile: a broken case
is an "invalid-case" with the phase it broke in, never a finding."""

import os
import tempfile
import unittest

import torch
from inductor_fuzz_worker.cases import run_case
from inductor_fuzz_worker.serve import Session
from test_oracles import case, quiet_eager_flex_attention


class RunCaseTestBase(unittest.TestCase):
    def setUp(self):
        quiet_eager_flex_attention(self)
        self.scratch = tempfile.TemporaryDirectory()
        # Nothing before the compile captures builds: no compiler state is needed.
        self.session = Session(os.path.dirname(torch.__file__) + os.sep, None, None)

    def tearDown(self):
        self.scratch.cleanup()

    def run_case(self, c, eager_only=False):
        return run_case(
            self.session,
            c,
            os.path.join(self.scratch.name, "cache"),
            {},
            False,
            eager_only=eager_only,
        )

    def assertInvalid(self, result, phase, exception_type):
        self.assertEqual(result["status"], "invalid-case", result)
        self.assertIsNone(result["kind"])
        self.assertEqual(result["phase"], phase)
        self.assertEqual(result["exception"]["type"], exception_type)
        self.assertIn("innermost", result["exception"])


class RunCaseBeforeCompileTest(RunCaseTestBase):
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
        c = case(
            tensors=[{"name": "table", "dtype": "int64", "shape": [10], "values": list(range(10))}]
        )
        c["mask_mod"]["source"] = (
            "def causal(b, h, q_idx, kv_idx):\n    return table[q_idx] >= kv_idx\n"
        )
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
            "    raise RuntimeError('Could not guard on data-dependent expression u0')\n"
        )
        result = self.run_case(c, eager_only=True)
        self.assertEqual(result["status"], "expected", result)
        self.assertEqual(result["exception"]["class"], "data-dependent")

    def test_eager_raising_something_else_than_expected_is_invalid(self):
        c = case(expect={"raises": "data-dependent"})
        c["mask_mod"]["source"] = "def causal(b, h, q_idx, kv_idx):\n    return 1 / 0\n"
        self.assertInvalid(self.run_case(c, eager_only=True), "eager", "builtins.ZeroDivisionError")


class ApiContractTest(RunCaseTestBase):
    """A case that breaks a contract of the API it calls is invalid-case in phase "contract",
    before anything compiles: what flex_attention computes for it is not defined
    (docs/contracts.md)."""

    def flex(self, source, block_mask_b=1, block_mask_h=None, batch=1, heads=3, tensors=()):
        c = case("flex_attention", tensors=list(tensors))
        c["mask_mod"] = {
            "name": "mask_mod",
            "source": f"def mask_mod(b, h, q_idx, kv_idx):\n    return {source}\n",
        }
        c["create_block_mask"].update(B=block_mask_b, H=block_mask_h, Q_LEN=64, KV_LEN=64)
        c["attention"].update(B=batch, Hq=heads, Hkv=heads, Q_LEN=64, KV_LEN=64, enable_gqa=False)
        return c

    def assertContract(self, result, message):
        self.assertInvalid(result, "contract", "inductor_fuzz_worker.oracles.ApiContractError")
        self.assertIn(message, result["exception"]["message"])

    def test_a_mask_reading_h_through_a_table_with_an_h_none_block_mask(self):
        offsets = {"name": "head_offset_0", "dtype": "int64", "shape": [3], "values": [-1, 0, 5]}
        result = self.run_case(self.flex("head_offset_0[h] >= kv_idx", tensors=[offsets]))
        self.assertContract(
            result,
            "mask_mod reads h but the block mask was made with H=None: "
            "create_block_mask's H=None means the mask is the same for every "
            "head, and here head 1 of 3 differs from head 0 (first at b=0, h=1, "
            "q_idx=0, kv_idx=0)",
        )

    def test_a_one_head_block_mask_for_three_heads(self):
        result = self.run_case(self.flex("q_idx + h >= kv_idx", block_mask_h=1))
        self.assertContract(result, "mask_mod reads h but the block mask was made with H=1:")

    def test_a_mask_reading_b_with_a_b_none_block_mask(self):
        result = self.run_case(self.flex("kv_idx <= b", block_mask_b=None, block_mask_h=3, batch=2))
        self.assertContract(
            result,
            "mask_mod reads b but the block mask was made with B=None: "
            "create_block_mask's B=None means the mask is the same for every "
            "batch element, and here batch element 1 of 2 differs",
        )

    def test_a_mask_that_reads_h_without_depending_on_it_keeps_its_contract(self):
        result = self.run_case(self.flex("q_idx + h // 130 >= kv_idx"), eager_only=True)
        self.assertEqual(result["status"], "pass", result)

    def test_a_mask_of_every_head_may_depend_on_h(self):
        result = self.run_case(self.flex("q_idx + h >= kv_idx", block_mask_h=3), eager_only=True)
        self.assertEqual(result["status"], "pass", result)

    def test_one_head_needs_no_broadcast(self):
        result = self.run_case(self.flex("q_idx + h >= kv_idx", heads=1), eager_only=True)
        self.assertEqual(result["status"], "pass", result)

    def test_a_score_mod_may_read_h_whatever_the_block_mask(self):
        c = self.flex("q_idx >= kv_idx")
        c["score_mod"] = {
            "name": "score_mod",
            "source": "def score_mod(score, b, h, q_idx, kv_idx):\n    return score + h\n",
        }
        self.assertEqual(self.run_case(c, eager_only=True)["status"], "pass")

    def test_a_broken_contract_is_never_what_a_case_expects(self):
        c = self.flex("q_idx + h >= kv_idx")
        c["expect"] = {"raises": "data-dependent"}
        self.assertContract(self.run_case(c), "mask_mod reads h")

    def ready_made(self, counts, indices, full=None):
        """Causal on 64x64 in blocks of 32, its block tensors given (BlockMask.from_kv_blocks)."""
        c = self.flex(
            "q_idx >= kv_idx",
            heads=2,
            tensors=[
                {"name": "counts", "dtype": "int32", "shape": [1, 1, 2], "values": counts},
                {"name": "indices", "dtype": "int32", "shape": [1, 1, 2, 2], "values": indices},
            ],
        )
        c["create_block_mask"]["BLOCK_SIZE"] = 32
        c["attention"]["block_mask_tensors"] = ["counts", "indices"]
        if full:
            c["tensors"] += [
                {"name": "full_counts", "dtype": "int32", "shape": [1, 1, 2], "values": full[0]},
                {
                    "name": "full_indices",
                    "dtype": "int32",
                    "shape": [1, 1, 2, 2],
                    "values": full[1],
                },
            ]
            c["attention"]["block_mask_tensors"] += ["full_counts", "full_indices"]
        return c

    def test_ready_made_blocks_that_cover_the_mask(self):
        for c in (
            self.ready_made([1, 2], [0, 1, 0, 1]),
            self.ready_made([1, 1], [0, 1, 1, 0], full=([0, 1], [0, 1, 0, 1])),
        ):
            self.assertEqual(self.run_case(c, eager_only=True)["status"], "pass")

    def test_ready_made_blocks_that_leave_out_what_the_mask_keeps(self):
        self.assertContract(
            self.run_case(self.ready_made([1, 1], [0, 1, 1, 0])),
            "the block mask's tensors do not cover mask_mod: block (1, 0) of b=0, h=0 is not "
            "listed, but mask_mod is true at q_idx=32, kv_idx=0",
        )

    def test_a_ready_made_full_block_where_the_mask_drops_elements(self):
        self.assertContract(
            self.run_case(self.ready_made([0, 1], [0, 1, 1, 0], full=([1, 1], [0, 1, 0, 1]))),
            "block (0, 0) of b=0, h=0 is a full block, but mask_mod is false at q_idx=0, kv_idx=1",
        )

    def test_query_heads_not_a_multiple_of_key_heads_fail_eagerly(self):
        c = case("flex_attention")
        c["attention"].update(Hq=3, Hkv=2)
        self.assertInvalid(self.run_case(c), "eager", "builtins.ValueError")

    def test_more_query_than_key_heads_without_enable_gqa_fail_eagerly(self):
        c = case("flex_attention")
        c["attention"].update(Hq=2, Hkv=1, enable_gqa=False)
        self.assertInvalid(self.run_case(c), "eager", "builtins.ValueError")


if __name__ == "__main__":
    unittest.main()
