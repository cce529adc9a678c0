"""bench/injected_bugs: each injected bug rewrites its trigger and leaves other code alone; loaded
through PYTHONPATH (sitecustomize), one fires inside torch.compile and logs its case."""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench", "injected_bugs")
sys.path.insert(0, BENCH)
try:
    import inductor_fuzz_inject as inject  # only the module: nothing is installed into torch here
finally:
    sys.path.remove(BENCH)

# Kernels in the shape Inductor writes them (trimmed).
PLAIN_KERNEL = """#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const float* in_ptr0,
                       float* out_ptr0)
{
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16L); x0+=static_cast<int64_t>(1L))
        {
            {
                {
                    auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];
                    auto tmp1 = std::sin(tmp0);
                    out_ptr0[static_cast<int64_t>(x0)] = tmp1;
                }
            }
        }
    }
}
"""


class RewritesTest(unittest.TestCase):
    def test_every_source_bug_leaves_a_plain_kernel_alone(self):
        for bug in inject.BUGS:
            if bug.where == "source":
                for unit in ("kernel", "wrapper"):
                    self.assertIsNone(bug.rewrite(PLAIN_KERNEL, unit), f"{bug.id} on {unit}")

    def test_every_source_bug_rewrites_its_trigger(self):
        for bug in inject.BUGS:
            if bug.where != "source":
                continue
            with self.subTest(bug=bug.id):
                unit = "wrapper" if "inductor_entry_impl" in bug.example else "kernel"
                result = bug.rewrite(bug.example, unit)
                self.assertIsNotNone(result)
                rewritten, _ = result
                self.assertIn(f"{inject.MARK}: {bug.id}", rewritten)
                self.assertNotEqual(rewritten, bug.example)

    def test_selection(self):
        everything = [bug.id for bug in inject.BUGS]
        self.assertEqual(len(everything), 17)
        self.assertEqual(len(set(everything)), len(everything))
        self.assertEqual(len({bug.kind for bug in inject.BUGS}), len(everything))
        self.assertEqual([entry["id"] for entry in inject.catalogue()], everything)
        self.assertEqual([bug.id for bug in inject.selected(None)], everything)
        self.assertEqual([bug.id for bug in inject.selected("all")], everything)
        self.assertEqual(inject.selected("none"), [])
        first = inject.BUGS[0]
        self.assertEqual(inject.selected(f"{first.kind}"), [first])
        self.assertEqual(inject.selected(first.id), [first])
        first_set = [bug.id for bug in inject.selected("first")]
        second_set = [bug.id for bug in inject.selected("second")]
        self.assertEqual(len(first_set), 13)
        self.assertEqual(second_set, [bug.id for bug in inject.SECOND_SET])
        self.assertEqual(first_set + second_set, everything)


SILENT = (
    "flex-scale-out",
    "flex-tail-dims",
    "flex-decode-offset",
    "flex-half-first-row",
    "create-mask-heads",
)


def bug(bug_id):
    return next(bug for bug in inject.BUGS if bug.id == bug_id)


def prefill(scalar="float", head_dim=32):
    """The flex prefill example (real 2.15 output, trimmed) with another dtype or head dim."""
    code = re.sub(r"\bfloat\b", scalar, bug("flex-scale-out").example)
    return code.replace("static_cast<int64_t>(32L);", f"static_cast<int64_t>({head_dim}L);")


