# exception|type=builtins.AssertionError|message=(VR[-oo, int_oo], VR[-int_oo, -1])
# Found by inductor-fuzz (issue 47 campaign, seed 4747, case 312), reduced by inductor-fuzz reduce and by hand.
import torch

print("torch", torch.__version__)
table = torch.tensor([374, 375])


def f():
    i = torch.arange(4)
    return table[torch.minimum(torch.sign(i), torch.sign(i) // 1)]


torch.testing.assert_close(torch.compile(f)(), f())  # AssertionError in Inductor's value ranges
print("PASS: compiled and eager agree")
