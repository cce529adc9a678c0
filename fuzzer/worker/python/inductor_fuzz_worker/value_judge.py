"""The judge of an index program's values: eager's against the compiled ones, where rounding is
no bug.

Inductor computes float16 and bfloat16 in float32 and rounds only when it stores, while eager
rounds after every op; its vectorized transcendental functions are not the C library's. So a
floating value may differ by a few units in the last place, and any op with a discontinuity
(floor, a comparison, a cast to an integer, a bitcast...) turns that into a different integer,
bool or step. The judge tells those apart from bugs:

- integer and bool results are exact, except *unstable* elements;
- floating results are equal when both are NaN or both the same infinity, and otherwise when
  within the element's *error bound*, or when unstable.

Both come from eager run again under RoundingTracker, a TorchFunctionMode that follows every
op's result with two tensors of its shape: an error bound (float64), how far the compiled value
may be from eager's by rounding, and unstable marks (bool), where it may differ by more. Each op
of floating inputs is evaluated again in float64 at the corners of its inputs' error boxes (x -
e and x + e, all sign combinations): how far the result moves is its error bound, plus a
rounding of a few units of its own dtype; an integer or bool result that moves, or a result
whose NaN or infinity changes, is unstable there. That covers every discontinuity (floor, ceil,
round, trunc, frac, sign, fmod, remainder, //, %, comparisons, casts, frexp's exponent) and
amplification (exp, division by a small number, sqrt near 0) without a list of each op's
discontinuities. A 16-bit result is also computed in float32, as Inductor computes it: its
rounding is their distance (with a few float32 ulps more unless the op is correctly rounded and
exact in float32), not a guess. Also unstable: a 16-bit infinity where float32 is finite
(Inductor's float32 need not overflow where eager's float16 does; a corner beyond the range
counts as infinite, so this replaces a "beyond half the range" rule, which marked every edge
value); a cast of a float outside the integer dtype's range (undefined in C++); a bitcast
(view(dtype)) of a float whose rounding to 16 bits may go either way (a computed float32 or
float64 one: any error), or of a NaN; what IEEE 754 leaves open (the sign of a NaN that signbit
or copysign reads, the zero maximum() returns of +0.0 and -0.0); an argmax whose maximum has a
rival within the error bound. Integer ops are exact: their marks are only their inputs' marks,
so a flip there is a bug.

Marks and bounds follow the data: indexing and views move them as they move the values, where()
takes them from the branch it takes, reductions reduce them (a reduced element is unstable when
any of its elements is). An op the tracker does not know (neither elementwise, nor a view, an
index or a reduction it knows) passes on its inputs' largest bound and any mark everywhere.
What is left unknown: a NaN that arises in one precision only from values that carry no error,
and amplification between the corners of a box (a sawtooth whose period the error spans twice).

Like comparisons.py, the repro script embeds this file verbatim (after comparisons.py), so it
imports nothing from its package but comparisons, with a fallback.
"""

try:
    from .comparisons import compare_tensors, exact_how, exact_where
except ImportError:  # pasted into a repro script, after comparisons' own text
    pass

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


# Ops that return one of two equal inputs: which zero (+0.0 or -0.0) when they tie is left to
# the implementation, and a later signbit, copysign, bitcast or 1 / x tells them apart.
TIE_OPS = frozenset(
    {"maximum", "minimum", "fmax", "fmin", "max", "min", "clamp", "clip", "clamp_min", "clamp_max"}
)


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


def _unspecified_marks(name, args, kwargs, out, index):
    """Where an elementwise op's result `out` (its output number `index`) is left open by IEEE
    754 or C, so that eager and Inductor may each choose: a sign read from a NaN (signbit,
    copysign), frexp's exponent of a NaN or an infinity, and the zero a TIE_OPS op returns when
    +0.0 ties with -0.0. A bool tensor that broadcasts to `out`."""
    import torch

    def nan(value):
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            return value.detach().isnan()
        return torch.zeros((), dtype=torch.bool, device=out.device)

    if name == "signbit":
        return nan(args[0])
    if name == "copysign" and len(args) > 1:
        return nan(args[1])
    if name == "frexp" and index == 1 and args[0].is_floating_point():
        return ~args[0].detach().isfinite()
    open_zero = torch.zeros((), dtype=torch.bool, device=out.device)
    if name in TIE_OPS and out.is_floating_point():
        sign = out.detach().signbit()
        for value in list(args) + list(kwargs.values()):
            if isinstance(value, float) and value == 0:
                value = torch.tensor(value, dtype=out.dtype, device=out.device)
            if isinstance(value, torch.Tensor) and value.is_floating_point():
                value = value.detach()
                open_zero = open_zero | ((out == 0) & (value == 0) & (value.signbit() != sign))
    return open_zero


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


