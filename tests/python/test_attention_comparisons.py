"""inductor_fuzz_worker.oracles' comparison of flex_attention's output and lse: within the
tolerance (eager's own error against float64), NaN and infinity, and where and how a wrong result
is wrong.

Nothing here compiles: "compiled" results are eager results, copied and corrupted.
"""

import math
import unittest

import torch
from inductor_fuzz_worker import oracles
from test_oracles import fields, where_how


class CompareAttentionTest(unittest.TestCase):
    def setUp(self):
        generator = torch.Generator().manual_seed(0)
        self.reference = torch.randn(1, 2, 4, 8, generator=generator, dtype=torch.float64)
        self.eager = self.reference.float()

    def compare(self, compiled, eager=None, reference=None):
        return oracles.compare_attention(
            self.eager if eager is None else eager,
            compiled,
            self.reference if reference is None else reference,
            "float32",
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
        self.assertLess(
            details["attention_errors"]["compiled"]["max_abs_error"],
            1e-6,
            "a NaN is judged apart, not as an error of NaN",
        )

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


class AttentionWhereHowTest(unittest.TestCase):
    """Where and how compiled flex_attention is wrong, on a [1, 2, 32, 8] output."""

    def setUp(self):
        generator = torch.Generator().manual_seed(1)
        self.reference = torch.randn(1, 2, 32, 8, generator=generator, dtype=torch.float64)
        self.eager = self.reference.float()

    def located(self, compiled, nan=False, **layout):
        """(where, how) of the output's mismatch, or of the lse's for a [1, 2, 32] `compiled`;
        of the NaN mismatch with `nan`."""
        field = "lse" if compiled.dim() == 3 else "output"
        reference, eager = self.reference, self.eager
        if field == "lse":
            reference, eager = reference[..., 0], eager[..., 0]
        mismatches, _ = oracles.compare_attention(
            eager, compiled, reference, "float32", field=field, layout=layout
        )
        return where_how({m["field"]: m for m in mismatches}[field + "_nan" * nan])

    def test_how_nan_before_every_other_problem(self):
        compiled = self.eager.clone()
        compiled[0, 0, 3, 1] = math.nan
        compiled[0, 1, 5, 2] += 1
        self.assertEqual(self.located(compiled)[1], "nan")
        self.assertEqual(self.located(compiled, nan=True), ("some-heads", "nan"))

    def test_how_inf(self):
        compiled = self.eager.clone()
        compiled[0, 0, 3, 1] = -math.inf
        compiled[0, 1, 5, 2] += 1
        self.assertEqual(self.located(compiled)[1], "inf")

    def test_how_zero(self):
        compiled = self.eager.clone()
        compiled[:, :, 5] = 0
        self.assertEqual(self.located(compiled), ("scattered", "zero"))

    def test_how_scale(self):
        compiled = self.eager.clone()
        compiled[:, :, 4:] *= 2
        self.assertEqual(self.located(compiled), ("tail-rows", "scale"))

    def test_how_negated_is_not_a_scale(self):
        compiled = self.eager.clone()
        compiled[:, :, 4:] *= -1
        self.assertEqual(self.located(compiled), ("tail-rows", "negated"))

    def test_how_offset(self):
        compiled = self.eager.clone()
        compiled[..., 6:] += 0.5
        self.assertEqual(self.located(compiled), ("tail-columns", "offset"))

    def test_how_off_for_unrelated_values_and_for_one_element(self):
        compiled = self.eager.clone()
        compiled[:, :, 3:5] = torch.randn(1, 2, 2, 8, generator=torch.Generator().manual_seed(2))
        self.assertEqual(self.located(compiled)[1], "off")
        compiled = self.eager.clone()
        compiled[0, 1, 7, 3] += 1  # one point fits a scale and an offset: no pattern
        self.assertEqual(self.located(compiled), ("some-heads", "off"))

    def test_how_zero_scale_and_offset_from_the_summary_alone(self):
        reference = torch.tensor([1.0, -2.0, 3.0, 4.0], dtype=torch.float64)
        wrong = torch.ones(4, dtype=torch.bool)
        for compiled, how in [
            (torch.zeros(4), "zero"),
            (reference * 0.5, "scale"),
            (reference - 1, "offset"),
            (torch.tensor([9.0, 0, 1, 2]), "off"),
        ]:
            with self.subTest(how=how):
                self.assertEqual(oracles.attention_how(compiled, reference, wrong, 1e-4), how)

    def rows_wrong(self, rows, heads=(0, 1)):
        compiled = self.eager.clone()
        for h in heads:
            compiled[0, h, list(rows)] += 1
        return compiled

    def test_where_fully_masked_rows(self):
        masked = torch.zeros(1, 2, 32, dtype=torch.bool)
        masked[..., [3, 7, 9]] = True
        compiled = self.rows_wrong([3, 7])
        self.assertEqual(
            self.located(compiled, fully_masked_rows=lambda: masked)[0], "fully-masked-rows"
        )
        self.assertEqual(self.located(compiled)[0], "scattered")
        compiled = self.rows_wrong([3, 4])  # row 4 keeps keys
        self.assertEqual(self.located(compiled, fully_masked_rows=lambda: masked)[0], "scattered")

    def test_where_reads_patterns_over_the_rows_the_mask_keeps(self):
        # A fully masked row is zero whatever the kernel computes: a scale of every other row
        # is everywhere, a negated first row of each block still the first rows when one of
        # them keeps no key, and a head the mask removes whole is no "some heads".
        masked = torch.zeros(1, 2, 32, dtype=torch.bool)
        masked[..., 4:12] = True
        live = [q for q in range(32) if not 4 <= q < 12]
        self.assertEqual(
            self.located(self.rows_wrong(live), fully_masked_rows=lambda: masked)[0], "everywhere"
        )
        self.assertEqual(self.located(self.rows_wrong(live))[0], "scattered")
        masked = torch.zeros(1, 2, 32, dtype=torch.bool)
        masked[..., 16] = True
        self.assertEqual(
            self.located(self.rows_wrong([0]), block_q=16, fully_masked_rows=lambda: masked)[0],
            "block-first-rows",
        )
        masked = torch.zeros(1, 2, 32, dtype=torch.bool)
        masked[:, 1] = True
        self.assertEqual(
            self.located(self.rows_wrong(range(32), heads=[0]), fully_masked_rows=lambda: masked)[
                0
            ],
            "everywhere",
        )

    def test_where_block_first_rows(self):
        compiled = self.rows_wrong([0, 16])
        self.assertEqual(self.located(compiled, block_q=16)[0], "block-first-rows")
        # The CPU template splits q by a size of its own (16 here, under a block mask of 128):
        # the first row of each of its blocks is still the first rows (seed 11, case 55).
        self.assertEqual(self.located(compiled)[0], "block-first-rows")
        self.assertEqual(self.located(self.rows_wrong([0, 8, 16, 24]))[0], "block-first-rows")
        self.assertEqual(self.located(self.rows_wrong([0, 20]))[0], "scattered")
        # A split into one block (Q_LEN 256 in bfloat16, seed 11 case 55): row 0 alone.
        self.assertEqual(self.located(self.rows_wrong([0]))[0], "block-first-rows")
        self.assertEqual(self.located(self.rows_wrong(range(1, 32)))[0], "tail-rows")  # as before
        self.assertEqual(self.located(self.rows_wrong([0, 4]))[0], "scattered")  # no block of 4

    def test_where_after_block_first_rows(self):
        compiled = self.rows_wrong([q for q in range(32) if q % 16])
        self.assertEqual(self.located(compiled, block_q=16)[0], "after-block-first-rows")
        self.assertEqual(self.located(compiled, block_q=8)[0], "after-block-first-rows")
        every_other = self.rows_wrong([q for q in range(32) if q % 2])
        self.assertEqual(self.located(every_other)[0], "scattered")

    def test_where_tail_rows_and_tail_columns(self):
        self.assertEqual(self.located(self.rows_wrong(range(20, 32)))[0], "tail-rows")
        compiled = self.eager.clone()
        compiled[..., 5:] += 1
        self.assertEqual(self.located(compiled)[0], "tail-columns")
        compiled[..., 0] += 1
        self.assertEqual(self.located(compiled)[0], "everywhere")

    def test_where_some_heads_everywhere_and_scattered(self):
        self.assertEqual(self.located(self.rows_wrong(range(32), heads=[1]))[0], "some-heads")
        self.assertEqual(self.located(self.rows_wrong(range(32)))[0], "everywhere")
        self.assertEqual(self.located(self.rows_wrong(range(1, 30)))[0], "everywhere")
        self.assertEqual(self.located(self.rows_wrong([2, 11, 12]))[0], "scattered")

    def test_where_of_lse_has_no_column_rules(self):
        compiled = self.eager[..., 0].clone()
        compiled[..., 28:] += 1
        self.assertEqual(self.located(compiled)[0], "tail-rows")
        compiled = self.eager[..., 0].clone()
        compiled[0, 0] += 1
        self.assertEqual(self.located(compiled)[0], "some-heads")
        wrong = torch.zeros(1, 2, 32, dtype=torch.bool)
        wrong[..., 5] = True
        self.assertEqual(oracles.attention_where(wrong), "scattered")

    def test_fully_masked_rows_evaluates_mask_mod_per_head(self):
        def keep_late_rows_in_head_0(b, h, q_idx, kv_idx):
            return (q_idx >= 4) | (h == 1)

        rows = oracles.fully_masked_rows(keep_late_rows_in_head_0, 1, 2, 8, 8)
        expected = torch.zeros(1, 2, 8, dtype=torch.bool)
        expected[0, 0, :4] = True
        self.assertTrue(torch.equal(rows, expected))


if __name__ == "__main__":
    unittest.main()
