"""bench/injected_bugs: each injected bug rewrites its trigger and leaves other code alone; loaded
through PYTHONPATH (sitecustomize), one fires inside torch.compile and logs its case."""

import json
import os
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
        self.assertEqual(len(everything), 8)
        self.assertEqual([bug.id for bug in inject.selected(None)], everything)
        self.assertEqual([bug.id for bug in inject.selected("all")], everything)
        self.assertEqual(inject.selected("none"), [])
        first = inject.BUGS[0]
        self.assertEqual(inject.selected(f"{first.kind}"), [first])
        self.assertEqual(inject.selected(first.id), [first])


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


class LoadedThroughPythonPathTest(unittest.TestCase):
    def test_a_bug_fires_on_its_trigger_only(self):
        python = os.path.join(ROOT, ".venv", "bin", "python")
        if not os.path.exists(python):
            self.skipTest("no .venv (scripts/setup makes it)")
        bug = next(bug for bug in inject.BUGS if bug.where == "lowering")
        with tempfile.TemporaryDirectory() as scratch:
            log = os.path.join(scratch, "inject.jsonl")
            env = dict(
                os.environ,
                PYTHONPATH=BENCH,  # every bug on (the default): only the lowering one matches
                INDUCTOR_FUZZ_INJECT_LOG=log,
                SCRATCH=scratch,
                TORCHINDUCTOR_FX_GRAPH_CACHE="0",
                TORCHINDUCTOR_AUTOGRAD_CACHE="0",
                TORCHINDUCTOR_COMPILE_THREADS="1",
            )
            env.pop("INDUCTOR_FUZZ_INJECT", None)
            done = subprocess.run(
                [python, "-c", COMPILING], env=env, capture_output=True, text=True, timeout=300
            )
            self.assertEqual(done.returncode, 0, done.stderr[-2000:])
            results = json.loads(done.stdout.strip().splitlines()[-1])
            with open(log, encoding="utf-8") as lines:
                firings = [json.loads(line) for line in lines]
        self.assertIn(f"{inject.MARK}: {bug.id}", results["trigger"])
        self.assertTrue(results["plain_matches_eager"])
        self.assertEqual([(f["bug"], f["index"]) for f in firings], [(bug.id, 1)])


if __name__ == "__main__":
    unittest.main()
