"""replay.reference_error: a replayed tensor is judged against the case's float64 reference only
when it is the tensor the compiled case returned, and NaN against a number is infinitely far.

Nothing here compiles: the "recording" is a float32 tensor and the reference its float64 copy.
"""

import math
import unittest

import torch
from inductor_fuzz_worker import comparisons, replay


def entry(compiled, reference, eager_error=1e-7, dtype="float32"):
    return {
        "field": "output",
        "dtype": dtype,
        "compiled": compiled,
        "reference": reference,
        "eager_error": eager_error,
        "limit": comparisons.attention_limit(dtype, eager_error),
    }


class ReferenceErrorTest(unittest.TestCase):
    def setUp(self):
        generator = torch.Generator().manual_seed(0)
        self.reference = torch.randn((2, 3, 4), generator=generator, dtype=torch.float64)
        self.recorded = self.reference.to(torch.float32)
        self.entries = [entry(self.recorded.clone(), self.reference)]

    def test_the_case_output_is_judged_by_each_build_and_the_recording(self):
        rebuilt = self.recorded.clone()
        rebuilt[1, 2, 3] += 5e-5
        judged = replay.reference_error(self.recorded, rebuilt, self.entries)
        self.assertIsNotNone(judged)
        self.assertAlmostEqual(judged["build_error"], 5e-5, delta=1e-6)
        self.assertLess(judged["recorded_error"], 1e-6)  # float32 rounding of the reference
        self.assertEqual(judged["limit"], 1e-4)
        self.assertEqual(judged["field"], "output")

    def test_a_tensor_that_is_not_the_output_is_not_judged(self):
        other = self.recorded + 1
        self.assertIsNone(replay.reference_error(other, other, self.entries))
        self.assertIsNone(replay.reference_error(self.recorded[0], self.recorded[0], self.entries))
        self.assertIsNone(replay.reference_error(self.recorded, None, self.entries))
        self.assertIsNone(replay.reference_error(self.recorded, self.recorded, []))

    def test_nan_against_a_number_is_infinitely_far_and_equal_nans_are_not(self):
        rebuilt = self.recorded.clone()
        rebuilt[0, 0, 0] = float("nan")
        self.assertTrue(
            math.isinf(replay.reference_error(self.recorded, rebuilt, self.entries)["build_error"])
        )
        recorded = self.recorded.clone()
        recorded[0, 0, 0] = float("nan")
        reference = self.reference.clone()
        reference[0, 0, 0] = float("nan")
        judged = replay.reference_error(recorded, recorded.clone(), [entry(recorded, reference)])
        self.assertLess(judged["build_error"], 1e-6)

    def test_the_limit_is_the_dtype_tolerance_or_a_few_times_eager_error(self):
        self.assertEqual(comparisons.attention_limit("float32", 1e-7), 1e-4)
        self.assertEqual(
            comparisons.attention_limit("bfloat16", 0.05), comparisons.EAGER_ERROR_FACTOR * 0.05
        )


if __name__ == "__main__":
    unittest.main()
