"""The feedback's source mutations (inductor_fuzz_worker/mutate_source.py) on eager torch: every
wrap and detour form keeps its operand's kind and stays finite, so that a mutated case is a case
that can be compared, not an invalid one."""

import importlib.util
import pathlib
import unittest

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location(
    "mutate_source", ROOT / "fuzzer/worker/python/inductor_fuzz_worker/mutate_source.py"
)
mutate_source = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutate_source)

B = torch.zeros(1, 1, 1, 1, dtype=torch.int64)
H = torch.arange(3).view(1, 3, 1, 1)
Q = torch.arange(-40, 90, 3).view(1, 1, -1, 1)
KV = torch.arange(0, 70, 2).view(1, 1, 1, -1)
SCORE = torch.randn(1, 3, Q.shape[2], KV.shape[3], generator=torch.Generator().manual_seed(0)) * 6
ENVIRONMENT = {"torch": torch, "b": B, "h": H, "q_idx": Q, "kv_idx": KV, "score": SCORE}
OPERANDS = {"float": "score * 0.5", "int": "q_idx - kv_idx", "bool": "q_idx >= kv_idx"}
DTYPES = {"float": torch.float32, "int": torch.int64, "bool": torch.bool}


def evaluate(text):
    return eval(text, dict(ENVIRONMENT))  # noqa: S307 - the module's own templates


class WrapsAndDetours(unittest.TestCase):
    def check(self, kind, text):
        value = evaluate(text)
        self.assertEqual(value.dtype, DTYPES[kind], text)
        if kind == "float":
            self.assertTrue(torch.isfinite(value).all(), text)

    def test_every_wrap_keeps_its_kind_and_is_finite(self):
        for kind, templates in mutate_source.WRAPS.items():
            for template in templates:
                self.check(kind, template.replace("{x}", f"({OPERANDS[kind]})"))

    def test_every_detour_comes_back_to_its_kind(self):
        for kind, ways in mutate_source.DETOURS.items():
            for (dtype, back), body in [
                (way, body) for way in ways for body in mutate_source.detour_bodies(kind, way[0])
            ]:
                operand = f"(({OPERANDS[kind]}).to({dtype}))"
                self.check(kind, back.replace("{w}", body.replace("{x}", operand)))

    def test_a_detour_through_a_float_keeps_an_int_exact(self):
        # No transcendental function decides an index: the same value by any correct rounding.
        for body in mutate_source.INT_BODIES_IN_FLOAT:
            text = (
                "torch.floor(" + body.replace("{x}", "((q_idx - kv_idx).to(torch.float64))") + ")"
            )
            in_float = (
                "torch.floor(" + body.replace("{x}", "((q_idx - kv_idx).to(torch.float32))") + ")"
            )
            self.assertTrue(torch.equal(evaluate(text).long(), evaluate(in_float).long()), body)

    def test_stacked_mutations_are_deterministic_and_keep_the_functions_contract(self):
        import ast
        import random

        sources = {
            "score_mod": (
                "def score_mod(score, b, h, q_idx, kv_idx):\n"
                "    return score + (q_idx - kv_idx) * 0.25\n",
                torch.float32,
            ),
            "mask_mod": (
                "def mask_mod(b, h, q_idx, kv_idx):\n    return (q_idx - kv_idx) % 7 < 5\n",
                torch.bool,
            ),
        }
        for name, (source, dtype) in sources.items():
            for operation in (mutate_source.mutate_wrap, mutate_source.mutate_detour):
                for seed in range(40):
                    once, what = operation(ast.parse(source), random.Random(seed))[:2]
                    again = operation(ast.parse(source), random.Random(seed))[0]
                    self.assertEqual(ast.unparse(once), ast.unparse(again))
                    # A second mutation on the first: the campaign stacks them.
                    twice, more = operation(once, random.Random(seed + 1000))[:2]
                    namespace = {"torch": torch}
                    exec(compile(ast.fix_missing_locations(twice), "<mutated>", "exec"), namespace)
                    arguments = (B, H, Q, KV) if name == "mask_mod" else (SCORE, B, H, Q, KV)
                    value = namespace[name](*arguments)
                    # The kind only: a wrap of a guarded operand (the x of atanh(tanh(x) * 0.5))
                    # can leave the guard's range, NaN in eager as in compiled code.
                    self.assertEqual(value.dtype, dtype, what + "; " + more)

    def test_a_rounding_through_a_16_bit_float_asks_for_eager_roundings(self):
        # Inductor elides the rounding otherwise (its documented emulate_precision_casts).
        import ast
        import random

        source = "def score_mod(score, b, h, q_idx, kv_idx):\n    return score * 0.5\n"
        seen = set()
        for seed in range(200):
            tree, what, knobs = mutate_source.mutate_detour(ast.parse(source), random.Random(seed))
            rounded = "through torch.bfloat16" in what or "through torch.float16" in what
            self.assertEqual(knobs, {"emulate_precision_casts": True} if rounded else {}, what)
            seen.add(rounded)
        self.assertEqual(seen, {True, False})

    def test_a_constant_that_divides_never_becomes_zero(self):
        import ast
        import random

        source = (
            "def score_mod(score, b, h, q_idx, kv_idx):\n"
            "    return score / 2.0 + torch.fmod(kv_idx, 3) + (q_idx // 5) + kv_idx % 1\n"
        )
        changed = set()
        for seed in range(300):
            tree, what = mutate_source.mutate_constant(ast.parse(source), random.Random(seed))
            changed.add(what.split(" -> ")[0])
            for divisor in mutate_source.divisors(tree):
                self.assertNotEqual(divisor.value, 0, what)
        # Every constant was changed at least once, so the check above saw each divisor move.
        self.assertEqual(len(changed), 4, changed)


if __name__ == "__main__":
    unittest.main()
