# compile-error|family=gcc|message=no match for 'operator<=' (operand types are 'at::vec::CPU_CAPABILITY::Vectorized<bool>' and 'at::vec::CPU_CAPABILITY::VecMask<float, <N>>')|option=
# Found by inductor-fuzz (issue 63, an op program of the seed-6464 campaign), reduced by the tool
# (110 to 51 expression nodes), then by hand.
import torch

print("torch", torch.__version__)


def f():
    kv = torch.arange(7)
    flag = torch.logical_not(kv) <= False  # a bool tensor compared with a Python bool
    return flag.to(torch.float64)


expected = f()
actual = torch.compile(f)()
torch.testing.assert_close(actual, expected)
print("PASS: compiled and eager agree")
