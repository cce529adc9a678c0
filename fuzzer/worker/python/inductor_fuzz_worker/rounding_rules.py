"""The rules of the rounding judge (value_judge.py): what each op may add to its result's error
bound or unstable marks, by name, and the helpers that compute one op's share.

The tables say which ops are exact, correctly rounded, approximated, casts, movements or
reductions; the helpers turn an op's result (with its float64 base and, for a 16-bit result,
its float32 one) into its own rounding, the elements where it is exact, and the marks of an
overflow or an undefined cast. What IEEE 754, C or an op's documentation leaves open is
unspecified_rules.py's table. RoundingTracker in value_judge.py applies them op by op
(value_judge's docstring says how it all fits together).

Like comparisons.py, the repro script embeds this file verbatim (before value_judge.py); it
imports nothing from its package, only torch, lazily.
"""

# Units in the last place one op's result may differ by between eager and compiled: eager rounds
# a 16-bit result to 16 bits where Inductor keeps float32, and transcendental functions differ
# by an ulp or two between Sleef and the C library.
ROUNDING_ULPS = 4
# An op of more floating inputs with an error than this is not evaluated at the corners of their
# error boxes (2 ** n evaluations); its inputs' largest bound passes on, as for an unknown op.
MAX_PROBED_INPUTS = 3
# Special functions whose kernels are series, continued fractions or rational approximations:
# eager's and Inductor's float32 results of gammaincc differ by 20 to 150 ulps, bessel_j0 and
# chebyshev_polynomial_t by hundreds near their zeros (measured on torch 2.15, CPU), where an
# elementary function differs by one or two. Their results may differ by APPROXIMATION_ULPS
# float32 ulps (float64's for a float64 result), and by APPROXIMATION_FACTOR times eager's own
# distance from float64 where eager is farther: another approximation may err as much the other
# way. A name matches when it holds one of these words.
APPROXIMATED_FUNCTION_WORDS = ("gamma", "bessel", "polynomial", "airy", "zeta", "ndtr", "erfcx")
APPROXIMATED_FUNCTIONS = frozenset(
    {
        # 0.5 * x * (1 + erf(x / sqrt(2))) cancels in its left tail: eager's float32 value is
        # 1e-6 to 1e-4 from float64 there, Inductor's erf another amount (measured, torch 2.15).
        "gelu",
        "i0",
        "i0e",
        "i1",
        "i1e",
        "special_i0",
        "special_i0e",
        "special_i1",
        "special_i1e",
        "igamma",
        "igammac",
    }
)
APPROXIMATION_ULPS = 1024
APPROXIMATION_FACTOR = 8
# Ops whose result is exact in every precision (it is one of the inputs, or exactly
# representable whenever the inputs are): they add no rounding of their own. round() only without
# decimals.
NEVER_ROUNDING = frozenset(
    {
        "neg",
        "abs",
        "absolute",
        "pos",
        "positive",
        "clamp",
        "clip",
        "clamp_min",
        "clamp_max",
        "minimum",
        "maximum",
        "fmin",
        "fmax",
        "max",
        "min",
        "where",
        "floor",
        "ceil",
        "trunc",
        "fix",
        "round",
        "frac",
        "sign",
        "sgn",
        "fmod",
        "copysign",
        "nextafter",
        "heaviside",
        "nan_to_num",
    }
)
# Ops whose result depends on the dtype itself (its next value, its largest value): computed in
# float32 they are other ops, so a 16-bit result of theirs is not compared with float32's.
DTYPE_DEFINED_OPS = frozenset({"nextafter", "nan_to_num"})
# Ops correctly rounded in every precision: where eager's result equals the float64 one, it was
# exact, so the compiled one is the same, and no rounding is added (floor(2.0 * 3.5) is judged
# exactly). Not knowable for a float64 result, which always gets one. Division and remainders
# are left out: Inductor may compute them another way (a reciprocal, floor(a / b)).
EXACT_WHEN_REPRESENTABLE = frozenset(
    {"add", "radd", "sub", "rsub", "mul", "rmul", "square", "sqrt", "ldexp", "frexp"}
)
# Casts: only their first argument is a value (the second, a tensor, gives the dtype).
CAST_OPS = frozenset(
    {
        "to",
        "type",
        "type_as",
        "long",
        "int",
        "short",
        "char",
        "byte",
        "bool",
        "half",
        "float",
        "double",
        "bfloat16",
    }
)
# Ops that move their first argument's elements (or those of the tensors it lists) without
# computing: bounds and marks move with them. view() with a dtype is a bitcast, apart.
MOVEMENT_OPS = frozenset(
    {
        "getitem",
        "index_select",
        "gather",
        "take",
        "take_along_dim",
        "view",
        "view_as",
        "reshape",
        "reshape_as",
        "expand",
        "expand_as",
        "broadcast_to",
        "permute",
        "transpose",
        "swapaxes",
        "squeeze",
        "unsqueeze",
        "flatten",
        "unflatten",
        "ravel",
        "contiguous",
        "clone",
        "detach",
        "t",
        "movedim",
        "narrow",
        "select",
        "flip",
        "roll",
        "repeat",
        "tile",
        "cat",
        "concat",
        "concatenate",
        "stack",
    }
)
# Ops whose result does not depend on their input's values.
SHAPE_ONLY_OPS = frozenset({"zeros_like", "ones_like", "empty_like", "full_like"})
REDUCTION_OPS = frozenset(
    {
        "sum",
        "nansum",
        "mean",
        "prod",
        "amax",
        "amin",
        "max",
        "min",
        "argmax",
        "argmin",
        "any",
        "all",
        "count_nonzero",
    }
)


