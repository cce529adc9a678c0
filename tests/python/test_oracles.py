"""inductor_fuzz_worker.oracles on small eager results: comparisons, plants, the Api's phases.

Nothing here compiles: "compiled" results are eager results, copied and corrupted.
"""

import copy
import math
import unittest
import warnings

import torch
from torch.nn.attention.flex_attention import create_block_mask

from inductor_fuzz_worker import oracles


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def causal_mask(q_len=256, kv_len=256):
    return create_block_mask(causal, 1, 1, q_len, kv_len, device="cpu")


def case(api="create_block_mask", **changes):
    c = {
        "name": "unit",
        "api": api,
        "mask_mod": {
            "name": "causal",
            "source": "def causal(b, h, q_idx, kv_idx):\n    return q_idx >= kv_idx\n",
        },
        "score_mod": None,
        "tensors": [],
        "create_block_mask": {
            "B": 1, "H": 1, "Q_LEN": 128, "KV_LEN": 128, "BLOCK_SIZE": 128, "device": "cpu",
        },
        "attention": None,
        "expect": {"raises": None},
    }
    if api == "flex_attention":
        c["attention"] = {
            "B": 1, "Hq": 2, "Hkv": 1, "Q_LEN": 128, "KV_LEN": 128, "E": 8, "Ev": 8,
            "dtype": "float32", "input_seed": 7, "use_block_mask": True, "enable_gqa": True,
        }
    c.update(changes)
    return c


def quiet_eager_flex_attention(test):
    """Eager flex_attention warns that it is not compiled: here that is the point."""
    test.enterContext(warnings.catch_warnings())
    warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")


def fields(mismatches):
    return [m["field"] for m in mismatches]


class CompareTensorsTest(unittest.TestCase):
    def test_equal_tensors_and_two_nones_agree(self):
        t = torch.arange(6).reshape(2, 3)
        self.assertEqual(oracles.compare_tensors("x", t, t.clone()), [])
        self.assertEqual(oracles.compare_tensors("x", None, None), [])

    def test_reports_count_and_first_differing_element(self):
        t = torch.arange(6).reshape(2, 3)
        u = t.clone()
        u[1, 0] = 9
        u[1, 2] = 9
        [m] = oracles.compare_tensors("x", t, u)
        self.assertEqual(m["problem"], "values differ")
        self.assertEqual(m["elements_differing"], 2)
        self.assertEqual(m["first_index"], [1, 0])
        self.assertEqual((m["eager_value"], m["compiled_value"]), (3, 9))

    def test_shape_dtype_and_presence_differences(self):
        t = torch.zeros(2, dtype=torch.int32)
        self.assertEqual(
            oracles.compare_tensors("x", t, t.long())[0]["problem"], "shape or dtype differs"
        )
        self.assertEqual(
            oracles.compare_tensors("x", t, torch.zeros(3, dtype=torch.int32))[0]["problem"],
            "shape or dtype differs",
        )
        self.assertEqual(
            oracles.compare_tensors("x", t, None)[0]["problem"], "present in only one of the two"
        )

    def test_nan_equals_nan(self):
        t = torch.tensor([1.0, math.nan])
        self.assertEqual(oracles.compare_tensors("x", t, t.clone()), [])


class CompareBlockMasksTest(unittest.TestCase):
    def test_two_builds_of_one_mask_agree(self):
        self.assertEqual(oracles.compare_block_masks(causal_mask(), causal_mask()), [])

    def test_every_tensor_is_compared(self):
        for field in oracles.BLOCK_MASK_TENSORS:
            with self.subTest(field=field):
                compiled = causal_mask()
                tensor = getattr(compiled, field)
                tensor.view(-1)[-1] += 1
                self.assertEqual(fields(oracles.compare_block_masks(causal_mask(), compiled)),
                                 [field])

    def test_block_size_and_seq_lengths_are_compared(self):
        compiled = causal_mask()
        compiled.BLOCK_SIZE = (64, 128)
        compiled.seq_lengths = (256, 255)
        mismatches = oracles.compare_block_masks(causal_mask(), compiled)
        self.assertEqual(fields(mismatches), ["BLOCK_SIZE", "seq_lengths"])
        self.assertEqual(mismatches[0]["eager"], [128, 128])
        self.assertEqual(mismatches[0]["compiled"], [64, 128])

    def test_a_missing_full_block_tensor_is_a_mismatch(self):
        compiled = causal_mask()
        compiled.full_kv_num_blocks = None
        self.assertIn("full_kv_num_blocks",
                      fields(oracles.compare_block_masks(causal_mask(), compiled)))


