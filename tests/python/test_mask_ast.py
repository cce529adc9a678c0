"""inductor_fuzz_worker/mask_ast.py: the syntax-tree passes of the case reducer. Each candidate
is one change away from the source, still defines the function the case calls, and the same request
always gives the same candidates."""

import ast
import json
import os
import subprocess
import sys
import unittest

SCRIPT = os.path.join(
    os.path.dirname(__file__),
    "..",
    "..",
    "fuzzer",
    "worker",
    "python",
    "inductor_fuzz_worker",
    "mask_ast.py",
)

THREE_ARMS = """\
def mask_part0(b, h, q_idx, kv_idx):
    return (q_idx >= kv_idx)

def mask_part1(b, h, q_idx, kv_idx):
    return ((kv_idx < 101) | (q_idx >= kv_idx))

def mask_part2(b, h, q_idx, kv_idx):
    return ((q_idx // 128) == (kv_idx // 128))

mask_mod = or_masks(mask_part0, mask_part1, mask_part2)
"""


PROGRAM = """\
def program(x0, x1):
    v0 = torch.mm(x0, x1)
    v1 = torch.relu(v0)
    v2 = torch.softmax(v0, dim=1)
    x0.mul_(2)
    return (v1, v2)
"""


def ask(source, function, pass_name, program=False):
    request = {"source": source, "function": function, "pass": pass_name}
    if program:
        request["program"] = True
    run = subprocess.run(
        [sys.executable, SCRIPT], capture_output=True, text=True, input=json.dumps(request)
    )
    return run.returncode, json.loads(run.stdout)


def defines(source, function):
    tree = ast.parse(source)
    return any(
        isinstance(node, ast.FunctionDef)
        and node.name == function
        or isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == function for t in node.targets)
        for node in tree.body
    )


class MaskAstTest(unittest.TestCase):
    def test_counts_expression_nodes(self):
        code, answer = ask(
            "def f(b, h, q_idx, kv_idx):\n    return q_idx >= kv_idx\n", "f", "count"
        )
        self.assertEqual(code, 0)
        self.assertEqual(answer["nodes"], 3)  # the comparison and its two names

    def test_drop_mask_arm_removes_one_argument_each(self):
        _, answer = ask(THREE_ARMS, "mask_mod", "drop-mask-arm")
        calls = [
            line
            for candidate in answer["candidates"]
            for line in candidate.splitlines()
            if line.startswith("mask_mod =")
        ]
        self.assertEqual(
            sorted(calls),
            sorted(
                [
                    "mask_mod = or_masks(mask_part1, mask_part2)",
                    "mask_mod = or_masks(mask_part0, mask_part2)",
                    "mask_mod = or_masks(mask_part0, mask_part1)",
                ]
            ),
        )

    def test_two_arms_drop_to_the_helper_and_inline(self):
        _, answer = ask(
            "def a(b, h, q_idx, kv_idx):\n    return q_idx >= kv_idx\n"
            "def c(b, h, q_idx, kv_idx):\n    return q_idx < 5\n"
            "mask_mod = and_masks(a, c)\n",
            "mask_mod",
            "drop-mask-arm",
        )
        self.assertEqual(
            [c.splitlines()[-1] for c in answer["candidates"]], ["mask_mod = c", "mask_mod = a"]
        )
        _, inlined = ask(answer["candidates"][1], "mask_mod", "inline-helpers")
        first = inlined["candidates"][0]
        self.assertIn("def mask_mod(b, h, q_idx, kv_idx):\n    return q_idx >= kv_idx", first)

    def test_every_candidate_of_every_pass_parses_and_defines_the_function(self):
        for pass_name in (
            "drop-mask-arm",
            "drop-output",
            "drop-unused",
            "inline-helpers",
            "replace-by-child",
            "replace-by-leaf",
            "shrink-constants",
        ):
            _, answer = ask(THREE_ARMS, "mask_mod", pass_name)
            _, again = ask(THREE_ARMS, "mask_mod", pass_name)
            self.assertEqual(answer, again, pass_name + " is not deterministic")
            self.assertEqual(len(set(answer["candidates"])), len(answer["candidates"]))
            for candidate in answer["candidates"]:
                self.assertTrue(defines(candidate, "mask_mod"), candidate)
                self.assertNotEqual(
                    ast.unparse(ast.parse(candidate)), ast.unparse(ast.parse(THREE_ARMS))
                )

    def test_a_program_drops_outputs_then_dead_statements(self):
        _, answer = ask(PROGRAM, "program", "drop-output", program=True)
        self.assertEqual(
            [c.splitlines()[-1].strip() for c in answer["candidates"]],
            ["return (v2,)", "return (v1,)"],
        )
        _, dead = ask(answer["candidates"][1], "program", "drop-unused", program=True)
        self.assertNotIn("softmax", dead["candidates"][0])
        self.assertIn("x0.mul_(2)", dead["candidates"][0])
        self.assertTrue(any("mul_" not in c for c in dead["candidates"]))

    def test_a_programs_leaves_are_its_arguments_and_values(self):
        _, children = ask(PROGRAM, "program", "replace-by-child", program=True)
        self.assertTrue(any("    v1 = v0\n" in c for c in children["candidates"]))
        _, leaves = ask(PROGRAM, "program", "replace-by-leaf", program=True)
        self.assertTrue(leaves["candidates"])
        for candidate in leaves["candidates"]:
            self.assertNotIn("q_idx", candidate)

    def test_shrink_constants_moves_toward_zero_and_one(self):
        _, answer = ask(
            "def f(b, h, q_idx, kv_idx):\n    return q_idx + 7 >= kv_idx\n", "f", "shrink-constants"
        )
        self.assertEqual(
            [c.split("return ")[1].strip() for c in answer["candidates"]],
            ["q_idx + 0 >= kv_idx", "q_idx + 1 >= kv_idx", "q_idx + 3 >= kv_idx"],
        )

    def test_bad_input_is_exit_2_with_a_message(self):
        code, answer = ask("def f(:\n", "f", "count")
        self.assertEqual(code, 2)
        self.assertIn("does not parse", answer["error"])
        code, answer = ask("x = 1\n", "x", "no-such-pass")
        self.assertEqual(code, 2)
        self.assertIn("unknown pass", answer["error"])


if __name__ == "__main__":
    unittest.main()
