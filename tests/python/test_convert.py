"""inductor_fuzz_worker.convert on a user's own module (tests/fixtures/convert/masks.py): each
function, rebuilt from the converted case alone, must agree with the original exactly.

Everything runs eagerly: nothing here compiles.
"""

import importlib.util
import json
import os
import re
import sys
import tempfile
import textwrap
import unittest
import warnings

import torch
from inductor_fuzz_worker.convert import build_functions, convert_module
from torch.nn.attention.flex_attention import create_mask, flex_attention

FIXTURE = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "convert", "masks.py"
)
MASKS = (
    "causal",
    "sliding",
    "document",
    "sliding_causal",
    "prefix_lm",
    "prefix_or_dilated",
    "document_prefix_lm",
    "diagonal",
    "near_causal",
    "natten",
    "banded",
    "same_windows",
)
SCORES = ("softcap", "alibi", "relative_bias")
B, H, SEQ = 2, 4, 256  # the fixture's document_ids are SEQ long, its alibi has H slopes


def load_fixture():
    """The user's module itself, imported apart from any conversion, to compare against."""
    spec = importlib.util.spec_from_file_location("convert_fixture_masks", FIXTURE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def defined_functions(mask_mod):
    """The functions an and_masks/or_masks result combines, down to the ones a source defined
    (those hold the namespace they were defined in)."""
    if mask_mod.__qualname__ not in ("and_masks.<locals>.and_mask", "or_masks.<locals>.or_mask"):
        return [mask_mod]
    [cell] = mask_mod.__closure__
    return [f for part in cell.cell_contents for f in defined_functions(part)]


def qkv():
    generator = torch.Generator().manual_seed(3)
    return [torch.randn((1, H, SEQ, 16), generator=generator) for _ in range(3)]


class ConvertFixtureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.original = load_fixture()

    def setUp(self):
        # Eager flex_attention warns that it is not compiled: here that is the point.
        self.enterContext(warnings.catch_warnings())
        warnings.filterwarnings("ignore", message="flex_attention called without torch.compile")

    def convert(self, mask_name=None, score_name=None):
        converted = convert_module(FIXTURE, mask_name, score_name)
        json.dumps(converted)  # a case file holds it
        for key in ("mask_mod", "score_mod"):
            if converted[key]:
                source = converted[key]["source"]
                self.assertIsNone(re.search(r"\bmasks\b|fixtures|_inductor_fuzz_convert", source))
        return converted

    def assertSameMask(self, name, rebuilt):
        original = getattr(self.original, name)
        expected = create_mask(original, B, H, SEQ, SEQ, device="cpu")
        self.assertTrue(torch.equal(create_mask(rebuilt, B, H, SEQ, SEQ, device="cpu"), expected))

    def assertSameScore(self, name, rebuilt):
        q, k, v = qkv()
        expected = flex_attention(q, k, v, score_mod=getattr(self.original, name))
        self.assertTrue(torch.equal(flex_attention(q, k, v, score_mod=rebuilt), expected))

    def test_every_mask_mod_agrees_rebuilt_from_its_case_alone(self):
        for name in MASKS:
            with self.subTest(name):
                converted = self.convert(mask_name=name)
                self.assertEqual(converted["mask_mod"]["name"], name)
                self.assertIsNone(converted["score_mod"])
                mask_mod, score_mod = build_functions(converted)
                self.assertIsNone(score_mod)
                for function in defined_functions(mask_mod):
                    self.assertEqual(function.__globals__["__name__"], "inductor_fuzz_case")
                self.assertSameMask(name, mask_mod)

    def test_every_score_mod_agrees_rebuilt_from_its_case_alone(self):
        for name in SCORES:
            with self.subTest(name):
                converted = self.convert(score_name=name)
                self.assertIsNone(converted["mask_mod"])
                mask_mod, score_mod = build_functions(converted)
                self.assertIsNone(mask_mod)
                self.assertSameScore(name, score_mod)

    def test_a_mask_and_a_score_share_one_factory(self):
        converted = self.convert("sliding", "softcap")
        self.assertEqual(converted["constants"], {"window": 64, "cap": 50.0})
        mask_mod, score_mod = build_functions(converted)
        self.assertSameMask("sliding", mask_mod)
        self.assertSameScore("softcap", score_mod)

    def test_closures_become_constants_and_keep_their_names(self):
        converted = self.convert("sliding")
        self.assertEqual(converted["constants"], {"window": 64})
        self.assertEqual(
            converted["mask_mod"]["source"],
            "def sliding_window_mask(b, h, q_idx, kv_idx):\n"
            "    return (q_idx - kv_idx).abs() <= window\n\n\n"
            "sliding = sliding_window_mask\n",
        )
        natten = self.convert("natten")
        self.assertEqual(natten["constants"], {"CANVAS_W": 16, "KERNEL": 5})
        self.assertIn("BORDER = 'clamp'\n", natten["mask_mod"]["source"])

    def test_imports_become_import_lines(self):
        self.assertTrue(
            self.convert("causal")["mask_mod"]["source"].startswith("from torch import Tensor\n")
        )
        source = self.convert(score_name="relative_bias")["score_mod"]["source"]
        self.assertTrue(source.startswith("from torch import where\n"))
        self.assertTrue(
            self.convert(score_name="alibi")["score_mod"]["source"].startswith("import math\n")
        )

    def test_combined_masks_are_rebuilt_after_their_parts(self):
        source = self.convert("sliding_causal")["mask_mod"]["source"]
        self.assertTrue(
            source.endswith("\nsliding_causal = and_masks(causal, sliding_window_mask)\n")
        )
        source = self.convert("near_causal")["mask_mod"]["source"]
        self.assertIn("\nlambda_mod = lambda b, h, q_idx, kv_idx: q_idx - kv_idx < 16\n", source)
        self.assertTrue(source.endswith("\nnear_causal = and_masks(causal, lambda_mod)\n"))
        source = self.convert("diagonal")["mask_mod"]["source"]
        self.assertEqual(source, "diagonal = lambda b, h, q_idx, kv_idx: q_idx == kv_idx\n")

    def test_two_functions_of_one_name_are_told_apart(self):
        converted = self.convert("prefix_or_dilated")
        source = converted["mask_mod"]["source"]
        self.assertEqual(converted["constants"], {"prefix_len": 32, "stride": 4})
        self.assertIn("\ndef mask_mod_2(b, h, q_idx, kv_idx):\n", source)
        self.assertTrue(source.endswith("\nprefix_or_dilated = or_masks(mask_mod, mask_mod_2)\n"))

    def test_one_factory_with_one_value_twice_is_one_function(self):
        converted = self.convert("same_windows")
        source = converted["mask_mod"]["source"]
        self.assertEqual(source.count("def "), 1)
        self.assertTrue(
            source.endswith(
                "\nsame_windows = and_masks(sliding_window_mask, sliding_window_mask)\n"
            )
        )

    def test_one_name_with_two_values_is_refused(self):
        with self.assertRaises(ValueError) as raised:
            convert_module(FIXTURE, "two_windows")
        message = str(raised.exception)
        for part in ("'window'", "8", "128", "different names"):
            self.assertIn(part, message)
        self.assertNotIn("\n", message)

    def test_tensors_round_trip_bit_for_bit(self):
        converted = self.convert("document", "alibi")
        self.assertEqual([t["name"] for t in converted["tensors"]], ["document_ids", "slopes"])
        self.assertEqual(
            [(t["dtype"], t["shape"]) for t in converted["tensors"]],
            [("int32", [256]), ("bfloat16", [4])],
        )
        mask_mod, score_mod = build_functions(converted)
        ids, rebuilt_ids = self.original.document_ids, mask_mod.__globals__["document_ids"]
        self.assertEqual(rebuilt_ids.dtype, torch.int32)
        self.assertTrue(torch.equal(rebuilt_ids, ids))
        slopes = self.original.alibi.__closure__[0].cell_contents
        rebuilt_slopes = score_mod.__globals__["slopes"]
        self.assertEqual(rebuilt_slopes.dtype, torch.bfloat16)
        self.assertTrue(torch.equal(rebuilt_slopes.view(torch.int16), slopes.view(torch.int16)))

    def test_only_a_module_outside_torch_and_the_standard_library_is_warned_about(self):
        warned = self.convert("banded")["warnings"]
        self.assertEqual(len(warned), 1, warned)
        self.assertIn("numpy", warned[0])
        for name in MASKS + SCORES:
            if name != "banded":
                converted = self.convert(*((name, None) if name in MASKS else (None, name)))
                self.assertEqual(converted["warnings"], [], name)

    def test_the_same_module_converts_to_the_same_bytes(self):
        for names in (("document_prefix_lm", "alibi"), ("natten", "softcap")):
            first, second = convert_module(FIXTURE, *names), convert_module(FIXTURE, *names)
            self.assertEqual(json.dumps(first), json.dumps(second))

    def test_names_that_are_no_functions_are_refused(self):
        for args in (("missing_mask",), (None, "missing_score"), ("SEQ_LEN",), (None, None)):
            with self.subTest(args), self.assertRaises(ValueError) as raised:
                convert_module(FIXTURE, *args)
            self.assertNotIn("\n", str(raised.exception))
        with self.assertRaisesRegex(ValueError, "no 'missing_mask'"):
            convert_module(FIXTURE, "missing_mask")


class ConvertFileTest(unittest.TestCase):
    """Modules written for one test each, in a scratch folder."""

    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.addCleanup(self.scratch.cleanup)

    def write(self, name, text):
        path = os.path.join(self.scratch.name, name)
        with open(path, "w") as out:
            out.write(textwrap.dedent(text))
        return path

    def test_a_module_that_raises_on_import_is_refused_naming_the_file(self):
        path = self.write("broken.py", "import torch\nraise RuntimeError('no GPU here')\n")
        path_before = list(sys.path)
        with self.assertRaises(ValueError) as raised:
            convert_module(path, "causal")
        message = str(raised.exception)
        for part in (path, "RuntimeError", "no GPU here"):
            self.assertIn(part, message)
        self.assertEqual(sys.path, path_before)

    def test_helpers_from_the_users_own_modules_are_copied_not_imported(self):
        self.write(
            "shifts.py",
            """
            SHIFT = 3

            def shift(idx):
                return idx - SHIFT
            """,
        )
        path = self.write(
            "user.py",
            """
            from shifts import shift

            def shifted_causal(b, h, q_idx, kv_idx):
                return shift(q_idx) >= kv_idx
            """,
        )
        path_before = list(sys.path)
        converted = convert_module(path, "shifted_causal")
        self.assertEqual(sys.path, path_before)
        self.assertEqual(converted["warnings"], [])
        self.assertEqual(converted["constants"], {"SHIFT": 3})
        self.assertNotIn("import", converted["mask_mod"]["source"])
        mask_mod, _ = build_functions(converted)
        rebuilt = create_mask(mask_mod, 1, 1, 16, 16, device="cpu")
        expected = torch.arange(16)[:, None] - 3 >= torch.arange(16)[None, :]
        self.assertTrue(torch.equal(rebuilt[0, 0], expected))

    def test_a_module_that_calls_aoti_compile_and_package_makes_an_aoti_case(self):
        causal = "def causal(b, h, q_idx, kv_idx):\n    return q_idx >= kv_idx\n"
        plain = self.write("plain.py", causal)
        self.assertNotIn("compile_with", convert_module(plain, "causal"))
        # Named in a string or a comment only: not a call.
        mentioned = self.write("mentioned.py", causal + "\nNOTE = 'aoti_compile_and_package'\n")
        self.assertNotIn("compile_with", convert_module(mentioned, "causal"))
        for name, text in (
            (
                "dotted.py",
                "import torch\n\n\ndef build(ep):\n"
                "    return torch._inductor.aoti_compile_and_package(ep)\n",
            ),
            (
                "aliased.py",
                "from torch._inductor import aoti_compile_and_package as package\n\n\n"
                "def build(ep):\n    return package(ep)\n",
            ),
        ):
            path = self.write(name, causal + "\n\n" + text)
            self.assertEqual(convert_module(path, "causal")["compile_with"], "aoti", name)


if __name__ == "__main__":
    unittest.main()
