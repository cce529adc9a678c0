# exception|type=builtins.TypeError|message=Invalid NaN comparison|frame=utils/_sympy/value_ranges.py:coordinatewise_monotone_map
# Found by inductor-fuzz (the seed-6464 op-surface campaign, a dynamic-shape index program), reduced by hand.
import torch

print("torch", torch.__version__)


def f(x):
    i = torch.arange(x.shape[0])  # range [0, int_oo] with dynamic shapes
    return torch.div(i, i * 25 + 217, rounding_mode="trunc").to(x.dtype) + x


x = torch.rand(64, dtype=torch.float64)
torch._dynamo.mark_dynamic(x, 0)
torch.testing.assert_close(torch.compile(f)(x), f(x))  # TypeError: Invalid NaN comparison
print("PASS: compiled and eager agree")
