"""inductor_fuzz_worker.unspecified_rules: what the judge excuses because the op's documentation,
or the C or IEEE 754 function Inductor maps it onto, leaves it open, with the rule named in the
record; and that a real difference beside an excused one stays wrong.

The first test compiles for real (a second or two): the difference it excuses is Inductor's own.
"""

import unittest

import torch
from inductor_fuzz_worker import unspecified_rules, value_judge


def flipped(tensor, *indices):
    """`tensor` with the elements at `indices` changed: a bool negated, a float's sign flipped,
    an integer plus one."""
    out = tensor.clone()
    for index in indices:
        if out.dtype == torch.bool:
            out[index] = ~out[index]
        elif out.is_floating_point():
            out[index] = -out[index]
        else:
            out[index] = out[index] + 1
    return out


class RuleTable(unittest.TestCase):
    def test_every_rule_names_its_ops_what_is_open_and_its_source(self):
        names = [rule["name"] for rule in unspecified_rules.UNSPECIFIED_RULES]
        self.assertEqual(len(names), len(set(names)))
        self.assertEqual(tuple(names), unspecified_rules.RULE_NAMES)
        for rule in unspecified_rules.UNSPECIFIED_RULES:
            self.assertEqual(set(rule), {"name", "ops", "open", "source"}, rule["name"])
            self.assertTrue(rule["ops"] and rule["open"] and rule["source"], rule["name"])
            for op in rule["ops"]:
                self.assertTrue(hasattr(torch, op) or hasattr(torch.Tensor, op), op)


