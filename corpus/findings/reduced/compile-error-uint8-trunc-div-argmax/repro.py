# compile-error|family=gcc|message=no matching function for call to 'argmax_combine(IndexValue<unsigned char>&, int&, int<N>_t&)'|option=
# Found by inductor-fuzz (issue 63, an op program of the seed-6464 campaign), reduced by hand.
import torch

print("torch", torch.__version__)


def f(x):
    quotient = torch.div(x, 3, rounding_mode="trunc")  # uint8 in, uint8 out
    return quotient.argmax(-1)


x = (torch.arange(63) * 37 % 251).to(torch.uint8).view(3, 21)
expected = f(x)
with torch._inductor.config.patch({"cpp.simdlen": 1}):  # Inductor's scalar C++
    actual = torch.compile(f)(x)
torch.testing.assert_close(actual, expected)
print("PASS: compiled and eager agree")
