"""What the rounding judge (value_judge.py) excuses because it is left open: a result that the
op's documentation, or the C or IEEE 754 function (or the instruction) Inductor maps it onto,
leaves unspecified, so that eager and Inductor may each choose and neither is wrong.

UNSPECIFIED_RULES is the table: one row a rule, with its name, the ops it covers, what is left
open, and its source (the sentence of the standard or the documentation that leaves it open).
UnspecifiedRules is the part of RoundingTracker that applies them: it marks an element unstable
where a rule leaves it open, but only for the rules it is told to open (all, by default), and
remembers which rules marked something. judge_values then says which rule excused which
elements: it judges again with no rule open and with each rule that marked something alone
(unspecified_reasons), and writes "<field>_unspecified" into the case's record, a list of
{rule, elements, open, source}. A difference that no rule leaves open stays wrong beside them.

Like comparisons.py, the repro script embeds this file verbatim (before value_judge.py); it
imports nothing from its package, only torch, lazily.
"""

# Ops that return one of two equal inputs, elementwise: which zero (+0.0 or -0.0) when they tie.
TIE_OPS = ("maximum", "minimum", "max", "min", "clamp", "clip", "clamp_min", "clamp_max")
FMIN_FMAX_OPS = ("fmax", "fmin")
ZERO_REDUCTION_OPS = ("amax", "amin", "max", "min")
# Ops that return the indices of values they choose, sort or rank: which of equal values.
TIE_INDEX_OPS = ("sort", "argsort", "topk", "median", "nanmedian", "mode", "kthvalue")

UNSPECIFIED_RULES = (
    {
        "name": "fmin-fmax-zero-sign",
        "ops": FMIN_FMAX_OPS,
        "open": "which zero fmin or fmax returns when +0.0 ties with -0.0 (a later signbit, "
        "copysign, 1 / x or bitcast tells them apart)",
        "source": "C11 7.12.12.2-3 and F.10.9.2 (fmax), footnote: 'Ideally, fmax would be "
        "sensitive to the sign of zero, for example fmax(-0.0, +0.0) would return +0; however, "
        "implementation in software might be impractical.'; IEEE 754-2008 5.3.1 minNum/maxNum: "
        "'Otherwise it is either x or y' (results might differ among implementations); "
        "torch.fmax/torch.fmin documentation: 'This is like torch.maximum except it handles "
        "NaNs differently', nothing of a zero's sign",
    },
    {
        "name": "min-max-zero-sign",
        "ops": TIE_OPS,
        "open": "which zero maximum, minimum, max, min or clamp returns when +0.0 ties with -0.0",
        "source": "torch.maximum, torch.minimum, torch.clamp documentation: nothing of a "
        "zero's sign; C++ std::max/std::min, which Inductor's C++ kernels emit, return the "
        "first argument when neither is less ([alg.min.max]); x86 MAXPS/MINPS, behind "
        "at::vec::maximum/minimum: 'If the values being compared are both 0.0s (of either "
        "sign), the value in the second operand (source operand) is returned' (Intel SDM)",
    },
    {
        "name": "min-max-reduction-zero-sign",
        "ops": ZERO_REDUCTION_OPS,
        "open": "which zero amax, amin, max or min returns when the extreme of a reduced slice "
        "is a zero of both signs (the order of the reduction decides)",
        "source": "torch.amax/torch.amin documentation: 'amax/amin evenly distributes gradient "
        "between equal values' (+0.0 and -0.0 are equal values), nothing of which is returned; "
        "torch.max(dim) names only which index; the reduction's order is Inductor's (its "
        "vector lanes, then a tail), each step the min-max-zero-sign choice",
    },
    {
        "name": "tie-indices",
        "ops": TIE_INDEX_OPS,
        "open": "which index of equal values (NaNs count as equal) sort (not stable), argsort, "
        "topk, median, nanmedian, mode or kthvalue returns: every index of a slice that holds "
        "equal values",
        "source": "torch.median/torch.nanmedian documentation: 'indices does not necessarily "
        "contain the first occurrence of each median value found, unless it is unique. The "
        "exact implementation details are device-specific.'; torch.sort/torch.argsort: "
        "'stable ... guarantees that the order of equivalent elements is preserved' (only "
        "then); torch.topk, torch.kthvalue, torch.mode: nothing of which index a tie gives",
    },
    {
        "name": "nan-sign",
        "ops": ("signbit", "copysign"),
        "open": "the sign bit of a NaN, which signbit reads and copysign copies",
        "source": "IEEE 754-2019 6.3: 'For all other operations, this standard does not "
        "specify the sign bit of a NaN result, even when there is only one input NaN, or when "
        "the NaN is produced from an invalid operation.'",
    },
    {
        "name": "nan-bits",
        "ops": ("view",),
        "open": "the bits of a NaN (its sign and payload) that a bitcast (view(dtype)) reads",
        "source": "IEEE 754-2019 6.2.3: 'If two or more inputs are NaN, then the payload of the "
        "resulting NaN should be identical to the payload of one of the input NaNs ... This "
        "standard does not specify which of the input NaNs will provide the payload.' (and "
        "only 'should' for one); 6.3 for its sign. Measured: eager 0xffff, Inductor 0xfe00",
    },
    {
        "name": "frexp-exponent-of-non-finite",
        "ops": ("frexp",),
        "open": "the exponent frexp gives for a NaN or an infinity",
        "source": "C11 F.10.3.4 frexp: 'frexp(+-inf, exp) returns +-inf, and stores an "
        "unspecified value in the object pointed to by exp. frexp(NaN, exp) stores an "
        "unspecified value in the object pointed to by exp (and returns a NaN).'",
    },
)
RULE_NAMES = tuple(rule["name"] for rule in UNSPECIFIED_RULES)


