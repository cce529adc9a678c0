"""How a compiled result compares with eager's and with the float64 reference: the mismatches
the oracles report, each saying where and how the result is wrong in a closed vocabulary
(docs/signature.md).

Like oracles.py, the repro script embeds this file verbatim (before oracles.py), so it imports
nothing from its own package, only the standard library and torch.
"""

import math

BLOCK_MASK_TENSORS = (
    "kv_num_blocks",
    "kv_indices",
    "full_kv_num_blocks",
    "full_kv_indices",
    "q_num_blocks",
    "q_indices",
    "full_q_num_blocks",
    "full_q_indices",
)
# A BlockMask's plain-integer fields: with a wrong one, the tensors are read with the wrong
# geometry even when they are right.
BLOCK_MASK_SIZES = ("BLOCK_SIZE", "seq_lengths")

# flex_attention against a float64 reference: the largest absolute error allowed, per dtype.
# The compiled output may also be as far off as four times eager's own error.
ATTENTION_TOLERANCE = {"float32": 1e-4, "bfloat16": 3e-2, "float16": 3e-3}
EAGER_ERROR_FACTOR = 4

# Every mismatch says where and how the result is wrong, each as one token of a closed
# vocabulary (docs/signature.md): raw positions change with the shape, so a bug key built from
# them would split one bug into a key per shape.
WHERE_TOKENS = (
    "fully-masked-rows",
    "block-first-rows",
    "after-block-first-rows",
    "tail-rows",
    "tail-columns",
    "some-heads",
    "everywhere",
    "scattered",
)
HOW_TOKENS = (
    "nan",
    "inf",
    "zero",
    "negated",
    "scale",
    "offset",
    "off",
    "unwritten",
    "flipped",
    "fewer",
    "more",
    "values",
    "shape",
)
# flex_attention's query block size when the case passes no block mask.
DEFAULT_BLOCK_Q = 128
# The smallest query block a first-rows pattern is read at: rows 0, 8, 16, ... are a block's
# first rows; rows 0, 2, 4, ... are every other row, which says nothing of blocks.
MIN_QUERY_BLOCK = 8
# A pattern ("zero", "scale", "offset") may miss a few wrong elements: a fit to a handful of
# outliers should not turn a scaled output into "off".
PATTERN_SHARE = 0.95
# The share of rows (flex_attention) or elements (exact comparisons) that is "everywhere".
EVERYWHERE_SHARE = 0.9


def _mask_slices(mask_mod, lengths, device):
    """mask_at(b, h): mask_mod over lengths = (Q_LEN, KV_LEN) at batch element b and head h, a
    bool tensor, evaluated once per (b, h) as create_mask evaluates it."""
    from torch.nn.attention import flex_attention as flex

    q_len, kv_len = (int(length) for length in lengths)
    slices = {}

    def mask_at(b, h):
        if (b, h) not in slices:

            def shifted(b_index, h_index, q_idx, kv_idx):
                return mask_mod(b_index + b, h_index + h, q_idx, kv_idx)

            slices[b, h] = flex.create_mask(shifted, 1, 1, q_len, kv_len, device=device)[0, 0]
        return slices[b, h]

    return mask_at


def _sizes(value):
    return [int(v) for v in value] if isinstance(value, (tuple, list)) else [int(value)]


def compare_block_masks(eager, compiled):
    mismatches = []
    for field in BLOCK_MASK_SIZES:
        left, right = _sizes(getattr(eager, field)), _sizes(getattr(compiled, field))
        if left != right:
            mismatches.append(
                {
                    "field": field,
                    "problem": "values differ",
                    "eager": left,
                    "compiled": right,
                    "where": "everywhere",
                    "how": "values",
                }
            )
    for field in BLOCK_MASK_TENSORS:
        found = compare_tensors(field, getattr(eager, field), getattr(compiled, field))
        if field.endswith("num_blocks"):
            for mismatch in found:
                mismatch["how"] = _count_how(
                    mismatch["how"], getattr(eager, field), getattr(compiled, field)
                )
        mismatches += found
    return mismatches


def _count_how(how, eager, compiled):
    """A block count's how: "fewer" when every wrong count is below eager's, "more" when every
    one is above; else how as compared. Whether a cause loses or gains blocks is the cause's;
    which rows, and whether they look like an unwritten tail, is the shape's."""
    if how not in ("values", "unwritten") or eager is None or compiled is None:
        return how
    eager, compiled = eager.detach().cpu(), compiled.detach().cpu()
    if eager.shape != compiled.shape:
        return how
    differs = eager != compiled
    if not bool(differs.any()):
        return how
    if bool((compiled[differs] < eager[differs]).all()):
        return "fewer"
    if bool((compiled[differs] > eager[differs]).all()):
        return "more"
    return how


