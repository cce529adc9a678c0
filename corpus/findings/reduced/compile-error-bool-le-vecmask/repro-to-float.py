# compile-error|family=gcc|message='struct at::vec::CPU_CAPABILITY::Vectorized<bool>' has no member named 'to'|option=
# The same construct as repro.py, failing on torch 2.6.0 too; found by the seed-6464 op-surface campaign.
import torch

print("torch", torch.__version__)


def f(x):
    flag = torch.logical_not(torch.arange(x.shape[0]))  # Vectorized<bool>, not a VecMask
    return torch.where(x > 0.5, x, flag)  # flag.to<double,2>(): no such member


x = torch.rand(64, dtype=torch.float64)
torch.testing.assert_close(torch.compile(f)(x), f(x))  # CppCompileError
print("PASS: compiled and eager agree")