class CompareAttentionTest(unittest.TestCase):
    def setUp(self):
        generator = torch.Generator().manual_seed(0)
        self.reference = torch.randn(1, 2, 4, 8, generator=generator, dtype=torch.float64)
        self.eager = self.reference.float()

    def compare(self, compiled, eager=None, reference=None):
        return oracles.compare_attention(
            self.eager if eager is None else eager, compiled,
            self.reference if reference is None else reference, "float32",
        )

    def test_within_tolerance_agrees_and_reports_errors(self):
        mismatches, details = self.compare(self.eager + 1e-6)
        self.assertEqual(mismatches, [])
        errors = details["attention_errors"]
        self.assertLess(errors["compiled"]["max_abs_error"], errors["limit"])
        self.assertEqual(errors["limit"], oracles.ATTENTION_TOLERANCE["float32"])

    def test_beyond_tolerance_is_a_mismatch_at_the_worst_element(self):
        compiled = self.eager.clone()
        compiled[0, 1, 2, 3] += 0.5
        mismatches, _ = self.compare(compiled)
        self.assertEqual(fields(mismatches), ["output"])
        self.assertEqual(mismatches[0]["index"], [0, 1, 2, 3])
        self.assertAlmostEqual(mismatches[0]["max_abs_error"], 0.5, places=5)

    def test_limit_grows_with_eager_own_error(self):
        eager = self.eager + 0.01
        mismatches, details = self.compare(eager + 0.02, eager=eager)
        self.assertEqual(mismatches, [])
        self.assertAlmostEqual(details["attention_errors"]["limit"], 0.04, places=5)

    def test_nan_where_reference_and_eager_have_numbers(self):
        compiled = self.eager.clone()
        compiled[0, 0, 1, 1] = math.nan
        mismatches, details = self.compare(compiled)
        self.assertEqual(fields(mismatches), ["output_nan"])
        self.assertEqual(mismatches[0]["first_index"], [0, 0, 1, 1])
        self.assertLess(details["attention_errors"]["compiled"]["max_abs_error"], 1e-6,
                        "a NaN is judged apart, not as an error of NaN")

    def test_nan_where_eager_has_a_number_though_the_reference_has_nan(self):
        reference = self.reference.clone()
        reference[0, 0, 0, 0] = math.nan
        compiled = self.eager.clone()
        compiled[0, 0, 0, 0] = math.nan
        mismatches, _ = self.compare(compiled, reference=reference)
        self.assertEqual(fields(mismatches), ["output_nan"])

    def test_nan_everywhere_it_is_expected_agrees(self):
        reference = self.reference.clone()
        reference[0, 0, 0, 0] = math.nan
        eager = self.eager.clone()
        eager[0, 0, 0, 0] = math.nan
        mismatches, _ = self.compare(eager.clone(), eager=eager, reference=reference)
        self.assertEqual(mismatches, [])

    def test_infinity_where_the_reference_is_finite(self):
        compiled = self.eager.clone()
        compiled[0, 0, 0, 0] = math.inf
        mismatches, _ = self.compare(compiled)
        self.assertEqual(fields(mismatches), ["output"])
        self.assertEqual(mismatches[0]["max_abs_error"], math.inf)

    def test_shape_difference(self):
        mismatches, _ = self.compare(self.eager[..., :4])
        self.assertEqual(mismatches[0]["problem"], "shape or dtype differs")


