# exception|type=builtins.RuntimeError|message=index out of bounds: tmp1 < 256L
# Found by inductor-fuzz (issue 47 campaign, seed 4747, case 573), reduced by hand.
import torch

print("torch", torch.__version__)
table = torch.arange(256)


def f():
    i = torch.arange(100, dtype=torch.uint8)
    return table[(i * 3).long()]  # uint8 arithmetic wraps: 99 * 3 = 297 is 41, in range


expected = f()
torch.testing.assert_close(torch.compile(f)(), expected)
print("PASS: compiled and eager agree")
