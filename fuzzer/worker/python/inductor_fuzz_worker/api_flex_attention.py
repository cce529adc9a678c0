"""flex_attention's oracle: query, key, value and block mask made eagerly for both runs, the
contracts a case must keep for the result to be defined (docs/contracts.md), and the output
(and lse) compared with the float64 reference within a tolerance (comparisons.py).

Like oracles.py, the repro script embeds this file verbatim, so it imports from its package
only modules pasted before it, with a fallback.
"""

try:
    from .api_base import ApiBase, ApiContractError
    from .block_masks import create_block_mask_options, rebuilt_from_kv_blocks
    from .case_calls import attention_arguments, block_size, laid_out, mask_arguments
    from .comparisons import (
        DEFAULT_BLOCK_Q,
        _mask_slices,
        compare_attention,
        fully_masked_rows,
        reference_entry,
    )
except ImportError:  # pasted into a repro script, after the text of the modules above
    pass


def check_block_cover(mask_mod, block_mask, batch, heads, device):
    """A ready-made block mask (BlockMask.from_kv_blocks) must cover its mask_mod: every element
    where mask_mod is true lies in a listed block (partial or full), and mask_mod is true on
    every element of a full block. Compiled flex_attention skips the blocks not listed and
    applies no mask_mod in full ones; eager applies mask_mod to every element. Raises
    ApiContractError at the first block that breaks it; an exception while evaluating is left
    to eager."""
    try:
        mask_at = _mask_slices(mask_mod, block_mask.seq_lengths, device)
        q_block, kv_block = (int(size) for size in block_mask.BLOCK_SIZE)
        tensors = {
            "partial": (block_mask.kv_num_blocks, block_mask.kv_indices),
            "full": (block_mask.full_kv_num_blocks, block_mask.full_kv_indices),
        }
        for b in range(batch):
            for h in range(heads):
                mask = mask_at(b, h)
                listed = {}
                for kind, (counts, indices) in tensors.items():
                    if counts is None:
                        continue
                    at = (b if counts.shape[0] > 1 else 0, h if counts.shape[1] > 1 else 0)
                    for row in range(counts.shape[2]):
                        for column in indices[at][row][: int(counts[at][row])].tolist():
                            listed[row, int(column)] = kind
                rows = (mask.shape[0] + q_block - 1) // q_block
                columns = (mask.shape[1] + kv_block - 1) // kv_block
                for row in range(rows):
                    for column in range(columns):
                        block = mask[
                            row * q_block : (row + 1) * q_block,
                            column * kv_block : (column + 1) * kv_block,
                        ]
                        kind = listed.get((row, column))
                        wrong = ~block if kind == "full" else block if kind is None else None
                        if wrong is None or not bool(wrong.any()):
                            continue
                        q_idx, kv_idx = (int(i) for i in wrong.nonzero()[0])
                        q_idx, kv_idx = q_idx + row * q_block, kv_idx + column * kv_block
                        problem = (
                            "is a full block, but mask_mod is false at"
                            if kind == "full"
                            else "is not listed, but mask_mod is true at"
                        )
                        raise ApiContractError(
                            f"the block mask's tensors do not cover mask_mod: block ({row}, "
                            f"{column}) of b={b}, h={h} {problem} q_idx={q_idx}, "
                            f"kv_idx={kv_idx}; BlockMask.from_kv_blocks needs every element "
                            "mask_mod keeps in a listed block, and full blocks kept whole"
                        )
    except ApiContractError:
        raise
    except Exception:  # eager evaluates mask_mod too, and says what is wrong with it
        return


def _made_with(case, name, size):
    """How the block mask got its one batch element or head, for the message."""
    if (case.get("attention") or {}).get("block_mask_tensors"):
        return f"block tensors of {name.upper()} size {size}"
    return f"{name.upper()}={case['create_block_mask'].get(name.upper())}"


