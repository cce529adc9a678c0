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
float64 one: any error); what unspecified_rules.py's table leaves open (a NaN's sign and bits,
the zero maximum() or fmin() returns of +0.0 and -0.0...), whose rule the record names; an
argmax whose maximum has a rival within the error bound. Integer ops are exact: their marks are
only their inputs' marks, so a flip there is a bug.

Marks and bounds follow the data: indexing and views move them as they move the values, where()
takes them from the branch it takes, reductions reduce them (a reduced element is unstable when
any of its elements is). An op the tracker does not know (neither elementwise, nor a view, an
index or a reduction it knows) passes on its inputs' largest bound and any mark everywhere.
What is left unknown: a NaN that arises in one precision only from values that carry no error,
and amplification between the corners of a box (a sawtooth whose period the error spans twice).

The per-op tables and the helpers that compute one op's share are in rounding_rules.py. Like
comparisons.py, the repro script embeds this file verbatim (after comparisons.py and
rounding_rules.py), so it imports nothing from its package but those two, with a fallback.
"""

try:
    from .comparisons import compare_tensors, exact_how, exact_where
    from .rounding_rules import (
        ACCUMULATING_OPS,
        CAST_OPS,
        DTYPE_DEFINED_OPS,
        INDEXING_OPS,
        MAX_PROBED_INPUTS,
        MOVEMENT_OPS,
        REDUCTION_OPS,
        ROUNDING_ULPS,
        SHAPE_ONLY_OPS,
        _any,
        _approximation,
        _cast_range_marks,
        _count,
        _exact_elements,
        _float32_margin,
        _full,
        _in_place,
        _op_name,
        _outputs,
        _overflow_marks,
        _prod,
        _reduce_any,
        _reduced_dims,
        _rounding,
        _status,
        _tensor_leaves,
        _unit,
        accumulated_bound,
        accumulation_overflows,
    )
    from .unspecified_rules import UnspecifiedRules, unspecified_reasons
except ImportError:  # pasted into a repro script, after the text of the modules above
    pass


class RoundingRules(UnspecifiedRules):
    """RoundingTracker's rules (it is this class as a TorchFunctionMode, see _tracker_class):
    follows every tensor an eager program makes with its error bound and unstable marks (the
    module's docstring says how). allowance(result) reads them for the result."""

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
        import torch

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
        import torch

        name = _op_name(func)
        inputs = _tensor_leaves((args, kwargs))
        outputs = _outputs(result)
        if _in_place(func):
            self.unknown(args, kwargs, args[0] if args else None)
            if name in ACCUMULATING_OPS and isinstance(args[0], torch.Tensor):
                self.accumulated_in_place(args[0], inputs)
            return
        if not outputs or not inputs or name in SHAPE_ONLY_OPS:
            return
        if name == "view" and self.bitcast_dtype(args, kwargs) is not None:
            self.bitcast(args[0], outputs[0])
        elif name in MOVEMENT_OPS:
            self.move(func, args, kwargs, outputs[0])
        elif name in ACCUMULATING_OPS and any(t.is_floating_point() for t in inputs):
            # Before the elementwise ops: softmax, the norms and the scans keep their shape.
            self.accumulate(func, args, kwargs, inputs, outputs)
        elif self.elementwise(inputs, outputs):
            self.compute(func, name, args, kwargs, inputs, outputs)
        elif name in REDUCTION_OPS:
            self.reduce(name, args, kwargs, outputs)
        else:
            self.unknown(args, kwargs, result)
        self.tie_index_marks(name, args, kwargs, outputs)

    @staticmethod
    def bitcast_dtype(args, kwargs):
        import torch

        dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
        return dtype if isinstance(dtype, torch.dtype) else None

    @staticmethod
    def elementwise(inputs, outputs):
        import torch

        try:
            shape = torch.broadcast_shapes(*(t.shape for t in inputs))
        except RuntimeError:
            return False
        return all(out.shape == shape for out in outputs)

    def moved_marks(self, func, args, kwargs, out):
        """The marks of the moved tensors moved the same way, and those of the other tensor
        arguments (indices) where they broadcast to the result: an index that may differ
        moves a different element there."""
        import torch

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
        import torch

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
            open_bits = self.nan_bits_marks(value)
            widened = self.widened.get(id(x))
            if widened is not None and widened[0] is x:
                # Inductor rounds its float32 value to 16 bits here, as eager did: the bits
                # are eager's unless that rounding may go the other way.
                _, wide, spread = widened
                for end in (wide - spread, wide + spread):
                    open_bits |= (end.to(value.dtype) != value) & ~value.isnan()
            elif _any(error):
                open_bits |= error > 0
            marks = open_bits if marks is None else marks | open_bits
        if marks is not None and marks.shape != out.shape:  # another element size
            marks = marks.any().expand(out.shape)
        self.keep(out, None, marks)

    def joined_marks(self, name, args, kwargs, inputs, shape):
        """The inputs' marks where the result is; where() takes them from the branch it
        takes, and from its condition."""
        import torch

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
        import torch
        from torch.utils._pytree import tree_map

        values = [args[0]] if name in CAST_OPS else inputs
        floating = {id(t) for t in values if isinstance(t, torch.Tensor) and t.is_floating_point()}
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
        import torch
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
        import torch

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
                unstable |= _cast_range_marks(args[0], self.of(args[0])[0], out.dtype).expand(shape)
            unstable |= self.unspecified_marks(name, args, kwargs, out, index).expand(shape)
            own = unstable if marks is None else unstable | marks
            self.keep(out, error if out.is_floating_point() else None, own)

    @staticmethod
    def moved_by(out, base, corners):
        """(how far a floating output moves between its base and its corners, where an
        output moves by more than its bound: an integer or bool that changes, or a value
        whose kind (number, NaN, infinity) changes, in the output's dtype: a corner beyond
        float16's range is an overflow there)."""
        import torch

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
        import torch

        x = args[0]
        dims, keepdim = _reduced_dims(x, args, kwargs)
        error, marks = self.of(x)
        if x.is_floating_point() and error is not None:
            error = _full(error, x, torch.float64)
        marks = None if marks is None else _full(marks, x, torch.bool)
        if name in ("any", "all", "count_nonzero") and x.is_floating_point() and error is not None:
            # Whether a float is zero: unstable where it may be either.
            zero = (error > 0) & (x.detach().double().abs() <= error)
            marks = zero if marks is None else marks | zero
        reduced_marks = _reduce_any(marks, dims, keepdim)
        for out in outputs:
            if out.is_floating_point():
                zero = self.reduction_zero_marks(name, x, dims, keepdim, out).expand(out.shape)
                own = zero if reduced_marks is None else reduced_marks | zero
                self.keep(out, self.reduced_error(name, x, error, dims, keepdim, out), own)
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
        import torch

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

    def accumulate(self, func, args, kwargs, inputs, outputs):
        """An op that sums many terms (rounding_rules.ACCUMULATING_OPS): bounds from its
        widened inputs' corners (accumulated_bound), marks from its inputs' and from an
        integer output that moves."""
        errors = {id(t): self.of(t)[0] for t in inputs if _any(self.of(t)[0])}
        base, corners = accumulated_bound(func, args, kwargs, inputs, errors)
        marked = any(_any(self.of(t)[1]) for t in inputs) or accumulation_overflows(inputs)
        for index, out in enumerate(outputs):
            error, unstable = self.moved_by(out, base[index], [c[index] for c in corners])
            if marked:
                unstable |= True
            if out.is_floating_point():
                relative, absolute = _unit(out.dtype)
                error = 2 * error + relative * out.detach().double().abs() + absolute
            self.keep(out, error if out.is_floating_point() else None, unstable)

    def accumulated_in_place(self, out, inputs):
        """An accumulating op that updated its input (index_add_, scatter_add_, index_put_
        with accumulate): summed in another order, each element may differ by the rounding of
        as many terms as the op's inputs are long, at the result's magnitude."""
        import torch

        if not out.is_floating_point():
            return
        error, marks = self.of(out)
        value = out.detach().double().abs()
        step = torch.finfo(torch.float64 if out.dtype == torch.float64 else torch.float32).eps
        terms = sum(t.numel() for t in inputs)
        bound = (terms + 2) * ROUNDING_ULPS * step * value.amax() if value.numel() else value
        bound = _full(error, out, torch.float64) + bound
        self.keep(out, torch.where(bound.isfinite(), bound, torch.zeros_like(bound)), marks)

    def unknown(self, args, kwargs, result):
        """An op the rules do not cover: every result element gets its inputs' largest bound,
        and is unstable if any input element is, or if a float input carries an error and
        the result is not a float."""
        import torch

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


def _tracker_class():
    import torch

    class RoundingTracker(RoundingRules, torch.overrides.TorchFunctionMode):
        """RoundingRules as a TorchFunctionMode, made when torch is first needed (the module
        imports torch lazily)."""

    return RoundingTracker


def rounding_allowance(program, open_rules=None, fired=None):
    """Runs `program` (a function of no arguments, eager) under RoundingTracker: (its result,
    the result's error bound (None for an integer or bool result), its unstable marks). Only
    `open_rules` of unspecified_rules' table (all by default); those that marked something
    are added to the set `fired`."""
    tracker = _tracker_class()()
    if open_rules is not None:
        tracker.open_rules = open_rules
    with tracker:
        result = program()
    error, marks = tracker.allowance(result)
    if fired is not None:
        fired |= tracker.fired
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
        # An infinity is excused only by a mark: its distance and its limit are both infinite.
        excused |= ((left - right).abs() <= limit) & left.isfinite() & right.isfinite()
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
    fired = set()

    def excused_with(open_rules=None):
        rerun, error, marks = rounding_allowance(program, open_rules, fired)
        if tuple(rerun.shape) != tuple(eager.shape) or rerun.dtype != eager.dtype:
            raise ValueError("eager's second run has another shape or dtype")
        return differs & excused_elements(eager, compiled, error, marks)

    try:
        excused = excused_with()
        details = {f"{field}_excused": int(excused.sum())}
        details.update(unspecified_reasons(field, excused, fired, excused_with))
    except Exception as judge_error:  # judged exactly, and the reason said
        found[0]["excused"] = 0
        return found, {f"{field}_excused": 0, f"{field}_judge_error": repr(judge_error)}
    wrong = differs & ~excused
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