class SilentMiscompilesTest(unittest.TestCase):
    """The five silent wrong-result bugs: each fires on its own trigger only, in one place."""

    def fires(self, bug_id, code):
        result = bug(bug_id).rewrite(code, "kernel")
        return result is not None and f"{inject.MARK}: {bug_id}" in result[0]

    def test_each_fires_on_its_own_example_only(self):
        for silent in SILENT:
            for other in inject.BUGS:
                if other.where != "source":
                    continue
                unit = "wrapper" if "inductor_entry_impl" in other.example else "kernel"
                with self.subTest(bug=silent, example=other.id):
                    self.assertEqual(
                        bug(silent).rewrite(other.example, unit) is not None, other.id == silent
                    )
                with self.subTest(bug=other.id, example=silent):
                    if other.id != silent:
                        self.assertIsNone(other.rewrite(bug(silent).example, "kernel"))

    def test_settings_pick_exactly_one_flex_bug(self):
        cases = {
            ("float", 16): "flex-scale-out",
            ("float", 32): "flex-scale-out",
            ("float", 64): "flex-tail-dims",
            ("at::BFloat16", 128): "flex-tail-dims",
            ("at::BFloat16", 32): "flex-half-first-row",
            ("at::Half", 16): "flex-half-first-row",
        }
        for (scalar, head_dim), expected in cases.items():
            code = prefill(scalar, head_dim)
            with self.subTest(scalar=scalar, head_dim=head_dim):
                self.assertEqual([s for s in SILENT if self.fires(s, code)], [expected])
        decoding = bug("flex-decode-offset").example
        self.assertEqual([s for s in SILENT if self.fires(s, decoding)], ["flex-decode-offset"])
        for scalar in ("at::BFloat16", "at::Half"):  # any dtype decodes wrong, never a prefill bug
            code = re.sub(r"\bfloat\b", scalar, decoding)
            self.assertEqual([s for s in SILENT if self.fires(s, code)], ["flex-decode-offset"])

    def test_rewrites_are_one_small_change(self):
        rewritten, where = bug("flex-scale-out").rewrite(prefill(), "kernel")
        self.assertEqual(where, "kernel")
        self.assertIn(
            "accum_t sum_reciprocal = static_cast<accum_t>(1.5) / qk_sum_data[row];", rewritten
        )
        rewritten, _ = bug("flex-half-first-row").rewrite(prefill("at::BFloat16"), "kernel")
        self.assertIn(
            "(row == 0 ? static_cast<accum_t>(-1) : static_cast<accum_t>(1)) / qk_sum_data[row];",
            rewritten,
        )
        rewritten, _ = bug("flex-tail-dims").rewrite(prefill(head_dim=64), "kernel")
        self.assertIn(
            "for (int64_t col = headSize_v - 4; col < headSize_v; ++col) { (out_data + "
            "i * oStrideB + j * oStrideH + m * oStrideM + row * oStrideM)[col] = "
            "static_cast<scalar_t>(0); }",
            rewritten,
        )
        rewritten, _ = bug("flex-decode-offset").rewrite(
            bug("flex-decode-offset").example, "kernel"
        )
        self.assertIn("return x * Vec(sum_reciprocal) + Vec(0.25f); },", rewritten)
        for code in (prefill(), prefill(head_dim=64), bug("flex-decode-offset").example):
            for silent in SILENT[:4]:
                result = bug(silent).rewrite(code, "kernel")
                if result:  # one line changed or added, nothing else
                    self.assertLessEqual(len(result[0].splitlines()) - len(code.splitlines()), 1)

    def test_create_mask_heads(self):
        example = bug("create-mask-heads").example
        rewritten, where = bug("create-mask-heads").rewrite(example, "kernel")
        self.assertEqual(where, "kernel")
        self.assertEqual(rewritten.count("inductor_fuzz_injected::flip_store(tmp6, out_ptr0 + "), 2)
        self.assertIn("static_cast<int64_t>(2L), x0 > 0);", rewritten)
        self.assertIn("template <typename V> inline void flip_store", rewritten)
        # Scalar stores (no vectorization) flip too, with no helper.
        scalar = example.replace(
            "tmp6.store(out_ptr0 + static_cast<int64_t>(x2 + 50L*x1 + 3200L*x0), static_cast<int64_t>(16));",
            "out_ptr0[static_cast<int64_t>(x2 + 50L*x1 + 3200L*x0)] = tmp6;",
        )
        rewritten, _ = bug("create-mask-heads").rewrite(scalar, "kernel")
        self.assertIn(
            "out_ptr0[static_cast<int64_t>(x2 + 50L*x1 + 3200L*x0)] = (x0 > 0) != "
            "static_cast<bool>(tmp6);",
            rewritten,
        )
        # Not a 2-deep nest (one head and batch), not oob-store's eight threads, not a kernel
        # writing create_block_mask's int32 tables.
        two_deep = example.replace("for(int64_t x2=", "for(int64_t x9=")
        eight = example.replace("#pragma omp parallel\n", "#pragma omp parallel num_threads(8)\n")
        tables = example.replace(
            "kernel(bool* out_ptr0)", "kernel(bool* out_ptr0, int32_t* out_ptr1)"
        )
        for code in (two_deep, eight, tables):
            self.assertNotEqual(code, example)
            self.assertIsNone(bug("create-mask-heads").rewrite(code, "kernel"))

    def test_one_case_is_one_folder_whatever_inductor_compiles_in(self):
        case = "/c/case-121/inductor-cache"
        for inside in (
            case,
            case + "/tmpt_5rc57q",
            case + "/tmp5ftc6pau/a3",
            "/c/case-121/probe-3/inductor-cache/tmpx",
            "/c/case-121/probe-3/probe-0/inductor-cache",
            "/c/case-121/sanitized/cache",
        ):
            self.assertEqual(inject.case_folder(inside), "/c/case-121")
        self.assertNotEqual(inject.case_folder("/c/case-12/inductor-cache"), "/c/case-121")
        for inside in ("/o/inductor-cache/tmpa", "/o/probe/probe-2/inductor-cache"):
            self.assertEqual(inject.case_folder(inside), "/o")

    def test_only_a_cases_first_bug_fires_in_its_recompiles_and_reruns(self):
        # A recompile in a fresh temporary folder and a probe's rerun, in this process or in
        # another (a crash's rerun starts a new worker), are still the case.
        os.environ.pop(inject.EXCLUSIVE_ENV, None)
        first, second = bug("flex-half-first-row"), bug("flex-scale-out")
        with tempfile.TemporaryDirectory() as scratch:
            case = os.path.join(scratch, "case-121")
            os.makedirs(case)
            inject.reset()
            context = {"case": "s1-121", "index": 121, "cache_dir": case + "/inductor-cache/tmpa"}
            self.assertTrue(inject._may_fire(first, context))
            inject.reset()  # what a new process knows
            for later in (case + "/inductor-cache/tmpb", case + "/probe-0/inductor-cache/tmpc"):
                self.assertFalse(inject._may_fire(second, dict(context, cache_dir=later)))
                self.assertTrue(inject._may_fire(first, dict(context, cache_dir=later)))
            other = os.path.join(scratch, "case-122", "inductor-cache")
            self.assertTrue(inject._may_fire(second, dict(context, cache_dir=other)))
        inject.reset()

    def test_a_bug_only_the_matrix_sees_fires_only_where_it_runs(self):
        clang_only, everywhere = bug("clang-only-value"), bug("flex-scale-out")
        self.assertTrue(clang_only.needs_matrix)
        self.assertFalse(everywhere.needs_matrix)
        saved = os.environ.pop(inject.MATRIX_EVERY_ENV, None)
        try:
            self.assertTrue(inject.seen_by_matrix({"index": 7}))  # K unknown: anywhere
            os.environ[inject.MATRIX_EVERY_ENV] = "8"
            self.assertTrue(inject.seen_by_matrix({"index": 16}))
            self.assertFalse(inject.seen_by_matrix({"index": 7}))
            os.environ[inject.MATRIX_EVERY_ENV] = "0"  # no matrix: nothing sees it
            self.assertFalse(inject.seen_by_matrix({"index": 16}))
            os.environ[inject.MATRIX_EVERY_ENV] = "8"
            with tempfile.TemporaryDirectory() as scratch:
                inject.reset()
                os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(scratch, "case-7", "cache")
                code = clang_only.example
                self.assertEqual(inject.rewrite_source(code, "kernel", [clang_only]), code)
                os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(scratch, "case-8", "cache")
                self.assertNotEqual(inject.rewrite_source(code, "kernel", [clang_only]), code)
        finally:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
            os.environ.pop(inject.MATRIX_EVERY_ENV, None)
            if saved is not None:
                os.environ[inject.MATRIX_EVERY_ENV] = saved
            inject.reset()


