"""inductor_fuzz_worker.oracles on small eager results: the exact comparisons (tensors, block
masks) and where and how they differ, plants, the Api's phases. flex_attention's comparison
with its tolerance, and where and how its output is wrong, are in test_attention_comparisons.py.

Nothing here compiles: "compiled" results are eager results, copied and corrupted.
"""

import copy
import math
import unittest
import warnings

import torch
from inductor_fuzz_worker import oracles, plants
from torch.nn.attention.flex_attention import create_block_mask


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
            "B": 1,
            "H": 1,
            "Q_LEN": 128,
            "KV_LEN": 128,
            "BLOCK_SIZE": 128,
            "device": "cpu",
        },
        "attention": None,
        "expect": {"raises": None},
    }
    if api == "flex_attention":
        c["attention"] = {
            "B": 1,
            "Hq": 2,
            "Hkv": 1,
            "Q_LEN": 128,
            "KV_LEN": 128,
            "E": 8,
            "Ev": 8,
            "dtype": "float32",
            "input_seed": 7,
            "use_block_mask": True,
            "enable_gqa": True,
        }
    c.update(changes)
    return c


def quiet_eager_flex_attention(test):
    """Eager flex_attention warns that it is not compiled: here that is the point."""
    test.enterContext(warnings.catch_warnings())
    warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")


def fields(mismatches):
    return [m["field"] for m in mismatches]


def where_how(mismatch):
    """The mismatch's (where, how), checked against the vocabularies the C++ side documents."""
    assert mismatch["where"] in oracles.WHERE_TOKENS, mismatch["where"]
    assert mismatch["how"] in oracles.HOW_TOKENS, mismatch["how"]
    return mismatch["where"], mismatch["how"]


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
                self.assertEqual(
                    fields(oracles.compare_block_masks(causal_mask(), compiled)), [field]
                )

    def test_block_size_and_seq_lengths_are_compared(self):
        compiled = causal_mask()
        compiled.BLOCK_SIZE = (64, 128)
        compiled.seq_lengths = (256, 255)
        mismatches = oracles.compare_block_masks(causal_mask(), compiled)
        self.assertEqual(fields(mismatches), ["BLOCK_SIZE", "seq_lengths"])
        self.assertEqual(mismatches[0]["eager"], [128, 128])
        self.assertEqual(mismatches[0]["compiled"], [64, 128])

    def test_a_count_table_says_whether_blocks_were_lost_or_gained(self):
        # Which rows a wrong count reaches is the shape's; that it loses blocks is the cause's.
        for change, how in ((-1, "fewer"), (1, "more")):
            with self.subTest(change=change):
                compiled = causal_mask(512, 512)
                counts = compiled.kv_num_blocks.view(-1)
                counts[1:] += change  # the last rows: looks like an unwritten tail otherwise
                mismatches = oracles.compare_block_masks(causal_mask(512, 512), compiled)
                self.assertEqual(fields(mismatches), ["kv_num_blocks"])
                self.assertEqual(mismatches[0]["how"], how)
        compiled = causal_mask(512, 512)
        counts = compiled.kv_num_blocks.view(-1)
        counts[0] += 1
        counts[-1] -= 1
        self.assertEqual(
            oracles.compare_block_masks(causal_mask(512, 512), compiled)[0]["how"], "values"
        )
        compiled = causal_mask(512, 512)
        compiled.kv_indices.view(-1)[-1] += 1  # indices keep the exact comparison's words
        self.assertIn(
            oracles.compare_block_masks(causal_mask(512, 512), compiled)[0]["how"],
            ("values", "unwritten"),
        )

    def test_a_missing_full_block_tensor_is_a_mismatch(self):
        compiled = causal_mask()
        compiled.full_kv_num_blocks = None
        self.assertIn(
            "full_kv_num_blocks", fields(oracles.compare_block_masks(causal_mask(), compiled))
        )