def _tracker_class():
    import torch

    class RoundingTracker(torch.overrides.TorchFunctionMode):
        """Follows every tensor an eager program makes with its error bound and unstable marks
        (the module's docstring says how). allowance(result) reads them for the result."""

        def __init__(self):
            super().__init__()
            # id -> (tensor, error bound or None, marks or None); the tensor keeps its id alive.
            self.known = {}
            # id -> (16-bit tensor, its op computed in float32, how far Inductor's float32 value
            # may be from that): what a bitcast needs, since Inductor rounds to 16 bits there.
            self.widened = {}

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            result = func(*args, **kwargs)
            try:
                self.track(func, args, kwargs, result)
            except Exception:  # an op the rules did not foresee: judged as an unknown op
                self.unknown(args, kwargs, result)
            return result

        def allowance(self, result):
            """(error bound, marks) of `result`, both of its shape, on the CPU."""
            error, marks = self.of(result)
            error = _full(error, result, torch.float64) if result.is_floating_point() else None
            return error if error is None else error.cpu(), _full(marks, result, torch.bool).cpu()

        def of(self, tensor):
            entry = self.known.get(id(tensor))
            if entry is None or entry[0] is not tensor:
                return None, None
            return entry[1], entry[2]

        def keep(self, tensor, error, marks):
            error = error if _any(error) else None
            marks = marks if _any(marks) else None
            if error is None and marks is None:
                self.known.pop(id(tensor), None)
            else:
                self.known[id(tensor)] = (tensor, error, marks)

        def track(self, func, args, kwargs, result):
            name = _op_name(func)
            inputs = _tensor_leaves((args, kwargs))
            outputs = _outputs(result)
            if _in_place(func):
                self.unknown(args, kwargs, args[0] if args else None)
                return
            if not outputs or not inputs or name in SHAPE_ONLY_OPS:
                return
            if name == "view" and self.bitcast_dtype(args, kwargs) is not None:
                self.bitcast(args[0], outputs[0])
            elif name in MOVEMENT_OPS:
                self.move(func, args, kwargs, outputs[0])
            elif self.elementwise(inputs, outputs):
                self.compute(func, name, args, kwargs, inputs, outputs)
            elif name in REDUCTION_OPS:
                self.reduce(name, args, kwargs, outputs)
            else:
                self.unknown(args, kwargs, result)

        @staticmethod
        def bitcast_dtype(args, kwargs):
            dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
            return dtype if isinstance(dtype, torch.dtype) else None

        @staticmethod
        def elementwise(inputs, outputs):
            try:
                shape = torch.broadcast_shapes(*(t.shape for t in inputs))
            except RuntimeError:
                return False
            return all(out.shape == shape for out in outputs)

        def moved_marks(self, func, args, kwargs, out):
            """The marks of the moved tensors moved the same way, and those of the other tensor
            arguments (indices) where they broadcast to the result: an index that may differ
            moves a different element there."""
            moved = args[0] if isinstance(args[0], (list, tuple)) else [args[0]]
            marks = None
            if any(_any(self.of(t)[1]) for t in moved):
                full = [_full(self.of(t)[1], t, torch.bool) for t in moved]
                marks = func(
                    full if isinstance(args[0], (list, tuple)) else full[0], *args[1:], **kwargs
                )
            indices = _tensor_leaves((args[1:], kwargs)) if _op_name(func) in INDEXING_OPS else []
            for index in indices:
                index_marks = self.of(index)[1]
                if not _any(index_marks):
                    continue
                try:
                    spread = index_marks.expand(out.shape)
                except RuntimeError:  # not where the result's elements are: everywhere
                    spread = torch.ones(out.shape, dtype=torch.bool, device=out.device)
                marks = spread if marks is None else marks | spread
            return marks

        def move(self, func, args, kwargs, out):
            moved = args[0] if isinstance(args[0], (list, tuple)) else [args[0]]
            error = None
            if out.is_floating_point() and any(_any(self.of(t)[0]) for t in moved):
                full = [_full(self.of(t)[0], t, torch.float64) for t in moved]
                error = func(
                    full if isinstance(args[0], (list, tuple)) else full[0], *args[1:], **kwargs
                )
            self.keep(out, error, self.moved_marks(func, args, kwargs, out))

        def bitcast(self, x, out):
            """view(dtype): the same bits read as another dtype. A float that may be off by any
            amount reads as other bits; an exact one as the same, but for a NaN, whose sign and
            payload IEEE 754 leaves open (eager gave 0xffff where Inductor gave 0xfe00)."""
            error, marks = self.of(x)
            if x.is_floating_point():
                value = x.detach()
                open_bits = value.isnan()
                widened = self.widened.get(id(x))
                if widened is not None and widened[0] is x:
                    # Inductor rounds its float32 value to 16 bits here, as eager did: the bits
                    # are eager's unless that rounding may go the other way.
                    _, wide, spread = widened
                    for end in (wide - spread, wide + spread):
                        open_bits |= end.to(value.dtype) != value
                elif _any(error):
                    open_bits |= error > 0
                marks = open_bits if marks is None else marks | open_bits
            if marks is not None and marks.shape != out.shape:  # another element size
                marks = marks.any().expand(out.shape)
            self.keep(out, None, marks)

        def joined_marks(self, name, args, kwargs, inputs, shape):
            """The inputs' marks where the result is; where() takes them from the branch it
            takes, and from its condition."""
            if name == "where" and len(args) == 3 and isinstance(args[0], torch.Tensor):
                condition, left, right = args
                sides = [self.of(v)[1] if isinstance(v, torch.Tensor) else None for v in args[1:]]
                chosen = None
                if _any(sides[0]) or _any(sides[1]):
                    nothing = torch.zeros((), dtype=torch.bool, device=condition.device)
                    chosen = torch.where(
                        condition, *(nothing if m is None else m for m in sides)
                    ).expand(shape)
                own = self.of(condition)[1]
                if own is not None:
                    chosen = own.expand(shape) if chosen is None else chosen | own
                return chosen
            marks = None
            for t in inputs:
                own = self.of(t)[1]
                if own is not None:
                    own = own.expand(shape)
                    marks = own if marks is None else marks | own
            return marks

        def corners(self, func, name, args, kwargs, inputs):
            """The op evaluated in float64 on eager's inputs (the base), then at every corner of
            the error boxes of its inputs that carry an error: (base, corners), each a list of
            the op's output tensors; corners is None when too many inputs carry an error."""
            from torch.utils._pytree import tree_map

            values = [args[0]] if name in CAST_OPS else inputs
            floating = {
                id(t) for t in values if isinstance(t, torch.Tensor) and t.is_floating_point()
            }
            errors = {}
            for t in inputs:
                error = self.of(t)[0] if id(t) in floating else None
                if _any(error):
                    errors[id(t)] = error
            if len(errors) > MAX_PROBED_INPUTS:
                return None, None

            def evaluate(signs):
                def wider(leaf):
                    if not isinstance(leaf, torch.Tensor) or id(leaf) not in floating:
                        return leaf
                    value = leaf.detach().double()
                    sign = signs.get(id(leaf), 0)
                    return value + sign * errors[id(leaf)] if sign else value

                wider_args = tree_map(wider, args)
                wider_kwargs = tree_map(wider, kwargs)
                return _outputs(func(*wider_args, **wider_kwargs))

            import itertools

            base = evaluate({})
            corners = [
                evaluate(dict(zip(errors, combination, strict=True)))
                for combination in itertools.product((-1, 1), repeat=len(errors))
            ]
            return base, corners

        @staticmethod
        def in_float32(func, name, args, kwargs, out, index):
            """A 16-bit result as Inductor computes it: the op on its 16-bit inputs made float32
            (a cast to 16 bits, whose rounding Inductor may elide: its input). None for another
            result, or when the op does not take float32."""
            from torch.utils._pytree import tree_map

            if torch.finfo(out.dtype).bits != 16 or name in DTYPE_DEFINED_OPS:
                return None
            if name in CAST_OPS:
                return args[0] if args[0].is_floating_point() else None

            def wider(leaf):
                if isinstance(leaf, torch.Tensor) and leaf.dtype in (torch.float16, torch.bfloat16):
                    return leaf.detach().float()
                return leaf

            try:
                return _outputs(func(*tree_map(wider, args), **tree_map(wider, kwargs)))[index]
            except Exception:  # judged by ulps of the 16-bit dtype instead
                return None

        def compute(self, func, name, args, kwargs, inputs, outputs):
            """An elementwise op: bounds and marks from its corners (see corners)."""
            shape = outputs[0].shape
            marks = self.joined_marks(name, args, kwargs, inputs, shape)
            floats = [t for t in inputs if t.is_floating_point()]
            if not floats and not any(out.is_floating_point() for out in outputs):
                for out in outputs:
                    self.keep(out, None, marks)
                return
            base, corners = self.corners(func, name, args, kwargs, inputs)
            if base is None:
                self.unknown(args, kwargs, outputs)
                return
            for index, out in enumerate(outputs):
                error, unstable = self.moved_by(out, base[index], [c[index] for c in corners])
                if out.is_floating_point():
                    exact = _exact_elements(name, out, base[index], args, kwargs)
                    wide = self.in_float32(func, name, args, kwargs, out, index)
                    if wide is not None:
                        wide = wide.detach().double()
                        spread = error + _float32_margin(name, wide, base[index])
                        self.widened[id(out)] = (out, wide, spread)
                    error = error + _rounding(name, out, exact, wide, base[index])
                    error = error + _approximation(name, out, base[index])
                    unstable |= _overflow_marks(name, out, base[index], args, wide)
                elif name in CAST_OPS and out.dtype != torch.bool and args[0].is_floating_point():
                    unstable |= _cast_range_marks(args[0], self.of(args[0])[0], out.dtype).expand(
                        shape
                    )
                unstable |= _unspecified_marks(name, args, kwargs, out, index).expand(shape)
                own = unstable if marks is None else unstable | marks
                self.keep(out, error if out.is_floating_point() else None, own)

        @staticmethod
        def moved_by(out, base, corners):
            """(how far a floating output moves between its base and its corners, where an
            output moves by more than its bound: an integer or bool that changes, or a value
            whose kind (number, NaN, infinity) changes, in the output's dtype: a corner beyond
            float16's range is an overflow there)."""
            error = torch.zeros(out.shape, dtype=torch.float64, device=out.device)
            unstable = torch.zeros(out.shape, dtype=torch.bool, device=out.device)

            def kind_of(value):
                if value.is_floating_point() and out.is_floating_point():
                    return _status(value.to(out.dtype))
                return _status(value)

            kind = kind_of(base)
            for corner in corners:
                changed = kind_of(corner) != kind
                if corner.is_floating_point() and base.is_floating_point():
                    distance = (corner.double() - base.double()).abs()
                    distance = torch.where(
                        changed | ~distance.isfinite(), torch.zeros_like(distance), distance
                    )
                    error = torch.maximum(error, distance.expand(out.shape))
                    if not out.is_floating_point():  # float64 in the probe, an integer in eager
                        changed |= corner.double().to(out.dtype) != base.double().to(out.dtype)
                else:
                    changed |= corner != base
                unstable |= changed.expand(out.shape)
            return error, unstable

        def reduce(self, name, args, kwargs, outputs):
            x = args[0]
            dims, keepdim = _reduced_dims(x, args, kwargs)
            error, marks = self.of(x)
            if x.is_floating_point() and error is not None:
                error = _full(error, x, torch.float64)
            marks = None if marks is None else _full(marks, x, torch.bool)
            if (
                name in ("any", "all", "count_nonzero")
                and x.is_floating_point()
                and error is not None
            ):
                # Whether a float is zero: unstable where it may be either.
                zero = (error > 0) & (x.detach().double().abs() <= error)
                marks = zero if marks is None else marks | zero
            reduced_marks = _reduce_any(marks, dims, keepdim)
            for out in outputs:
                if out.is_floating_point():
                    self.keep(
                        out,
                        self.reduced_error(name, x, error, dims, keepdim, out),
                        reduced_marks,
                    )
                    continue
                out_marks = reduced_marks
                if name in ("argmax", "argmin", "max", "min") and error is not None:
                    rival = self.rival_marks(name, x, error, dims, keepdim)
                    out_marks = rival if out_marks is None else out_marks | rival
                self.keep(out, None, out_marks)

        @staticmethod
        def reduced_error(name, x, error, dims, keepdim, out):
            """The error bound of a floating reduction: its inputs' bounds, summed (sum, mean)
            or the largest (amax, amin), and the error of summing in another order."""
            count = _count(x, dims)
            magnitude = x.detach().double().abs()
            magnitude = torch.where(magnitude.isfinite(), magnitude, torch.zeros_like(magnitude))
            relative, absolute = _unit(out.dtype)
            if name in ("amax", "amin", "max", "min"):
                return None if error is None else error.amax(dim=dims, keepdim=keepdim)
            if name == "prod":
                spread = torch.zeros_like(magnitude) if error is None else error
                bound = _prod(magnitude + spread, dims, keepdim) - _prod(magnitude, dims, keepdim)
                bound = bound + count * relative * out.detach().double().abs()
            else:
                bound = count * (relative * magnitude + absolute)
                if error is not None:
                    bound = bound + error
                bound = bound.sum(dim=dims, keepdim=keepdim)
                if name == "mean":
                    bound = bound / count
            return torch.where(bound.isfinite(), bound, torch.zeros_like(bound))

        @staticmethod
        def rival_marks(name, x, error, dims, keepdim):
            """argmax (argmin): unstable where an element other than the extreme one is within
            both bounds of it, so that rounding may choose either."""
            values = x.detach().double()
            if name in ("argmin", "min"):
                values = -values
            best = values.amax(dim=dims, keepdim=True)
            best_error = error.amax(dim=dims, keepdim=True)
            near = values + error >= best - best_error
            rivals = near.sum(dim=dims, keepdim=keepdim) > 1
            inexact = (error > 0).any(dim=dims, keepdim=keepdim)
            return rivals & inexact

        def unknown(self, args, kwargs, result):
            """An op the rules do not cover: every result element gets its inputs' largest bound,
            and is unstable if any input element is, or if a float input carries an error and
            the result is not a float."""
            inputs = _tensor_leaves((args, kwargs))
            errors = [self.of(t)[0] for t in inputs if t.is_floating_point()]
            errors = [e for e in errors if e is not None]
            largest = max((float(e.max()) for e in errors), default=0.0)
            marked = any(_any(self.of(t)[1]) for t in inputs)
            for out in _outputs(result):
                shape_marks = marked or (largest > 0 and not out.is_floating_point())
                error = None
                if out.is_floating_point() and largest > 0:
                    error = torch.full(out.shape, largest, dtype=torch.float64, device=out.device)
                marks = None
                if shape_marks:
                    marks = torch.ones(out.shape, dtype=torch.bool, device=out.device)
                self.keep(out, error, marks)

    return RoundingTracker


