"""inductor_fuzz_worker.first_wrong: the first statement of a wrong tensor program that
torch.compile gets wrong on its own.

The syntax tests run nothing. The locator tests compile for real (one small program each, a few
seconds): one on torch's own int8 amax bug (pytorch#191499, known issue
cpu-small-int-minmax-reduction-inactive-lanes) behind statements that are right, one on a
program with nothing wrong.
"""

import ast
import unittest

import torch
from inductor_fuzz_worker import first_wrong, oracles

PROGRAM = (
    "def program(x0, x1):\n"
    "    v0 = x0.t() * 2\n"
    "    v1 = torch.cummax(v0, dim=0).values\n"
    "    x1.index_put_((v1[0].long(),), x1[:3], accumulate=True)\n"
    "    v2 = x1[::2] + v0.sum()\n"
    "    return (v2,)\n"
)


def program_case(source, inputs, tensors):
    return {
        "name": "first-wrong-test",
        "api": "tensor_program",
        "mask_mod": {"name": "program", "source": source},
        "score_mod": None,
        "tensors": tensors,
        "tensor_program": {"inputs": inputs},
        "inductor": {},
    }


class SyntaxTest(unittest.TestCase):
    def test_statements_name_their_operation_target_and_operands(self):
        _, statements = first_wrong.program_statements(PROGRAM, "program")
        self.assertEqual(
            [(s.operation, s.target, s.operands) for s in statements],
            [
                ("mul", "v0", ["x0"]),
                ("cummax", "v1", ["v0"]),
                ("index_put_", "x1", ["x1", "v1"]),
                ("add", "v2", ["x1", "v0"]),
            ],
        )

    def test_every_value_copies_what_a_later_statement_updates(self):
        function, statements = first_wrong.program_statements(PROGRAM, "program")
        source = first_wrong.every_value_source(function, statements)
        returned = ast.parse(source).body[0].body[-1].value
        self.assertEqual(
            [ast.unparse(e) for e in returned.elts], ["x0", "x1", "v0", "v1", "_value_2", "v2"]
        )
        self.assertIn("_value_2 = x1.clone()", source)

    def test_a_prefix_returns_its_last_statements_value(self):
        function, statements = first_wrong.program_statements(PROGRAM, "program")
        source = first_wrong.prefix_source(function, statements, 2)
        body = ast.parse(source).body[0].body
        self.assertEqual(len(body), 3)
        self.assertEqual(ast.unparse(body[-1]), "return (v1,)")

    def test_the_fact_names_the_operation_and_the_dtypes(self):
        _, statements = first_wrong.program_statements(PROGRAM, "program")
        dtypes = {"x0": "int8", "x1": "float32", "v0": "int8", "v1": "int8", "v2": "float32"}
        self.assertEqual(first_wrong.describe(statements[3], dtypes), "add(float32,int8)->float32")


class LocatorTest(unittest.TestCase):
    def locate(self, source, inputs, tensors):
        case = program_case(source, inputs, tensors)
        torch._dynamo.reset()
        return first_wrong.locate_first_wrong(
            type(oracles.Api(case, oracles.build_namespace(case))),
            case,
            oracles.build_namespace,
            {},
            None,
        )

    def test_the_int8_amax_behind_right_statements_is_named(self):
        rows = [-((i * 7) % 9) - 1 for i in range(60)]  # every value below 0
        located = self.locate(
            "def program(x0):\n"
            "    v0 = x0 * 2\n"
            "    v1 = torch.neg(v0)\n"
            "    v2 = torch.amax(x0, dim=1)\n"
            "    v3 = v2.to(torch.float32) + v1.sum()\n"
            "    return (v3,)\n",
            [{"tensor": "t0", "size": [3, 20], "stride": [20, 1]}],
            [{"name": "t0", "dtype": "int8", "shape": [60], "values": rows}],
        )
        self.assertIsNotNone(located)
        self.assertEqual(located["index"], 2)
        self.assertEqual(located["first"], "amax(int8)->int8")

    def test_a_right_program_names_nothing(self):
        located = self.locate(
            "def program(x0):\n    v0 = x0 * 2\n    v1 = v0.sum(dim=0)\n    return (v1,)\n",
            [{"tensor": "t0", "size": [4, 5], "stride": [1, 4]}],
            [{"name": "t0", "dtype": "float32", "shape": [20], "values": [0.5] * 20}],
        )
        self.assertIsNone(located)


if __name__ == "__main__":
    unittest.main()
