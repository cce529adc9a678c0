# compile-error|family=gcc|message=no match for 'operator<=' (operand types are 'at::vec::CPU_CAPABILITY::VecMask<signed char, <N>>' and 'at::vec::CPU_CAPABILITY::VecMask<float, <N>>')|option=
# Found by inductor-fuzz (issue 63's op programs, the seed-7070 op-surface campaign), reduced by hand.
import torch

print("torch", torch.__version__)


def f(a, b):
    flag = (a < b) <= False  # the mask of an int8 comparison, compared with a Python bool
    return flag.to(torch.float32)


a = torch.arange(64, dtype=torch.int8)
b = torch.arange(64, dtype=torch.int8).flip(0)
torch.testing.assert_close(torch.compile(f)(a, b), f(a, b))  # CppCompileError
print("PASS: compiled and eager agree")