class Excused(unittest.TestCase):
    def judge(self, program, compiled, open_rules=None):
        if open_rules is None:
            return value_judge.judge_values(program(), compiled, program)
        # The same judge with only `open_rules` open.
        real = value_judge.rounding_allowance
        try:
            value_judge.rounding_allowance = lambda p, rules=None, fired=None: real(
                p, open_rules if rules is None else rules & open_rules, fired
            )
            return value_judge.judge_values(program(), compiled, program)
        finally:
            value_judge.rounding_allowance = real

    def assertExcusedBy(self, found, rule, elements):
        mismatches, details = found
        self.assertEqual(mismatches, [])
        self.assertEqual([r["rule"] for r in details["values_unspecified"]], [rule])
        reason = details["values_unspecified"][0]
        self.assertEqual(reason["elements"], elements)
        table = {r["name"]: r for r in unspecified_rules.UNSPECIFIED_RULES}
        self.assertEqual(reason["source"], table[rule]["source"])
        self.assertEqual(reason["open"], table[rule]["open"])

    def test_signbit_of_fmin_of_minus_zero_and_zero_is_excused_with_its_reason(self):
        # The case of issue 83: an int16 edge value viewed as float16 is -0.0; eager's fmin
        # gives -0.0, the compiled kernel +0.0 (torch 2.15, CPU), and signbit flips.
        x = torch.tensor([-32768, 15360, -32768, 0], dtype=torch.int16).view(torch.float16)
        y = torch.tensor([0.0, 2.0, 0.0, -0.0], dtype=torch.float16)

        def program():
            return torch.signbit(torch.fmin(x, y))

        torch._dynamo.reset()
        compiled = torch.compile(program)()
        if torch.equal(compiled, program()):  # another build that agrees: its other choice
            compiled = flipped(compiled, 0)
        found = self.judge(program, compiled)
        self.assertExcusedBy(found, "fmin-fmax-zero-sign", int((compiled != program()).sum()))
        # With the rule closed the same difference is wrong: the rule is what excuses it.
        mismatches, details = self.judge(program, compiled, open_rules=frozenset())
        self.assertEqual(len(mismatches), 1)
        self.assertNotIn("values_unspecified", details)

    def test_a_real_difference_beside_an_excused_one_still_fails(self):
        x = torch.tensor([-0.0, 1.0, -0.0, 3.0])
        y = torch.tensor([0.0, 2.0, 0.0, -1.0])

        def program():
            return torch.signbit(torch.fmin(x, y))

        compiled = flipped(program(), 0, 3)  # 0 is open, 3 (fmin(3, -1) = -1) is not
        mismatches, details = self.judge(program, compiled)
        self.assertEqual(len(mismatches), 1)
        self.assertEqual(mismatches[0]["elements_differing"], 1)
        self.assertEqual(mismatches[0]["first_index"], [3])
        self.assertEqual(mismatches[0]["excused"], 1)
        self.assertEqual(details["values_excused"], 1)
        self.assertEqual(
            [r["rule"] for r in details["values_unspecified"]], ["fmin-fmax-zero-sign"]
        )

    def test_the_zero_of_maximum_and_clamp_read_by_a_reciprocal_is_excused(self):
        x = torch.tensor([-0.0, 0.0, 2.0])
        y = torch.tensor([0.0, -0.0, 1.0])
        for program in (
            lambda: 1 / torch.maximum(x, y),
            lambda: 1 / torch.minimum(x, y),
            lambda: 1 / torch.clamp(x, min=0.0),
        ):
            compiled = flipped(program(), 0)
            self.assertExcusedBy(self.judge(program, compiled), "min-max-zero-sign", 1)
        program = lambda: 1 / torch.maximum(x, y)  # noqa: E731
        self.assertEqual(len(self.judge(program, flipped(program(), 2))[0]), 1)

    def test_the_zero_of_amax_of_a_row_of_both_zeros_is_excused_and_of_another_row_not(self):
        t = torch.tensor([[-0.0, 0.0, -1.0], [-0.0, -0.0, -2.0], [1.0, 0.0, -0.0]])
        for program in (
            lambda: torch.signbit(torch.amax(t, dim=1)),
            lambda: torch.signbit(torch.max(t, dim=1).values),
            lambda: torch.signbit(torch.amin(-t, dim=1)),
        ):
            compiled = flipped(program(), 0)
            found = self.judge(program, compiled)
            self.assertEqual(found[0], [], program)
        program = lambda: torch.signbit(torch.amax(t, dim=1))  # noqa: E731
        self.assertExcusedBy(
            self.judge(program, flipped(program(), 0)), *("min-max-reduction-zero-sign", 1)
        )
        # Row 1's zeros are all -0.0: its sign is no choice.
        mismatches, _ = self.judge(program, flipped(program(), 0, 1))
        self.assertEqual(mismatches[0]["first_index"], [1])

    def test_the_sign_of_a_nan_is_excused_and_of_a_number_not(self):
        x = torch.tensor([-1.0, 4.0, float("inf")])

        def program():
            return torch.signbit(torch.sqrt(x) - x * 0)  # NaN, 2, NaN (inf - inf)

        self.assertExcusedBy(self.judge(program, flipped(program(), 0, 2)), "nan-sign", 2)
        self.assertEqual(len(self.judge(program, flipped(program(), 1))[0]), 1)

        def copied():
            return torch.copysign(torch.ones(3), torch.sqrt(x) - x * 0)

        self.assertExcusedBy(self.judge(copied, flipped(copied(), 2)), "nan-sign", 1)

    def test_the_bits_of_a_nan_are_excused_and_of_a_number_not(self):
        x = torch.tensor([-1.0, 4.0], dtype=torch.float16)

        def program():
            return torch.sqrt(x).view(torch.int16)

        compiled = program().clone()
        compiled[0] = 0x7E00  # a NaN of the other sign
        self.assertExcusedBy(self.judge(program, compiled), "nan-bits", 1)
        self.assertEqual(self.judge(program, flipped(compiled, 1))[0][0]["first_index"], [1])

    def test_the_exponent_frexp_gives_an_infinity_is_excused(self):
        x = torch.tensor([float("inf"), 8.0])

        def program():
            return torch.frexp(x).exponent

        self.assertExcusedBy(
            self.judge(program, flipped(program(), 0)), *("frexp-exponent-of-non-finite", 1)
        )
        self.assertEqual(len(self.judge(program, flipped(program(), 1))[0]), 1)

    def test_the_indices_of_equal_values_are_excused_and_of_distinct_ones_not(self):
        t = torch.tensor([[3.0, 1.0, 3.0], [2.0, 0.0, 1.0], [float("nan"), 5.0, float("nan")]])

        def program():
            return torch.argsort(t, dim=1)

        compiled = program().clone()
        compiled[0] = torch.tensor([1, 2, 0])  # 3.0 ties with 3.0
        compiled[2] = torch.tensor([1, 2, 0])  # so do the NaNs
        self.assertExcusedBy(self.judge(program, compiled), "tie-indices", 4)
        compiled[1] = torch.tensor([2, 1, 0])  # 2, 0, 1 are distinct: wrong
        mismatches, details = self.judge(program, compiled)
        self.assertEqual(mismatches[0]["first_index"], [1, 0])
        self.assertEqual(details["values_unspecified"][0]["rule"], "tie-indices")

        def stable():
            return torch.sort(t, dim=1, stable=True).indices

        self.assertEqual(len(self.judge(stable, flipped(stable(), (0, 0)))[0]), 1)

        def median():
            return torch.median(torch.tensor([[1.0, 2.0, 2.0], [1.0, 2.0, 3.0]]), dim=1).indices

        compiled = median().clone()
        compiled[0] = 2 if int(compiled[0]) == 1 else 1
        self.assertExcusedBy(self.judge(median, compiled), "tie-indices", 1)
        self.assertEqual(len(self.judge(median, flipped(compiled, 1))[0]), 1)


if __name__ == "__main__":
    unittest.main()