def compare_tensors(field, eager, compiled):
    """Exact comparison of two tensors (or two Nones), NaN equal to NaN."""
    import torch

    if eager is None and compiled is None:
        return []
    if eager is None or compiled is None:
        return [
            {
                "field": field,
                "problem": "present in only one of the two",
                "eager": None if eager is None else "tensor",
                "compiled": None if compiled is None else "tensor",
                "where": "everywhere",
                "how": "shape",
            }
        ]
    eager, compiled = eager.detach().cpu(), compiled.detach().cpu()
    if eager.shape != compiled.shape or eager.dtype != compiled.dtype:
        return [
            {
                "field": field,
                "problem": "shape or dtype differs",
                "eager": f"{tuple(eager.shape)} {eager.dtype}",
                "compiled": f"{tuple(compiled.shape)} {compiled.dtype}",
                "where": "everywhere",
                "how": "shape",
            }
        ]
    differs = eager != compiled
    if eager.is_floating_point():
        differs &= ~(eager.isnan() & compiled.isnan())
    if not bool(differs.any()):
        return []
    first = torch.nonzero(differs)[0].tolist()
    return [
        {
            "field": field,
            "problem": "values differ",
            "elements_differing": int(differs.sum()),
            "elements": eager.numel(),
            "first_index": first,
            "eager_value": eager[tuple(first)].item(),
            "compiled_value": compiled[tuple(first)].item(),
            "where": exact_where(differs),
            "how": exact_how(differs, eager.dtype),
        }
    ]


def _tails(rows):
    """Whether every row of the 2-D bool `rows` is all False or a run of True to its end that
    starts after its first element, and some row is not all False. A loop split into a vector
    body and a scalar tail leaves such a run when it never writes the tail; a run from the first
    element is the whole row, which says nothing of a tail."""
    no_fall = ~(rows[:, :-1] & ~rows[:, 1:]).any(dim=1)
    return bool(rows.any()) and bool((no_fall & ~rows[:, 0]).all())


def _indices_used(mask, dim):
    """Which indices of dimension `dim` the True elements of `mask` use, a 1-D bool."""
    return mask.movedim(dim, 0).reshape(mask.shape[dim], -1).any(dim=1)


def _is_tail(flags):
    return _tails(flags.reshape(1, -1))


def exact_where(differs):
    """Where an exactly compared tensor differs, `differs` its mask: a WHERE_TOKENS token."""
    if differs.dim() >= 1 and _is_tail(_indices_used(differs, -1)):
        return "tail-columns"
    if differs.dim() >= 2 and _is_tail(_indices_used(differs, -2)):
        return "tail-rows"
    # Only with something under each (b, h) pair is a subset of them a subset of heads.
    if differs.dim() >= 3 and differs.shape[0] * differs.shape[1] > 1:
        if not bool(differs.flatten(2).any(dim=-1).all()):
            return "some-heads"
    if float(differs.double().mean()) >= EVERYWHERE_SHARE:
        return "everywhere"
    return "scattered"


def exact_how(differs, dtype):
    """How an exactly compared tensor of `dtype` differs, `differs` its mask: "unwritten",
    "flipped" or "values"."""
    import torch

    rows = differs.reshape(-1, differs.shape[-1]) if differs.dim() else differs.reshape(1, 1)
    if _tails(rows) or _is_tail(differs):
        return "unwritten"
    return "flipped" if dtype == torch.bool else "values"


def attention_how(compiled, reference, wrong, limit):
    """How flex_attention's compiled output (or lse) is wrong against the float64 reference on
    `wrong`, its mask of wrong elements, with compare_attention's `limit`: "nan", "inf", "zero",
    "negated", "scale", "offset" or "off"."""
    c, r = compiled.double()[wrong], reference.double()[wrong]
    expected = r.isfinite()
    if bool((c.isnan() & expected).any()):
        return "nan"
    if bool((c.isinf() & expected).any()):
        return "inf"

    def share(flags):
        return float(flags.double().mean()) if flags.numel() else 0.0

    if share((c == 0) & (r != 0)) >= PATTERN_SHARE:
        return "zero"
    both = c.isfinite() & expected
    # One element fits every scale and every offset: that says nothing about the bug.
    if int(both.sum()) < 2:
        return "off"
    square = float((r[both] ** 2).sum())
    if square > 0:
        scale = float((c[both] * r[both]).sum()) / square
        if scale != 1 and share((c - scale * r).abs() <= limit) >= PATTERN_SHARE:
            # A flipped sign is its own way of being wrong, not a magnitude: a factor near -1
            # says the sign was lost, any other factor that the normalisation was.
            return "negated" if abs(scale + 1) <= 0.05 else "scale"
    offset = float((c[both] - r[both]).mean())
    if offset != 0 and share((c - r - offset).abs() <= limit) >= PATTERN_SHARE:
        return "offset"
    return "off"