def check_broadcast_contract(case, mask_mod, block_mask, batch, heads, device):
    """A block mask made for one batch element or one head (create_block_mask's B or H None or
    1, or block tensors of that size) is broadcast: compiled flex_attention skips the blocks
    that batch element 0 and head 0 skip, for every batch element and head, while eager applies
    mask_mod to every element with the real b and h. create_block_mask's contract says as much:
    B=None (H=None) means the mask is the same for every batch element (head), so mask_mod must
    not depend on b (h). This evaluates mask_mod at the inputs' real `batch` and `heads` and
    raises ApiContractError when it does depend on them.

    An exception while evaluating is left to eager, which evaluates the same function."""
    sizes = {
        "b": int(block_mask.kv_num_blocks.shape[0]),
        "h": int(block_mask.kv_num_blocks.shape[1]),
    }
    counts = {"b": batch, "h": heads}
    broadcast = [name for name in ("h", "b") if sizes[name] == 1 and counts[name] > 1]
    if not broadcast:
        return
    mask_at = _mask_slices(mask_mod, block_mask.seq_lengths, device)
    what = {"b": "batch element", "h": "head"}
    try:
        for b in range(batch):
            for h in range(heads):
                for name in broadcast:
                    reference = (b, 0) if name == "h" else (0, h)
                    if reference == (b, h):
                        continue
                    differs = mask_at(b, h) != mask_at(*reference)
                    if not bool(differs.any()):
                        continue
                    q_idx, kv_idx = (int(i) for i in differs.nonzero()[0])
                    raise ApiContractError(
                        f"mask_mod reads {name} but the block mask was made with "
                        f"{_made_with(case, name, sizes[name])}: create_block_mask's "
                        f"{name.upper()}=None means the mask is the same for every {what[name]}, "
                        f"and here {what[name]} {h if name == 'h' else b} of {counts[name]} "
                        f"differs from {what[name]} 0 (first at b={b}, h={h}, q_idx={q_idx}, "
                        f"kv_idx={kv_idx})"
                    )
    except ApiContractError:
        raise
    except Exception:  # eager evaluates mask_mod too, and says what is wrong with it
        return


def check_skip_mask_score(case, score_mod, mask_mod, block_mask, batch, heads, device):
    """kernel_options SKIP_MASK_SCORE=True tells the CPU template to apply neither score_mod nor
    mask_mod (it keeps only the block mask's block sparsity), while eager applies both. The
    result is defined only when that changes nothing: no score_mod, and mask_mod true on every
    element of every block the block mask lists. Raises ApiContractError otherwise."""
    options = (case.get("attention") or {}).get("kernel_options") or {}
    if not options.get("SKIP_MASK_SCORE"):
        return
    if score_mod is not None:
        raise ApiContractError(
            "kernel_options SKIP_MASK_SCORE=True makes compiled flex_attention skip score_mod, "
            "which eager applies: drop the score_mod or the option"
        )
    if block_mask is None or mask_mod is None:
        return
    try:
        mask_at = _mask_slices(mask_mod, block_mask.seq_lengths, device)
        q_block, kv_block = (int(size) for size in block_mask.BLOCK_SIZE)
        counts, indices = block_mask.kv_num_blocks, block_mask.kv_indices  # the partial blocks
        for b in range(batch):
            for h in range(heads):
                mask = mask_at(b, h)
                at = (b if counts.shape[0] > 1 else 0, h if counts.shape[1] > 1 else 0)
                for row in range(counts.shape[2]):
                    for column in indices[at][row][: int(counts[at][row])].tolist():
                        block = mask[
                            row * q_block : (row + 1) * q_block,
                            column * kv_block : (column + 1) * kv_block,
                        ]
                        if not bool(block.all()):
                            raise ApiContractError(
                                "kernel_options SKIP_MASK_SCORE=True makes compiled "
                                "flex_attention skip mask_mod, but mask_mod is false in block "
                                f"({row}, {column}) of b={b}, h={h}, which the block mask "
                                "lists: use a mask whose blocks are whole, or drop the option"
                            )
    except ApiContractError:
        raise
    except Exception:  # eager evaluates mask_mod too, and says what is wrong with it
        return