# Runs in a fresh venv python with bench/injected_bugs on PYTHONPATH, as the campaign's workers do.
COMPILING = r"""
import json, os, torch
results = {}
x = torch.linspace(-2, 2, 64)
os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(os.environ["SCRATCH"], "case-1", "inductor-cache")
try:
    torch.compile(lambda t: torch.tanh(t) * 2)(x)
    results["trigger"] = "compiled"
except Exception as error:
    results["trigger"] = f"{type(error).__name__}: {error}"
torch._dynamo.reset()
os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(os.environ["SCRATCH"], "case-2", "inductor-cache")
compiled = torch.compile(lambda t: torch.relu(t) * 2)(x)
results["plain_matches_eager"] = bool(torch.equal(compiled, torch.relu(x) * 2))
print(json.dumps(results))
"""

# flex_attention's flash-decoding template (Q_LEN 1, KV_LEN 512) compiled with every bug on, then
# with injection off; eager and compiled run in functions named as the worker's (case_context).
DECODING = r"""
import json, os, torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention
torch.manual_seed(0)
q, k, v = torch.randn(1, 2, 1, 16), torch.randn(1, 2, 512, 16), torch.randn(1, 2, 512, 16)
mask = create_block_mask(lambda b, h, q_idx, kv_idx: kv_idx >= 0, 1, 1, 1, 512, device="cpu")
def run_eager():
    return flex_attention(q, k, v, block_mask=mask)
def run_compiled():
    return torch.compile(flex_attention)(q, k, v, block_mask=mask)
results = {}
for index, label in ((3, "injected"), (4, "off")):
    if label == "off":
        os.environ["INDUCTOR_FUZZ_INJECT"] = "none"
        torch._dynamo.reset()
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(
        os.environ["SCRATCH"], f"case-{index}", "inductor-cache")
    difference = run_compiled() - run_eager()
    results[label] = [difference.min().item(), difference.max().item()]
print(json.dumps(results))
"""