def _query_block_periods(q_len, block_q):
    """The query block sizes a kernel may have split Q_LEN by: the block mask's, then every
    power of two from MIN_QUERY_BLOCK below Q_LEN, then Q_LEN itself (one block). The CPU
    template splits q by a size it picks at run time (cur_qSplitSize), not by the block mask's:
    a cause in the first row of each of its blocks is the same cause whichever size it picked."""
    periods = [block_q]
    period = MIN_QUERY_BLOCK
    while period < q_len:
        if period != block_q:
            periods.append(period)
        period *= 2
    if q_len not in periods:
        periods.append(q_len)  # one block: its first row is row 0 (case 55 of seed 11)
    return periods


def attention_where(wrong, block_q=DEFAULT_BLOCK_Q, fully_masked_rows=None):
    """Where flex_attention's output ([B, H, Q_LEN, Ev]) or lse ([B, H, Q_LEN]) is wrong,
    `wrong` its mask of wrong elements: a WHERE_TOKENS token. `block_q` is the query block size;
    `fully_masked_rows`, a bool [B, H, Q_LEN] (or one that broadcasts to it), the rows where
    the mask keeps no key, None when nothing is masked. A fully masked row's output is zero
    whatever the kernel computes, so a cause that scales, negates or shifts rows leaves it
    right: the patterns are read over the other rows."""
    import torch

    has_columns = wrong.dim() == 4  # lse has no Ev dimension
    rows = wrong.any(dim=-1) if has_columns else wrong
    live = torch.ones_like(rows)  # the rows a cause of the computed values can get wrong
    if fully_masked_rows is not None:
        if bool(rows.any()) and not bool((rows & ~fully_masked_rows).any()):
            return "fully-masked-rows"
        live = ~fully_masked_rows.expand_as(rows)
        if not bool(live.any()):
            live = torch.ones_like(rows)
    queries = _indices_used(rows, -1)
    live_queries = _indices_used(live, -1)
    for period in _query_block_periods(queries.numel(), block_q):
        block_first = torch.arange(queries.numel()) % period == 0
        first_live = block_first & live_queries
        if torch.equal(queries, first_live) and not torch.equal(first_live, live_queries):
            return "block-first-rows"
        # One block (period Q_LEN) says "first row" but not "after it": rows [1, Q_LEN) are a
        # tail, as they always were.
        if period < queries.numel() and torch.equal(queries, ~block_first & live_queries):
            return "after-block-first-rows"
    if _is_tail(queries):
        return "tail-rows"
    if has_columns and _is_tail(_indices_used(wrong, -1)):
        return "tail-columns"
    heads = rows.any(dim=-1)
    live_heads = live.any(dim=-1)
    if heads.numel() > 1 and bool((live_heads & ~heads).any()):
        return "some-heads"
    if float((rows & live).double().sum()) >= EVERYWHERE_SHARE * float(live.double().sum()):
        return "everywhere"
    return "scattered"


def fully_masked_rows(mask_mod, batch, heads, q_len, kv_len, device="cpu"):
    """The rows where mask_mod keeps no key/value position, a bool [B, H, Q_LEN]; None when
    mask_mod raises (eager evaluated it already and said so). One (b, h) at a time, as
    _mask_slices evaluates it: the whole grid at once can take gigabytes."""
    import torch

    try:
        mask_at = _mask_slices(mask_mod, (q_len, kv_len), device)
        rows = torch.zeros(batch, heads, q_len, dtype=torch.bool)
        for b in range(batch):
            for h in range(heads):
                rows[b, h] = ~mask_at(b, h).cpu().any(dim=-1)
        return rows
    except Exception:
        return None


