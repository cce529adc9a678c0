"""inductor_fuzz_worker.serve: requests checked, replies always valid JSON."""

import json
import math
import unittest

from inductor_fuzz_worker.serve import handle, json_safe


class JsonSafeTest(unittest.TestCase):
    def test_non_finite_numbers_become_strings_everywhere(self):
        message = {"a": [1.5, math.nan, (math.inf, -math.inf)], "b": {"c": math.nan}, "d": "x"}
        safe = json_safe(message)
        self.assertEqual(safe, {"a": [1.5, "nan", ["inf", "-inf"]], "b": {"c": "nan"}, "d": "x"})
        json.dumps(safe, allow_nan=False)


class HandleTest(unittest.TestCase):
    def test_a_run_without_the_inductor_settings_is_refused(self):
        with self.assertRaisesRegex(ValueError, "inductor_config, dynamic"):
            handle(None, {"op": "run", "id": 1, "case": {}}, "/nonexistent")

    def test_unknown_op(self):
        with self.assertRaisesRegex(ValueError, "unknown op"):
            handle(None, {"op": "dance"}, "/nonexistent")


if __name__ == "__main__":
    unittest.main()