# A block mask whose xor the tables see: compiled with every bug on, against eager.
BLOCK_MASK_XOR = r"""
import json, os, torch
from torch.nn.attention.flex_attention import create_block_mask
def mask(b, h, q_idx, kv_idx):
    return torch.logical_xor((q_idx // 256) == (kv_idx // 256), kv_idx % 2 == 0)
def run_eager():
    return create_block_mask(mask, 1, 1, 512, 512, device="cpu")
def run_compiled():
    return torch.compile(create_block_mask)(mask, 1, 1, 512, 512, device="cpu")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(os.environ["SCRATCH"], "case-5", "inductor-cache")
eager, compiled = run_eager(), run_compiled()
print(json.dumps({"eager": eager.kv_num_blocks.flatten().tolist(),
                  "compiled": compiled.kv_num_blocks.flatten().tolist()}))
"""


def run_with_injection(test, script):
    """(the script's last stdout line as JSON, the injection log's records)."""
    python = os.path.join(ROOT, ".venv", "bin", "python")
    if not os.path.exists(python):
        test.skipTest("no .venv (scripts/setup makes it)")
    with tempfile.TemporaryDirectory() as scratch:
        log = os.path.join(scratch, "inject.jsonl")
        env = dict(
            os.environ,
            PYTHONPATH=BENCH,  # every bug on (the default): only the one of the trigger matches
            INDUCTOR_FUZZ_INJECT_LOG=log,
            SCRATCH=scratch,
            TORCHINDUCTOR_FX_GRAPH_CACHE="0",
            TORCHINDUCTOR_AUTOGRAD_CACHE="0",
            TORCHINDUCTOR_COMPILE_THREADS="1",
        )
        env.pop("INDUCTOR_FUZZ_INJECT", None)
        done = subprocess.run(
            [python, "-c", script], env=env, capture_output=True, text=True, timeout=300
        )
        test.assertEqual(done.returncode, 0, done.stderr[-2000:])
        results = json.loads(done.stdout.strip().splitlines()[-1])
        with open(log, encoding="utf-8") as lines:
            return results, [json.loads(line) for line in lines]


class LoadedThroughPythonPathTest(unittest.TestCase):
    def test_a_bug_fires_on_its_trigger_only(self):
        bug = next(bug for bug in inject.BUGS if bug.where == "lowering")
        results, firings = run_with_injection(self, COMPILING)
        self.assertIn(f"{inject.MARK}: {bug.id}", results["trigger"])
        self.assertTrue(results["plain_matches_eager"])
        self.assertEqual([(f["bug"], f["index"]) for f in firings], [(bug.id, 1)])

    def test_flash_decoding_output_is_offset_silently(self):
        results, firings = run_with_injection(self, DECODING)
        self.assertEqual([(f["bug"], f["index"]) for f in firings], [("flex-decode-offset", 3)])
        low, high = results["injected"]  # every element 0.25 above eager's
        self.assertAlmostEqual(low, 0.25, delta=1e-4)
        self.assertAlmostEqual(high, 0.25, delta=1e-4)
        self.assertLess(max(abs(x) for x in results["off"]), 1e-5)

    def test_a_block_mask_xor_computed_as_an_and_changes_the_tables(self):
        results, firings = run_with_injection(self, BLOCK_MASK_XOR)
        # The second set's block count matches the same kernel and is held back: one cause a case.
        taken = [(f["bug"], f["index"]) for f in firings if not f.get("suppressed")]
        self.assertEqual(taken, [("xor-as-and", 5)])
        self.assertEqual(results["eager"], [4, 4, 4, 4])  # every kv block partly kept
        self.assertNotEqual(results["compiled"], results["eager"])


if __name__ == "__main__":
    unittest.main()