# Operators that change their left operand.
IN_PLACE_DUNDERS = frozenset(
    f"__{name}__"
    for name in (
        "setitem",
        "delitem",
        "iadd",
        "isub",
        "imul",
        "itruediv",
        "ifloordiv",
        "imod",
        "ipow",
        "iand",
        "ior",
        "ixor",
        "ilshift",
        "irshift",
        "imatmul",
    )
)
# The ops whose other tensor arguments are indices: a marked index moves another element there.
INDEXING_OPS = frozenset({"getitem", "index_select", "gather", "take", "take_along_dim"})


def _op_name(func):
    """A function's name without dunders: torch.Tensor.__lt__ and torch.lt are both "lt"."""
    return getattr(func, "__name__", "").strip("_")


def _in_place(func):
    name = getattr(func, "__name__", "")
    if name.startswith("__"):
        return name in IN_PLACE_DUNDERS
    return name.endswith("_")


def _tensor_leaves(tree):
    import torch
    from torch.utils._pytree import tree_leaves

    return [leaf for leaf in tree_leaves(tree) if isinstance(leaf, torch.Tensor)]


def _outputs(result):
    """An op's result tensors: one, or those of its tuple (frexp, max(dim))."""
    import torch

    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [r for r in result if isinstance(r, torch.Tensor)]
    return []


def _any(tensor):
    return tensor is not None and bool(tensor.any())


def _full(tensor, like, dtype):
    """`tensor` (None for zeros) broadcast to `like`'s shape, as a tensor of its own."""
    import torch

    if tensor is None:
        return torch.zeros(like.shape, dtype=dtype, device=like.device)
    return tensor.to(like.device).expand(like.shape).clone()


def _status(tensor):
    """0 for a number, 1 NaN, 2 +inf, 3 -inf: where a result's kind of value changes."""
    import torch

    if not tensor.is_floating_point():
        return torch.zeros(tensor.shape, dtype=torch.int8, device=tensor.device)
    return (
        tensor.isnan().to(torch.int8)
        + 2 * tensor.isposinf().to(torch.int8)
        + 3 * tensor.isneginf().to(torch.int8)
    )


def _unit(dtype):
    """One op's rounding of a result of `dtype`, as (relative, absolute): ROUNDING_ULPS units in
    the last place, and one step near zero: float16's and bfloat16's subnormal step (where
    rounding is absolute, at most half of it), float32's and float64's smallest normal (which a
    build that flushes subnormals to zero loses). No more near zero: a rounding never changes a
    sign, so floor(tiny) stays 0."""
    import torch

    info = torch.finfo(dtype)
    floor = info.smallest_normal
    if info.bits == 16:
        floor *= info.eps
    return ROUNDING_ULPS * info.eps, floor


def _rounding(name, out, exact, wide, base):
    """The rounding one op adds to its result `out`: none where the result is not a number (its
    kind of value is compared instead), nor where `exact` says the op rounded nothing.

    A 16-bit result given `wide`, the op computed in float32 as Inductor computes it, rounds by
    exactly their distance, and a few ulps of float32 more (another float32 library, a fused
    multiply-add) unless the op is correctly rounded and exact in float32 (`wide` equals the
    float64 `base`). The constants are float32's for both (0.3 is 0.300000011920929), so an
    exact float64 result alone says nothing there."""
    import torch

    value = out.detach().double()
    keep = value.isfinite()
    if exact is not None:
        keep &= ~exact
    if wide is not None:
        wide = wide.detach().double()
        bound = (value - wide).abs() + _float32_margin(name, wide, base)
        keep &= wide.isfinite()
    else:
        relative, absolute = _unit(out.dtype)
        bound = relative * value.abs() + absolute
    return torch.where(keep, bound, torch.zeros_like(bound))


