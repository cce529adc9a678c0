# exception|type=builtins.TypeError|message=cannot determine truth value of Relational: ((170.0//2)) < 0
# Found by inductor-fuzz (issue 47 campaign, seed 4747, case 314), reduced by hand.
import torch

print("torch", torch.__version__)
doc = torch.arange(512) // 100


def f():
    i = torch.arange(512)
    return doc[torch.abs(torch.div(i, 3, rounding_mode="trunc")) // 2]


torch.testing.assert_close(torch.compile(f)(), f())  # TypeError in Inductor's value ranges
print("PASS: compiled and eager agree")