def rounding_allowance(program):
    """Runs `program` (a function of no arguments, eager) under RoundingTracker: (its result,
    the result's error bound (None for an integer or bool result), its unstable marks)."""
    tracker = _tracker_class()()
    with tracker:
        result = program()
    error, marks = tracker.allowance(result)
    return result, error, marks


def excused_elements(eager, compiled, error, marks):
    """Where compiled may differ from eager by rounding: the unstable marks, and for a float
    result where it lies within the error bound (plus one more rounding of the result's dtype:
    the last op's, done once more by Inductor's store)."""
    excused = marks.clone()
    if eager.is_floating_point():
        left, right = eager.double(), compiled.double()
        relative, absolute = _unit(eager.dtype)
        limit = relative * left.abs() + absolute
        if error is not None:
            limit = limit + error
        excused |= (left - right).abs() <= limit
    return excused


def differing_elements(eager, compiled):
    """compare_tensors' differences: NaN equals NaN, an infinity the same infinity."""
    differs = eager != compiled
    if eager.is_floating_point():
        differs &= ~(eager.isnan() & compiled.isnan())
    return differs


def judge_values(eager, compiled, program, field="values"):
    """An index program's comparison, (mismatches, details): exact first (compare_tensors), and
    only when that finds differences, eager run again through `program` under RoundingTracker
    to excuse the differences rounding explains. The mismatch is compare_tensors' for the
    elements not excused, with "excused" the number that were; details give that number as
    "<field>_excused" whether or not a mismatch is left."""
    import torch

    found = compare_tensors(field, eager, compiled)
    if not found or "elements_differing" not in found[0]:
        return found, {}  # equal, or a shape, a dtype or a presence that differs: no rounding
    eager, compiled = eager.detach().cpu(), compiled.detach().cpu()
    differs = differing_elements(eager, compiled)
    try:
        rerun, error, marks = rounding_allowance(program)
        if tuple(rerun.shape) != tuple(eager.shape) or rerun.dtype != eager.dtype:
            raise ValueError("eager's second run has another shape or dtype")
        excused = differs & excused_elements(eager, compiled, error, marks)
    except Exception as judge_error:  # judged exactly, and the reason said
        found[0]["excused"] = 0
        return found, {f"{field}_excused": 0, f"{field}_judge_error": repr(judge_error)}
    wrong = differs & ~excused
    details = {f"{field}_excused": int(excused.sum())}
    if not bool(wrong.any()):
        return [], details
    first = torch.nonzero(wrong)[0].tolist()
    mismatch = {
        **found[0],
        "elements_differing": int(wrong.sum()),
        "first_index": first,
        "eager_value": eager[tuple(first)].item(),
        "compiled_value": compiled[tuple(first)].item(),
        "where": exact_where(wrong),
        "how": exact_how(wrong, eager.dtype),
        "excused": details[f"{field}_excused"],
    }
    return [mismatch], details