def _is_approximated(name):
    return name in APPROXIMATED_FUNCTIONS or any(w in name for w in APPROXIMATED_FUNCTION_WORDS)


def _approximation(name, out, base):
    """What a special function's result may differ by between two of its approximations (see
    APPROXIMATED_FUNCTION_WORDS), zero for any other op and where the result is not a number."""
    import torch

    value = out.detach().double()
    if not _is_approximated(name):
        return torch.zeros_like(value)
    eps = torch.finfo(torch.float64 if out.dtype == torch.float64 else torch.float32).eps
    bound = APPROXIMATION_ULPS * eps * value.abs()
    if base.is_floating_point():
        bound = bound + APPROXIMATION_FACTOR * (value - base.detach().double()).abs()
    return torch.where(bound.isfinite() & value.isfinite(), bound, torch.zeros_like(bound))


def _float32_margin(name, wide, base):
    """How far Inductor's float32 result may be from `wide`, the op computed in float32 here:
    a few ulps (another float32 library, a fused multiply-add), none where a correctly rounded
    op is exact in float32 (`wide` equals the float64 `base`)."""
    import torch

    relative, _ = _unit(torch.float32)
    margin = relative * wide.abs()
    if name in EXACT_WHEN_REPRESENTABLE and base.dtype == torch.float64:
        margin = torch.where(wide == base, torch.zeros_like(margin), margin)
    return torch.where(margin.isfinite(), margin, torch.zeros_like(margin))


def _exact_elements(name, out, base, args, kwargs):
    """Where an op's float result `out` is exact, so that the compiled one is the same: a bool
    tensor, True everywhere for NEVER_ROUNDING ops, None where nothing is known. `base` is the
    op evaluated in float64 (on float inputs; an op of integers only is evaluated as eager)."""
    import torch

    value = out.detach().double()
    if name in NEVER_ROUNDING and not (name == "round" and kwargs.get("decimals", 0)):
        return torch.ones(out.shape, dtype=torch.bool, device=out.device)
    if name in CAST_OPS:  # exact where the value survives the cast
        return (value == args[0].detach().double()).expand(out.shape)
    # A 16-bit result is judged against float32 instead (see _rounding).
    if name in EXACT_WHEN_REPRESENTABLE and out.dtype == torch.float32:
        return value == base if base.dtype == torch.float64 else None
    return None


def _overflow_marks(name, out, base, args, wide):
    """Where a 16-bit result overflowed where Inductor's float32 need not: infinite where the op
    computed in float32 (`wide`) is finite, or when that is not known, the float64 `base` (for a
    cast, its input). Inductor stores it as infinite too, but a fused next op reads the float32
    value (x * 3 / 4 of 40000.0). 32- and 64-bit results overflow alike in both."""
    import torch

    if torch.finfo(out.dtype).bits != 16:
        return torch.zeros((), dtype=torch.bool, device=out.device)
    if wide is not None:
        finite = wide.isfinite()
    elif name in CAST_OPS:
        finite = args[0].detach().isfinite() if args[0].is_floating_point() else True
    elif base.dtype == torch.float64:
        finite = base.isfinite()
    else:
        return torch.zeros((), dtype=torch.bool, device=out.device)
    return out.detach().isinf() & finite


def _cast_range_marks(x, error, dtype):
    """Where a cast of floats `x` (with `error`) to integer `dtype` is undefined in C++: a value
    whose truncation does not fit, or that is not a number. Eager and Inductor then each return
    what their compiler made of it."""
    import torch

    info = torch.iinfo(dtype)
    x = x.detach().double()
    error = torch.zeros_like(x) if error is None else error
    # As floats: int64's bounds do not fit an op with a tensor.
    low, high = float(info.min) - 1, float(info.max) + 1
    return ~x.isfinite() | (x - error <= low) | (x + error >= high)


def _reduced_dims(x, args, kwargs):
    """The dimensions a reduction reduces (None: all) and whether it keeps them."""
    dim = kwargs.get("dim")
    if dim is None and len(args) > 1 and isinstance(args[1], (int, tuple, list)):
        dim = args[1]
    keepdim = kwargs.get(
        "keepdim", args[2] if len(args) > 2 and isinstance(args[2], bool) else False
    )
    if dim is None:
        return tuple(range(x.dim())), keepdim
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(d % max(x.dim(), 1) for d in dims), keepdim


def _reduce_any(marks, dims, keepdim):
    if marks is None:
        return None
    if not dims:
        return marks
    return marks.any(dim=dims, keepdim=keepdim)


