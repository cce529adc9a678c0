# torch.sign of an int16 tensor, bit-cast to bfloat16 in the same CPU kernel: Inductor's scalar
# sign lambda returns `left - right` of two int16_t, which C++ promotes to int, and
# c10::bit_cast<c10::BFloat16>(int) has no overload (4 bytes to 2): CppCompileError.
# Fails on torch 2.15.0 and 2.6.0; eager gives the bit pattern as bfloat16.
import torch


def f(x):
    return torch.sign(x).view(torch.bfloat16).float() * 2


x = torch.arange(-40, 40, dtype=torch.int16)
print("eager", f(x)[:4])
print("compiled", torch.compile(f)(x)[:4])