class PlantTest(unittest.TestCase):
    """Each plant makes exactly the oracle it is named for fire."""

    def planted(self, api, eager, plant):
        compiled = oracles.plant_difference(api, copy.deepcopy(eager), plant)
        if api == "create_block_mask":
            return oracles.compare_block_masks(eager, compiled)
        if api == "create_mask":
            return oracles.compare_tensors("mask", eager, compiled)
        return oracles.compare_attention(eager, compiled, eager.double(), "float32")[0]

    def test_block_mask_plants(self):
        for plant, field in [("kv-num-blocks", "kv_num_blocks"), ("block-size", "BLOCK_SIZE"),
                             ("seq-lengths", "seq_lengths"), ("flip-one-block", "kv_num_blocks")]:
            with self.subTest(plant=plant):
                self.assertEqual(fields(self.planted("create_block_mask", causal_mask(), plant)),
                                 [field])

    def test_create_mask_plant(self):
        mask = torch.ones(1, 1, 4, 4, dtype=torch.bool).tril()
        for plant in ("create-mask", "flip-one-block"):
            self.assertEqual(fields(self.planted("create_mask", mask, plant)), ["mask"])

    def test_attention_plants(self):
        output = torch.randn(1, 1, 4, 8)
        for plant, field in [("attention-value", "output"), ("attention-nan", "output_nan"),
                             ("flip-one-block", "output")]:
            with self.subTest(plant=plant):
                self.assertEqual(fields(self.planted("flex_attention", output, plant)), [field])

    def test_a_plant_refuses_another_api_and_unknown_names(self):
        with self.assertRaisesRegex(ValueError, "create_block_mask results, not create_mask"):
            oracles.plant_difference("create_mask", torch.ones(2, dtype=torch.bool),
                                     "kv-num-blocks")
        with self.assertRaisesRegex(ValueError, "unknown test plant"):
            oracles.plant_difference("create_mask", torch.ones(2, dtype=torch.bool), "nope")


class ApiTest(unittest.TestCase):
    """The eager half of every API, run as the worker runs it."""

    def setUp(self):
        quiet_eager_flex_attention(self)

    def api(self, c):
        api = oracles.Api(c, oracles.build_namespace(c))
        api.make_inputs()
        return api

    def test_create_block_mask_eager_against_itself(self):
        api = self.api(case(create_block_mask={
            "B": None, "H": 2, "Q_LEN": 200, "KV_LEN": 100, "BLOCK_SIZE": [64, 32],
            "device": "cpu"}))
        mask = api.run_eager()
        self.assertEqual(tuple(mask.BLOCK_SIZE), (64, 32))
        self.assertEqual(tuple(mask.seq_lengths), (200, 100))
        self.assertEqual(api.compare(mask, api.run_eager()), ([], {}))

    def test_create_mask_uses_captured_tensors(self):
        c = case("create_mask", tensors=[
            {"name": "limit", "dtype": "int64", "shape": [2], "values": [3, 5]}])
        c["mask_mod"] = {"name": "m", "source": "def m(b, h, q_idx, kv_idx):\n"
                                                 "    return kv_idx < limit[0]\n"}
        api = self.api(c)
        mask = api.run_eager()
        self.assertEqual(int(mask.sum()), 128 * 3)
        self.assertEqual(api.compare(mask, mask.clone()), ([], {}))

    def test_flex_attention_eager_against_itself(self):
        c = case("flex_attention")
        c["score_mod"] = {"name": "s", "source": "def s(score, b, h, q_idx, kv_idx):\n"
                                                  "    return score * 0.5\n"}
        api = self.api(c)
        self.assertEqual(tuple(api.q.shape), (1, 2, 128, 8))
        output = api.run_eager()
        mismatches, details = api.compare(output, output.clone())
        self.assertEqual(mismatches, [])
        self.assertLess(details["attention_errors"]["eager"]["max_abs_error"], 1e-5)

    def test_misspelt_function_name_fails_while_defining(self):
        c = case()
        c["mask_mod"]["name"] = "casual"
        with self.assertRaisesRegex(NameError, "no function named 'casual'"):
            oracles.Api(c, oracles.build_namespace(c))

    def test_syntax_error_fails_while_defining(self):
        c = case()
        c["mask_mod"]["source"] = "def causal(b, h, q_idx, kv_idx):\n    return q_idx >= = 1\n"
        with self.assertRaises(SyntaxError):
            oracles.build_namespace(c)


if __name__ == "__main__":
    unittest.main()