class ExactWhereHowTest(unittest.TestCase):
    """Where and how an exactly compared mask or block table differs."""

    def located(self, eager, compiled, field="mask"):
        [m] = oracles.compare_tensors(field, eager, compiled)
        return where_how(m)

    def setUp(self):
        self.mask = torch.ones(1, 2, 8, 8, dtype=torch.bool).tril()

    def test_unwritten_tail_columns(self):
        compiled = self.mask.clone()
        compiled[..., 6:] = ~compiled[..., 6:]
        self.assertEqual(self.located(self.mask, compiled), ("tail-columns", "unwritten"))

    def test_unwritten_rows_may_start_their_tails_apart(self):
        compiled = self.mask.clone()
        compiled[0, 0, 2, 5:] = ~compiled[0, 0, 2, 5:]
        compiled[0, 1, 6, 3:] = ~compiled[0, 1, 6, 3:]
        self.assertEqual(self.located(self.mask, compiled)[1], "unwritten")
        compiled[0, 1, 6, 0] = ~compiled[0, 1, 6, 0]  # a whole row is no tail
        self.assertEqual(self.located(self.mask, compiled)[1], "flipped")

    def test_unwritten_suffix_of_the_flattened_tensor(self):
        table = torch.arange(24, dtype=torch.int32).reshape(2, 3, 4)
        compiled = table.clone()
        compiled.view(-1)[17:] = 0
        self.assertEqual(self.located(table, compiled), ("tail-rows", "unwritten"))

    def test_flipped_and_values_scattered(self):
        compiled = self.mask.clone()
        compiled[0, 0, 1, 1] = ~compiled[0, 0, 1, 1]
        compiled[0, 1, 5, 2] = ~compiled[0, 1, 5, 2]
        self.assertEqual(self.located(self.mask, compiled), ("scattered", "flipped"))
        table = torch.arange(24, dtype=torch.int32).reshape(1, 1, 4, 6)
        compiled = table.clone()
        compiled[0, 0, 1, 1] = compiled[0, 0, 2, 3] = 99
        self.assertEqual(self.located(table, compiled), ("scattered", "values"))

    def test_tail_rows_of_whole_rows(self):
        compiled = self.mask.clone()
        compiled[..., 6:, :] = ~compiled[..., 6:, :]
        self.assertEqual(self.located(self.mask, compiled), ("tail-rows", "flipped"))

    def test_some_heads_and_everywhere(self):
        compiled = self.mask.clone()
        compiled[0, 0] = ~compiled[0, 0]
        self.assertEqual(self.located(self.mask, compiled), ("some-heads", "flipped"))
        self.assertEqual(self.located(self.mask, ~self.mask), ("everywhere", "flipped"))
        table = torch.arange(24, dtype=torch.int32).reshape(2, 3, 4)
        self.assertEqual(self.located(table, table + 1), ("everywhere", "values"))

    def test_shape_presence_and_block_sizes(self):
        table = torch.zeros(2, dtype=torch.int32)
        self.assertEqual(self.located(table, None), ("everywhere", "shape"))
        self.assertEqual(self.located(table, table.long()), ("everywhere", "shape"))
        compiled = causal_mask()
        compiled.BLOCK_SIZE = (64, 128)
        [m] = oracles.compare_block_masks(causal_mask(), compiled)
        self.assertEqual(where_how(m), ("everywhere", "values"))
        mismatches, _ = oracles.compare_attention(
            table.float(), table.float()[:1], table.double(), "float32"
        )
        self.assertEqual(where_how(mismatches[0]), ("everywhere", "shape"))


class PlantTest(unittest.TestCase):
    """Each plant makes exactly the oracle it is named for fire."""

    def planted(self, api, eager, plant):
        compiled = plants.plant_difference(api, copy.deepcopy(eager), plant)
        if api == "create_block_mask":
            return oracles.compare_block_masks(eager, compiled)
        if api == "create_mask":
            return oracles.compare_tensors("mask", eager, compiled)
        return oracles.compare_attention(eager, compiled, eager.double(), "float32")[0]

    def test_block_mask_plants(self):
        for plant, field in [
            ("kv-num-blocks", "kv_num_blocks"),
            ("block-size", "BLOCK_SIZE"),
            ("seq-lengths", "seq_lengths"),
            ("flip-one-block", "kv_num_blocks"),
        ]:
            with self.subTest(plant=plant):
                self.assertEqual(
                    fields(self.planted("create_block_mask", causal_mask(), plant)), [field]
                )

    def test_create_mask_plant(self):
        mask = torch.ones(1, 1, 4, 4, dtype=torch.bool).tril()
        for plant in ("create-mask", "flip-one-block"):
            self.assertEqual(fields(self.planted("create_mask", mask, plant)), ["mask"])

    def test_attention_plants(self):
        output = torch.randn(1, 1, 4, 8)
        for plant, field in [
            ("attention-value", "output"),
            ("attention-nan", "output_nan"),
            ("flip-one-block", "output"),
        ]:
            with self.subTest(plant=plant):
                self.assertEqual(fields(self.planted("flex_attention", output, plant)), [field])

    def test_a_plant_refuses_another_api_and_unknown_names(self):
        with self.assertRaisesRegex(ValueError, "create_block_mask results, not create_mask"):
            plants.plant_difference("create_mask", torch.ones(2, dtype=torch.bool), "kv-num-blocks")
        with self.assertRaisesRegex(ValueError, "unknown test plant"):
            plants.plant_difference("create_mask", torch.ones(2, dtype=torch.bool), "nope")


