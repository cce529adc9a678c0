# exception|type=builtins.AssertionError|message=operands must both be boolean ValueRanges or both non-boolean|frame=utils/_sympy/value_ranges.py:lt
# Found by inductor-fuzz (issue 63, an op program of seed 63, case 7), reduced by the tool to 11 statements, then by hand.
import torch

print("torch", torch.__version__)


def f():
    i = torch.arange(4)
    flags = torch.logical_xor(i, i) & True  # a bool tensor from integers
    return flags <= False  # compared with a Python bool


expected = f()
actual = torch.compile(f)()
torch.testing.assert_close(actual, expected)
print("PASS: compiled and eager agree")