def attention_error(output, reference):
    """The largest absolute error of output against the float64 reference, where it is, and
    relative to the reference there. Equal infinities and NaN against NaN count as no error;
    NaN against a number is judged apart (compare_attention), not here."""
    import torch

    # Where the reference is (the CPU; a GPU case's output is brought to it).
    output = output.detach().to(device=reference.device, dtype=torch.float64)
    same = (output == reference) | (output.isnan() & reference.isnan())
    difference = (output - reference).abs()
    difference = torch.where(same | difference.isnan(), 0.0, difference)
    if difference.numel() == 0:
        return {"max_abs_error": 0.0, "max_rel_error": None, "index": []}
    flat = int(difference.reshape(-1).argmax())
    index = [int(i) for i in torch.unravel_index(torch.tensor(flat), difference.shape)]
    largest = float(difference.reshape(-1)[flat])
    scale = abs(float(reference.reshape(-1)[flat]))
    return {
        "max_abs_error": largest,
        "max_rel_error": largest / scale if scale and math.isfinite(scale) else None,
        "index": index,
    }


def attention_limit(dtype, eager_error):
    """How far from the float64 reference a compiled attention output may be: the dtype's
    tolerance, or a few times eager's own error when eager is further off (PyTorch's flex
    attention tests judge compiled against float64 by a multiple of eager's error the same way)."""
    return max(ATTENTION_TOLERANCE[dtype], EAGER_ERROR_FACTOR * eager_error)


def reference_entry(eager, compiled, reference, dtype, field):
    """What a replay of a rebuilt kernel needs to judge it against the float64 reference
    (replay.py): the output the compiled case returned, to know the kernel's tensor that holds
    it, the reference, and the limit this case's own comparison used."""
    eager, compiled = eager.detach().cpu(), compiled.detach().cpu()
    eager_error = attention_error(eager, reference)["max_abs_error"]
    return {
        "field": field,
        "dtype": dtype,
        "compiled": compiled.clone(),
        "reference": reference.detach().cpu().clone(),
        "eager_error": eager_error,
        "limit": attention_limit(dtype, eager_error),
    }


def compare_attention(eager, compiled, reference, dtype, field="output", layout=None):
    """flex_attention's output: compiled must be within the dtype's tolerance of the float64
    reference (or within a few times eager's own error), and must not hold a NaN where the
    reference or eager holds a number.

    `layout` tells where a wrong element lies: "block_q", the query block size (DEFAULT_BLOCK_Q
    when absent), and "fully_masked_rows", a function returning fully_masked_rows' tensor or
    None, called only when something is wrong (evaluating mask_mod over every row takes time)."""
    import torch

    if eager.shape != compiled.shape or eager.dtype != compiled.dtype:
        return [
            {
                "field": field,
                "problem": "shape or dtype differs",
                "eager": f"{tuple(eager.shape)} {eager.dtype}",
                "compiled": f"{tuple(compiled.shape)} {compiled.dtype}",
                "where": "everywhere",
                "how": "shape",
            }
        ], {}
    layout = layout or {}
    eager, compiled = eager.detach().cpu(), compiled.detach().cpu()
    errors = {
        "eager": attention_error(eager, reference),
        "compiled": attention_error(compiled, reference),
    }
    limit = attention_limit(dtype, errors["eager"]["max_abs_error"])
    errors["limit"] = limit

    def where(wrong):
        masked = layout.get("fully_masked_rows")
        return attention_where(
            wrong, layout.get("block_q", DEFAULT_BLOCK_Q), masked() if masked is not None else None
        )

    mismatches = []
    if errors["compiled"]["max_abs_error"] > limit:
        wrong = ((compiled.double() - reference).abs() > limit) | (
            ~compiled.isfinite() & reference.isfinite()
        )
        mismatches.append(
            {
                "field": field,
                "problem": "compiled output off the reference",
                **errors["compiled"],
                "where": where(wrong),
                "how": attention_how(compiled, reference, wrong, limit),
            }
        )
    nan = compiled.isnan() & (~reference.isnan() | eager.isfinite())
    if bool(nan.any()):
        first = torch.nonzero(nan)[0].tolist()
        # How is "nan" by what the field is, also where only eager has a number there.
        mismatches.append(
            {
                "field": f"{field}_nan",
                "problem": "NaN in compiled where the reference or eager has a number",
                "elements_differing": int(nan.sum()),
                "elements": nan.numel(),
                "first_index": first,
                "eager_value": float(eager[tuple(first)]),
                "reference_value": float(reference[tuple(first)]),
                "where": where(nan),
                "how": "nan",
            }
        )
    return mismatches, {"attention_errors": errors}