class FlexAttention(ApiBase):
    """flex_attention(q, k, v, score_mod=..., block_mask=..., enable_gqa=..., ...); its user's
    program takes q, k, v and the block mask."""

    EXACT = False

    def make_inputs(self):
        """flex_attention's query, key, value and block mask (made eagerly, for both runs)."""
        import torch

        a = attention_arguments(self.case)
        generator = torch.Generator().manual_seed(a["input_seed"])
        dtype = getattr(torch, a["dtype"])
        if a.get("qkv"):
            self.q, self.k, self.v = (self.namespace[name].to(dtype) for name in a["qkv"])
        else:
            shapes = (
                (a["Hq"], a["Q_LEN"], a["E"]),
                (a["Hkv"], a["KV_LEN"], a["E"]),
                (a["Hkv"], a["KV_LEN"], a["Ev"]),
            )
            layout = a.get("layout", "contiguous")
            self.q, self.k, self.v = (
                laid_out(a["B"], shape, layout, role, generator, dtype)
                for role, shape in zip("qkv", shapes, strict=False)
            )
        # The block mask's device is the case's (a portable capture's --device cuda); the inputs
        # are drawn on the CPU either way, so that both devices see the same numbers.
        device = self.case.get("create_block_mask", {}).get("device", "cpu")
        if device != "cpu":
            self.q, self.k, self.v = (t.to(device) for t in (self.q, self.k, self.v))
        if a.get("block_mask_tensors"):
            given = [self.namespace[name] for name in a["block_mask_tensors"]]
            self.block_mask = self.flex.BlockMask.from_kv_blocks(
                *given,
                BLOCK_SIZE=block_size(self.case),
                mask_mod=self.mask_mod,
                seq_lengths=(a["Q_LEN"], a["KV_LEN"]),
            )
        elif a["use_block_mask"]:
            args, kwargs = mask_arguments(self.case, self.mask_mod)
            self.block_mask = self.flex.create_block_mask(
                *args,
                BLOCK_SIZE=block_size(self.case),
                **kwargs,
                **create_block_mask_options(self.case),
            )
            if a.get("from_kv_blocks"):
                self.block_mask = rebuilt_from_kv_blocks(
                    self.flex, self.block_mask, a["from_kv_blocks"], a["Hq"], self.mask_mod
                )
        self.kwargs = dict(
            score_mod=self.score_mod, block_mask=self.block_mask, enable_gqa=a["enable_gqa"]
        )
        for key in ("scale", "return_lse", "kernel_options"):
            if a[key]:
                self.kwargs[key] = a[key]

    def check_contracts(self):
        batch, heads = int(self.q.shape[0]), int(self.q.shape[1])
        check_skip_mask_score(
            self.case, self.score_mod, self.mask_mod, self.block_mask, batch, heads, self.q.device
        )
        if self.block_mask is None or self.mask_mod is None:
            return
        check_broadcast_contract(
            self.case, self.mask_mod, self.block_mask, batch, heads, self.q.device
        )
        attention = self.case["attention"]
        if attention.get("block_mask_tensors") or attention.get("from_kv_blocks"):
            check_block_cover(self.mask_mod, self.block_mask, batch, heads, self.q.device)

    def program_options(self):
        return {k: v for k, v in self.kwargs.items() if k not in ("score_mod", "block_mask")}

    def run(self, function):
        if self.function_scope():
            constants = self.case.get("constants") or {}
            return function(self.q, self.k, self.v, self.block_mask, **constants)
        return function(self.q, self.k, self.v, **self.kwargs)

    def run_eager(self):
        """Eager's result, and the float64 reference, here and not when comparing: eager
        flex_attention compiles internally, so the reference of a later call must be made where
        that call's eager run is, on its own."""
        eager = self.run(self.eager_function())
        self.reference = self.flex.flex_attention(
            self.q.double(), self.k.double(), self.v.double(), **self.kwargs
        )
        return eager

    def compare(self, eager, compiled):
        reference = self.reference
        if reference is None:
            reference = self.flex.flex_attention(
                self.q.double(), self.k.double(), self.v.double(), **self.kwargs
            )
        dtype = self.case["attention"]["dtype"]
        layout = self.attention_layout()
        if not self.kwargs.get("return_lse"):
            return compare_attention(eager, compiled, reference, dtype, layout=layout)
        mismatches, details = compare_attention(
            eager[0], compiled[0], reference[0], dtype, layout=layout
        )
        lse_mismatches, lse_details = compare_attention(
            eager[1], compiled[1], reference[1], dtype, field="lse", layout=layout
        )
        details["lse_errors"] = lse_details.get("attention_errors")
        return mismatches + lse_mismatches, details

    def reference_entries(self, eager, compiled):
        """The float64 reference of the output (and lse) with what the compiled case returned."""
        if self.reference is None:
            return []
        dtype = self.case["attention"]["dtype"]
        if not self.kwargs.get("return_lse"):
            return [reference_entry(eager, compiled, self.reference, dtype, "output")]
        return [
            reference_entry(eager[0], compiled[0], self.reference[0], dtype, "output"),
            reference_entry(eager[1], compiled[1], self.reference[1], dtype, "lse"),
        ]

    def attention_layout(self):
        """compare_attention's layout: the block mask's query block size, and the rows its
        mask_mod masks whole, evaluated at most once for the output and lse together."""
        import functools

        @functools.cache
        def masked_rows():
            if self.block_mask is None or self.mask_mod is None:
                return None  # without a block mask flex_attention applies no mask_mod
            batch, heads, q_len = (int(size) for size in self.q.shape[:3])
            return fully_masked_rows(
                self.mask_mod, batch, heads, q_len, int(self.k.shape[2]), self.q.device
            )

        block_q = DEFAULT_BLOCK_Q
        if self.block_mask is not None:
            block_q = int(self.block_mask.BLOCK_SIZE[0])
        return {"block_q": block_q, "fully_masked_rows": masked_rows}

    def aoti_inputs(self):
        return (self.q, self.k, self.v)

    def aoti_forward(self, program, inputs, sizes):
        constants = self.case.get("constants") or {}
        if program is not None:
            return program(*inputs, self.block_mask, **constants)
        return self.flex.flex_attention(*inputs, **self.kwargs)

    def aoti_result(self, result, sizes):
        return tuple(result) if self.kwargs.get("return_lse") else result
