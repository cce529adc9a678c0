# compile-error|family=gcc|message=no matching function for call to 'convert<double, <N>, int<N>_t, <N>>(at::vec::CPU_CAPABILITY::VectorizedN<int, <N>>&)'|option=
# Found by inductor-fuzz (issue 63, op programs of the seed-6464 campaign), reduced by hand.
import torch

print("torch", torch.__version__)


def f(x):
    exponent = torch.frexp(x)[1]  # int32 exponents of float64 values
    return exponent.to(torch.float64)


x = torch.linspace(-5, 5, 64, dtype=torch.float64)
expected = f(x)
actual = torch.compile(f)(x)
torch.testing.assert_close(actual, expected)
print("PASS: compiled and eager agree")