def _zero_ties(out, args, kwargs):
    """Where a tie op's zero result has an input zero of the other sign."""
    import torch

    open_zero = torch.zeros((), dtype=torch.bool, device=out.device)
    sign = out.detach().signbit()
    for value in list(args) + list(kwargs.values()):
        if isinstance(value, float) and value == 0:
            value = torch.tensor(value, dtype=out.dtype, device=out.device)
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            value = value.detach()
            open_zero = open_zero | ((out == 0) & (value == 0) & (value.signbit() != sign))
    return open_zero


def _nan(value, device):
    import torch

    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.detach().isnan()
    return torch.zeros((), dtype=torch.bool, device=device)


class UnspecifiedRules:
    """RoundingTracker's share of UNSPECIFIED_RULES: `open_rules` (the rule names it applies,
    all unless told) and `fired` (those that marked an element)."""

    def __init__(self):
        super().__init__()
        self.open_rules = frozenset(RULE_NAMES)
        self.fired = set()

    def opened(self, rule, marks):
        """`marks` where rule `rule` is open (and remembered as fired), else none."""
        import torch

        if rule not in self.open_rules or not bool(marks.any()):
            return torch.zeros_like(marks)
        self.fired.add(rule)
        return marks

    def unspecified_marks(self, name, args, kwargs, out, index):
        """Where an elementwise op's result `out` (its output number `index`) is left open:
        a bool tensor that broadcasts to `out`."""
        import torch

        if name == "signbit":
            return self.opened("nan-sign", _nan(args[0], out.device))
        if name == "copysign" and len(args) > 1:
            return self.opened("nan-sign", _nan(args[1], out.device))
        if name == "frexp" and index == 1 and args[0].is_floating_point():
            return self.opened("frexp-exponent-of-non-finite", ~args[0].detach().isfinite())
        if out.is_floating_point() and name in FMIN_FMAX_OPS:
            return self.opened("fmin-fmax-zero-sign", _zero_ties(out, args, kwargs))
        if out.is_floating_point() and name in TIE_OPS:
            return self.opened("min-max-zero-sign", _zero_ties(out, args, kwargs))
        return torch.zeros((), dtype=torch.bool, device=out.device)

    def tie_index_marks(self, name, args, kwargs, outputs):
        """A TIE_INDEX_OPS op: its integer outputs (the indices) marked in every slice of its
        input that holds equal values, added to what the tracker knows of them."""
        import torch

        x = args[0] if args else None
        if name not in TIE_INDEX_OPS or not isinstance(x, torch.Tensor) or not x.numel():
            return
        indices = outputs[0 if name == "argsort" else 1 :][:1]
        if kwargs.get("stable") or not indices or x.dim() == 0:
            return
        at = 2 if name in ("topk", "kthvalue") else 1
        dim = kwargs.get("dim", args[at] if len(args) > at and isinstance(args[at], int) else -1)
        dim %= x.dim()
        ordered = x.detach().sort(dim=dim).values
        equal = ordered.diff(dim=dim) == 0
        if ordered.is_floating_point():
            nan, size = ordered.isnan(), ordered.shape[dim] - 1
            equal |= nan.narrow(dim, 1, size) & nan.narrow(dim, 0, size)
        tied = equal.any(dim=dim, keepdim=True)
        for out in indices:
            marks = tied if out.dim() == x.dim() else tied.squeeze(dim)
            marks = self.opened("tie-indices", marks.expand(out.shape))
            error, known = self.of(out)
            self.keep(out, error, marks if known is None else known | marks)

    def nan_bits_marks(self, value):
        """A bitcast of floats `value`: where it reads a NaN's bits."""
        return self.opened("nan-bits", value.detach().isnan())

    def reduction_zero_marks(self, name, x, dims, keepdim, out):
        """A floating amax/amin/max/min `out` of `x` over `dims`: where it is a zero and its
        slice holds zeros of both signs."""
        import torch

        if name not in ZERO_REDUCTION_OPS or not out.is_floating_point():
            return torch.zeros((), dtype=torch.bool, device=out.device)
        zero = x.detach() == 0
        negative = x.detach().signbit()
        both = (zero & negative).any(dim=dims, keepdim=keepdim) if dims else zero & negative
        positive = zero & ~negative
        both = both & ((positive.any(dim=dims, keepdim=keepdim)) if dims else positive)
        return self.opened("min-max-reduction-zero-sign", both & (out.detach() == 0))


def unspecified_reasons(field, excused, fired, excused_with):
    """{"<field>_unspecified": [{rule, elements, open, source}...]} for the differing elements
    `excused` that only a rule of `fired` excuses; `excused_with(rules)` is the excused
    elements judged with only `rules` open. Empty when the rules excuse nothing by themselves."""
    if not fired:
        return {}
    only = excused & ~excused_with(frozenset())
    if not bool(only.any()):
        return {}
    reasons = []
    for rule in UNSPECIFIED_RULES:
        if rule["name"] not in fired:
            continue
        elements = int((only & excused_with(frozenset({rule["name"]}))).sum())
        if elements:
            reasons.append(
                {
                    "rule": rule["name"],
                    "elements": elements,
                    "open": rule["open"],
                    "source": rule["source"],
                }
            )
    return {f"{field}_unspecified": reasons}
