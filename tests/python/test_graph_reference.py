"""graph_reference.GraphReferences: every graph a program compiles gets a float64 reference of
its first calls' outputs, computed by running Dynamo's graph eagerly on copies of the inputs;
replay.outputs_agreement: whether two builds left bit-identical tensors.

The graphs are compiled for real by Inductor (a few seconds each).
"""

import math
import unittest

import torch
from inductor_fuzz_worker import graph_reference, replay


def fresh():
    torch._dynamo.reset()
    return graph_reference.GraphReferences()


class GraphReferenceTest(unittest.TestCase):
    def test_each_float_output_of_the_first_calls_gets_its_float64_reference(self):
        def function(x, w):
            return (x * w).sum(-1), torch.tanh(x) + 1, (x > 0).to(torch.int32)

        references = fresh()
        x = torch.randn(8, 33)
        w = torch.randn(33)
        with references.installed():
            compiled = torch.compile(function)
            results = [compiled(x + i, w) for i in range(3)]
        fields = sorted(entry["field"] for entry in references.entries)
        # two float outputs a call, the first two calls: the int32 output has no reference
        self.assertEqual(
            fields,
            [f"graph 0 call {c} output {o}" for c in (0, 1) for o in (0, 1)],
        )
        for entry in references.entries:
            call = int(entry["field"].split()[3])
            output = int(entry["field"].split()[5])
            self.assertTrue(torch.equal(entry["compiled"], results[call][output]))
            self.assertEqual(entry["reference"].dtype, torch.float64)
            expected = function((x + call).double(), w.double())[output]
            self.assertTrue(torch.allclose(entry["reference"], expected, rtol=0, atol=1e-12))
            self.assertGreaterEqual(entry["limit"], 4 * entry["eager_error"])
            self.assertGreater(entry["limit"], 0)
        self.assertEqual(references.skipped, [])

    def test_a_call_that_changes_its_input_is_referenced_on_the_input_it_was_given(self):
        def function(x):
            y = x * 3
            x.add_(1)
            return y

        references = fresh()
        x = torch.randn(16)
        before = x.clone()
        with references.installed():
            torch.compile(function)(x)
        self.assertEqual(len(references.entries), 1)
        self.assertTrue(
            torch.allclose(references.entries[0]["reference"], before.double() * 3, atol=1e-12)
        )

    def test_a_graph_that_draws_random_numbers_has_none_and_says_why(self):
        def function(x):
            return x + torch.rand_like(x)

        references = fresh()
        with references.installed():
            torch.compile(function)(torch.randn(4))
        self.assertEqual(references.entries, [])
        self.assertEqual(len(references.skipped), 1)
        self.assertIn("random numbers", references.skipped[0])

    def test_a_model_in_eval_mode_keeps_its_reference_through_its_dropouts(self):
        # Every transformer has dropout layers; under eval() they are the identity, no draw.
        torch.manual_seed(0)
        model = torch.nn.Sequential(
            torch.nn.Linear(16, 32),
            torch.nn.Dropout(0.1),
            torch.nn.GELU(),
            torch.nn.Linear(32, 8),
            torch.nn.Dropout(0.1),
        ).eval()
        references = fresh()
        x = torch.randn(4, 16)
        with references.installed(), torch.no_grad():
            compiled = torch.compile(model)(x)
        self.assertEqual(references.skipped, [])
        self.assertEqual(len(references.entries), 1)
        self.assertTrue(torch.equal(references.entries[0]["compiled"], compiled))

    def test_a_dropout_that_trains_still_draws_and_says_so(self):
        def function(x):
            return torch.nn.functional.dropout(x, 0.5, training=True) + 1

        references = fresh()
        with references.installed():
            torch.compile(function)(torch.randn(8))
        self.assertEqual(references.entries, [])
        self.assertEqual(len(references.skipped), 1)
        self.assertIn("dropout", references.skipped[0])

    def test_a_dropout_of_p_zero_is_the_identity(self):
        def function(x):
            return torch.nn.functional.dropout(x, 0.0, training=True) * 2

        references = fresh()
        with references.installed():
            torch.compile(function)(torch.randn(8))
        self.assertEqual(references.skipped, [])
        self.assertEqual(len(references.entries), 1)

    def test_the_hook_is_gone_after_the_capture(self):
        import torch._inductor.compile_fx as compile_fx_module

        before = compile_fx_module.compile_fx
        with fresh().installed():
            self.assertIsNot(compile_fx_module.compile_fx, before)
        self.assertIs(compile_fx_module.compile_fx, before)


class OutputsAgreementTest(unittest.TestCase):
    def test_identical_differing_and_nan(self):
        a = {"call 0 argument 1": torch.tensor([1.0, float("nan"), 3.0])}
        self.assertEqual(
            replay.outputs_agreement(a, {k: v.clone() for k, v in a.items()}),
            {"identical": True, "tensors": 1, "max_abs_difference": 0.0},
        )
        b = {"call 0 argument 1": torch.tensor([1.0, float("nan"), 3.5])}
        agreement = replay.outputs_agreement(a, b)
        self.assertFalse(agreement["identical"])
        self.assertEqual(agreement["max_abs_difference"], 0.5)
        c = {"call 0 argument 1": torch.tensor([1.0, 2.0, 3.0])}
        self.assertTrue(math.isinf(replay.outputs_agreement(a, c)["max_abs_difference"]))
        self.assertIsNone(replay.outputs_agreement(a, {})["max_abs_difference"])


if __name__ == "__main__":
    unittest.main()
