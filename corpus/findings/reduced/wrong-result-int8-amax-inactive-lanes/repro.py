# torch.compile on CPU: amax/amin of int8 or uint8 over a dimension of 8 or more elements takes
# the vector lanes Inductor's kernel did not load into the result (1 on 2.15.0, 0 on 2.6.0): a
# row whose values are all <= 0 gets amax 1, a row all >= 2 gets amin 1 (2.15.0). Known upstream: pytorch#191499.
# Found by inductor-fuzz's tensor programs (seed 120201, case 78); fails on 2.15.0 and 2.6.0.
import torch

x = -torch.arange(1, 21, dtype=torch.int8).reshape(1, 20)  # 20: past any host's tiling factor
y = torch.arange(2, 22, dtype=torch.uint8).reshape(1, 20)


def f(x, y):
    return torch.amax(x, dim=-1), torch.amin(y, dim=-1)


eager = f(x, y)
compiled = torch.compile(f)(x, y)
print("eager   ", [t.tolist() for t in eager])
print("compiled", [t.tolist() for t in compiled])
for e, c in zip(eager, compiled):
    torch.testing.assert_close(c, e)