def _prod(tensor, dims, keepdim):
    """prod over several dimensions (torch.prod takes one)."""
    for d in sorted(dims, reverse=True):
        tensor = tensor.prod(dim=d, keepdim=True)
    return tensor if keepdim else tensor.squeeze(dims) if dims else tensor


def _count(x, dims):
    count = 1
    for d in dims:
        count *= x.shape[d]
    return count


# Ops that sum many terms (matrix products, convolutions, normalisations, softmax, scans,
# scatters that accumulate): Inductor sums them in another order and blocking than eager, so
# their results differ by more than one rounding even on exact inputs. Each is judged by
# accumulated_bound: its inputs widened by the rounding of a sum of that many terms.
ACCUMULATING_OPS = frozenset(
    {
        "mm",
        "bmm",
        "addmm",
        "baddbmm",
        "addmv",
        "mv",
        "dot",
        "matmul",
        "linear",
        "einsum",
        "conv1d",
        "conv2d",
        "conv3d",
        "convolution",
        "softmax",
        "log_softmax",
        "layer_norm",
        "group_norm",
        "batch_norm",
        "instance_norm",
        "rms_norm",
        "var",
        "std",
        "var_mean",
        "std_mean",
        "logsumexp",
        "cumsum",
        "cumprod",
        "logcumsumexp",
        "avg_pool1d",
        "avg_pool2d",
        "adaptive_avg_pool1d",
        "adaptive_avg_pool2d",
        "interpolate",
        "upsample_bilinear2d",
        "scatter_add",
        "scatter_reduce",
        "index_add",
        "index_put",
        "norm",
        "cosine_similarity",
    }
)
# How many corners of the widened inputs accumulated_bound evaluates: all up, all down, and
# this many of random signs (a fixed generator, so that the judge is deterministic).
ACCUMULATED_RANDOM_CORNERS = 2


def accumulation_overflows(inputs):
    """Whether a sum of squares or products of these inputs may leave float32's range where
    eager accumulates in float64 (CPU var, std and the norms do): the largest magnitude
    squared, times the number of terms, beyond float32's largest value. Then eager's finite
    result and Inductor's infinity or NaN are both what the dtypes give."""
    import torch

    largest = 0.0
    for t in inputs:
        if t.is_floating_point() and t.numel():
            finite = t.detach().double().abs()
            finite = finite[finite.isfinite()]
            if finite.numel():
                largest = max(largest, float(finite.max()))
    return largest * largest * _terms(inputs) > torch.finfo(torch.float32).max


def _terms(inputs):
    """How many terms one result element of an accumulating op may sum: at most its inputs'
    largest extent (a matrix product's inner size, a normalised row's length), at least 1."""
    return max([1] + [max(t.shape, default=1) for t in inputs])


def accumulated_bound(func, args, kwargs, inputs, errors):
    """(outputs' float64 bases, their corners) of an accumulating op: its floating inputs
    widened by `errors` (id -> their own error bound, or absent) plus the rounding of a sum of
    `_terms` terms in float32 (float64 for a float64 input), at a few corners of the widened
    boxes. How far an output moves between its base and the corners is its error bound, and
    an integer output that moves there (cummax's indices) is unstable."""
    import torch
    from torch.utils._pytree import tree_map

    terms = _terms(inputs)
    widened = {}
    for t in inputs:
        if not t.is_floating_point():
            continue
        value = t.detach().double()
        step = torch.finfo(torch.float64 if t.dtype == torch.float64 else torch.float32).eps
        spread = (terms + 2) * ROUNDING_ULPS * step * value.abs()
        spread = torch.where(spread.isfinite(), spread, torch.zeros_like(spread))
        own = errors.get(id(t))
        widened[id(t)] = (value, spread if own is None else spread + own)

    def evaluate(signs):
        def wider(leaf):
            if not isinstance(leaf, torch.Tensor) or id(leaf) not in widened:
                return leaf
            value, spread = widened[id(leaf)]
            sign = signs(id(leaf), value)
            return value if sign is None else value + sign * spread

        return _outputs(func(*tree_map(wider, args), **tree_map(wider, kwargs)))

    generator = torch.Generator().manual_seed(0)

    def random_signs(_, value):
        return torch.randint(0, 2, value.shape, generator=generator).double() * 2 - 1

    base = evaluate(lambda *_: None)
    corners = [evaluate(lambda *_: 1.0), evaluate(lambda *_: -1.0)]
    corners += [evaluate(random_signs) for _ in range(ACCUMULATED_RANDOM_CORNERS)]
    return base, corners