class ApiTest(unittest.TestCase):
    """The eager half of every API, run as the worker runs it."""

    def setUp(self):
        quiet_eager_flex_attention(self)

    def api(self, c):
        api = oracles.Api(c, oracles.build_namespace(c))
        api.make_inputs()
        return api

    def test_create_block_mask_eager_against_itself(self):
        api = self.api(
            case(
                create_block_mask={
                    "B": None,
                    "H": 2,
                    "Q_LEN": 200,
                    "KV_LEN": 100,
                    "BLOCK_SIZE": [64, 32],
                    "device": "cpu",
                }
            )
        )
        mask = api.run_eager()
        self.assertEqual(tuple(mask.BLOCK_SIZE), (64, 32))
        self.assertEqual(tuple(mask.seq_lengths), (200, 100))
        self.assertEqual(api.compare(mask, api.run_eager()), ([], {}))

    def test_create_mask_uses_captured_tensors(self):
        c = case(
            "create_mask",
            tensors=[{"name": "limit", "dtype": "int64", "shape": [2], "values": [3, 5]}],
        )
        c["mask_mod"] = {
            "name": "m",
            "source": "def m(b, h, q_idx, kv_idx):\n    return kv_idx < limit[0]\n",
        }
        api = self.api(c)
        mask = api.run_eager()
        self.assertEqual(int(mask.sum()), 128 * 3)
        self.assertEqual(api.compare(mask, mask.clone()), ([], {}))

    def test_flex_attention_eager_against_itself(self):
        c = case("flex_attention")
        c["score_mod"] = {
            "name": "s",
            "source": "def s(score, b, h, q_idx, kv_idx):\n    return score * 0.5\n",
        }
        api = self.api(c)
        self.assertEqual(tuple(api.q.shape), (1, 2, 128, 8))
        output = api.run_eager()
        mismatches, details = api.compare(output, output.clone())
        self.assertEqual(mismatches, [])
        self.assertLess(details["attention_errors"]["eager"]["max_abs_error"], 1e-5)

    def test_flex_attention_layout_names_the_block_size_and_fully_masked_rows(self):
        c = case("flex_attention")
        c["mask_mod"] = {
            "name": "early",
            "source": "def early(b, h, q_idx, kv_idx):\n    return q_idx < 64\n",
        }
        c["create_block_mask"]["BLOCK_SIZE"] = [32, 128]
        api = self.api(c)
        layout = api.attention_layout()
        self.assertEqual(layout["block_q"], 32)
        rows = layout["fully_masked_rows"]()
        self.assertEqual(tuple(rows.shape), (1, 2, 128))
        self.assertFalse(bool(rows[..., :64].any()))
        self.assertTrue(bool(rows[..., 64:].all()))
        output = api.run_eager()
        compiled = output.clone()
        compiled[:, :, 64:] += 1
        [m], _ = api.compare(output, compiled)
        self.assertEqual(where_how(m), ("fully-masked-rows", "offset"))

    def test_flex_attention_without_a_block_mask_masks_no_row(self):
        c = case("flex_attention")
        c["attention"]["use_block_mask"] = False
        layout = self.api(c).attention_layout()
        self.assertEqual(layout["block_q"], oracles.DEFAULT_BLOCK_Q)
        self.assertIsNone(layout["fully_masked_rows"]())

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
