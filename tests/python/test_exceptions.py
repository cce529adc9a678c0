"""inductor_fuzz_worker.exceptions: messages normalized, chains walked, innermost described."""

import os
import unittest

import torch
from inductor_fuzz_worker import exceptions
from torch._inductor.exc import CppCompileError, InductorError
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

TORCH_ROOT = os.path.dirname(torch.__file__) + os.sep


def raised(function):
    try:
        function()
    except BaseException as error:
        return error
    raise AssertionError("did not raise")


def mask_of_512_used_on_256():
    mask = create_block_mask(lambda b, h, q, kv: q >= kv, 1, 1, 512, 512, device="cpu")
    query = torch.randn(1, 1, 256, 16)
    flex_attention(query, query, query, block_mask=mask)


class NormalizeMessageTest(unittest.TestCase):
    def test_removes_what_varies_between_runs(self):
        message = (
            "error in /tmp/torchinductor_u/ab/cabcdef0123456789abcdef.cpp at 0x7ffd1234abcd"
            " key 0123456789abcdef0123  "
        )
        self.assertEqual(
            exceptions.normalize_message(message), "error in <tmp> at 0x<addr> key <hash>"
        )

    def test_keeps_short_numbers_and_words(self):
        self.assertEqual(exceptions.normalize_message("index 10 out of 10"), "index 10 out of 10")

    def test_shape_symbols_lose_their_numbers(self):
        self.assertEqual(
            exceptions.normalize_message("(zf37,) can only be of int, got s0 + u12; zuf3 ok"),
            "(zfN,) can only be of int, got sN + uN; zufN ok",
        )
        self.assertEqual(
            exceptions.normalize_message(
                "(zf37, FakeTensor(..., size=(129,), dtype=torch.int64)) can only be of"
            ),
            "(zfN, FakeTensor(...)) can only be of",
        )


class ExceptionChainTest(unittest.TestCase):
    def test_follows_inner_exception_then_cause_then_context(self):
        def nested():
            try:
                try:
                    raise KeyError("root")
                except KeyError:
                    raise ValueError("while handling")  # noqa: B904 (__context__, not __cause__)
            except ValueError as middle:
                raise RuntimeError("outer") from middle  # __cause__

        error = raised(nested)
        wrapper = InductorError(error, None)  # inner_exception
        chain = exceptions.exception_chain(wrapper)
        self.assertEqual(
            [type(e) for e in chain], [InductorError, RuntimeError, ValueError, KeyError]
        )

    def test_follows_a_context_hidden_by_from_none(self):
        def hidden():
            try:
                raise KeyError("root")
            except KeyError:
                raise RuntimeError("translated") from None

        chain = exceptions.exception_chain(raised(hidden))
        self.assertEqual([type(e) for e in chain], [RuntimeError, KeyError])

    def test_stops_on_a_cycle(self):
        first, second = ValueError("a"), ValueError("b")
        first.__cause__, second.__cause__ = second, first
        self.assertEqual(exceptions.exception_chain(first), [first, second])


class DescribeExceptionTest(unittest.TestCase):
    def test_innermost_is_the_root_with_its_innermost_torch_frame(self):
        def wrapped():
            try:
                mask_of_512_used_on_256()
            except RuntimeError as error:
                raise ValueError("outer") from error

        described = exceptions.describe_exception(raised(wrapped), TORCH_ROOT)
        self.assertEqual(described["type"], "builtins.ValueError")
        self.assertEqual(described["message"], "outer")
        self.assertEqual(described["chain"], ["builtins.ValueError", "builtins.RuntimeError"])
        innermost = described["innermost"]
        self.assertEqual(innermost["type"], "builtins.RuntimeError")
        self.assertIn("block_mask was created for a larger length", innermost["message"])
        self.assertIn("_adjust(q_len, kv_len)", innermost["message"], "the full message")
        frame = innermost["frame"]
        self.assertTrue(frame.startswith("nn/attention/"), frame)
        self.assertRegex(frame, r"^[\w/]+\.py:\w+$", "path:function, no line number")
        self.assertEqual(described["torch_frames"], [], "the outer exception left torch")

    def test_frames_are_relative_to_torch_and_kept_for_the_outer_exception(self):
        described = exceptions.describe_exception(raised(mask_of_512_used_on_256), TORCH_ROOT)
        self.assertGreaterEqual(len(described["torch_frames"]), 1)
        self.assertEqual(described["innermost"]["frame"], described["torch_frames"][-1])
        self.assertFalse(any(f.startswith("/") for f in described["torch_frames"]))

    def test_innermost_without_torch_frames_has_no_frame(self):
        described = exceptions.describe_exception(raised(lambda: 1 / 0), TORCH_ROOT)
        self.assertEqual(described["innermost"]["type"], "builtins.ZeroDivisionError")
        self.assertEqual(described["innermost"]["frame"], "")

    def test_a_compile_error_anywhere_in_the_chain_is_described(self):
        def compile_failed():
            try:
                raise CppCompileError(["g++", "x.cpp"], "x.cpp:1: error: conflicting declaration")
            except CppCompileError as error:
                raise InductorError(error, None) from error

        described = exceptions.describe_exception(raised(compile_failed), TORCH_ROOT)
        self.assertEqual(
            described["compile_error"],
            {"argv": ["g++", "x.cpp"], "output": "x.cpp:1: error: conflicting declaration"},
        )
        self.assertEqual(described["innermost"]["type"], "torch._inductor.exc.CppCompileError")

    def test_classifies_an_expected_exception_by_its_innermost_message(self):
        def data_dependent():
            try:
                raise RuntimeError("Could not guard on data-dependent expression u0 < 4")
            except RuntimeError as error:
                raise InductorError(error, None) from None

        described = exceptions.describe_exception(raised(data_dependent), TORCH_ROOT)
        self.assertEqual(exceptions.classify_exception(described), "data-dependent")
        plain = exceptions.describe_exception(raised(lambda: 1 / 0), TORCH_ROOT)
        self.assertIsNone(exceptions.classify_exception(plain))


if __name__ == "__main__":
    unittest.main()
