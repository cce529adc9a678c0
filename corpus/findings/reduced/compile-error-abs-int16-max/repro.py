import torch

print("torch", torch.__version__)


def f(x):  # max(|x|, 0) on int16: Inductor's scalar C++ is max_propagate_nan(std::abs(x), 0)
    return torch.maximum(torch.abs(x), x * 0)


x = torch.tensor([-3, 0, 2, -1, 5, 0, 7], dtype=torch.int16)
expected = f(x)
actual = torch.compile(f)(x)  # CppCompileError: no matching function for max_propagate_nan(int&, short int&)
torch.testing.assert_close(actual, expected)
print("PASS")
