"""How a case's block mask is made, every way users make one: create_block_mask with or
without separate full blocks (create_block_mask.separate_full_blocks), and the same mask rebuilt
with BlockMask.from_kv_blocks from tensors laid out as attention.from_kv_blocks says.

The rebuilt mask covers mask_mod as the original does (docs/contracts.md): an "expanded-heads"
pair lists the same blocks for every head, so its partial blocks are the union of every head's
and its full blocks the intersection, each head's other full blocks moving to its partial ones
(mask_mod is applied there, which changes nothing). Like oracles.py, the repro script embeds
this file verbatim: it imports nothing from its package.
"""

BLOCK_TENSOR_LAYOUTS = ("contiguous", "expanded-heads", "strided")


def create_block_mask_options(case):
    """create_block_mask's keyword arguments beyond the case's BLOCK_SIZE and device."""
    if case["create_block_mask"].get("separate_full_blocks", True):
        return {}
    return {"separate_full_blocks": False}


def _listed(counts, indices):
    """The blocks each (b, h, row) lists, as sets: counts (B, H, R), indices (B, H, R, C)."""
    counts, indices = counts.tolist(), indices.tolist()
    return [
        [
            [set(row[:count]) for count, row in zip(head_counts, head_rows, strict=False)]
            for head_counts, head_rows in zip(batch_counts, batch_rows, strict=False)
        ]
        for batch_counts, batch_rows in zip(counts, indices, strict=False)
    ]


def _over_heads(listed, heads):
    """`listed` with its head dimension made `heads` long (a mask made with H=1 lists one)."""
    return [[batch[0] for _ in range(heads)] if len(batch) == 1 else batch for batch in listed]


def _tensors(listed, columns, layout, device):
    """(counts, indices) of `listed` in `layout`: each row's blocks ascending, then the blocks
    it does not list (the indices past a row's count are never read, but are real blocks)."""
    import torch

    batch, heads, rows = len(listed), len(listed[0]), len(listed[0][0])
    stored = 1 if layout == "expanded-heads" else heads
    counts = torch.zeros((batch, stored, rows), dtype=torch.int32)
    indices = torch.zeros((batch, stored, rows, columns), dtype=torch.int32)
    for b in range(batch):
        for h in range(stored):
            for r, blocks in enumerate(listed[b][h]):
                order = sorted(blocks) + [c for c in range(columns) if c not in blocks]
                counts[b, h, r] = len(blocks)
                indices[b, h, r] = torch.tensor(order, dtype=torch.int32)
    # Made on the CPU, then moved to the block mask's device (a GPU case's).
    counts, indices = counts.to(device), indices.to(device)
    if layout == "expanded-heads":
        return counts.expand(batch, heads, rows), indices.expand(batch, heads, rows, columns)
    if layout == "strided":
        return _every_other(counts), _every_other(indices)
    if layout not in BLOCK_TENSOR_LAYOUTS:
        raise ValueError(
            f"attention.from_kv_blocks layout {layout!r} is not one of "
            f"{', '.join(BLOCK_TENSOR_LAYOUTS)}"
        )
    return counts, indices


def _every_other(tensor):
    """The same values as a view with a last-dimension stride of 2."""
    wide = tensor.new_zeros(tensor.shape[:-1] + (2 * tensor.shape[-1],))
    wide[..., ::2] = tensor
    return wide[..., ::2]


def rebuilt_from_kv_blocks(flex, block_mask, layouts, heads, mask_mod):
    """`block_mask` (create_block_mask's) made again with BlockMask.from_kv_blocks from its
    blocks, laid out as `layouts` ({"partial": ..., "full": ...}) says, over `heads` heads."""
    if any(layout == "expanded-heads" for layout in layouts.values()):
        heads = max(heads, int(block_mask.kv_num_blocks.shape[1]))
    else:
        heads = int(block_mask.kv_num_blocks.shape[1])
    partial = _over_heads(_listed(block_mask.kv_num_blocks, block_mask.kv_indices), heads)
    full = None
    if block_mask.full_kv_num_blocks is not None:
        full = _over_heads(
            _listed(block_mask.full_kv_num_blocks, block_mask.full_kv_indices), heads
        )
    if full is not None and layouts.get("full") == "expanded-heads":
        for b, batch in enumerate(full):
            for r in range(len(batch[0])):
                common = set.intersection(*(head[r] for head in batch))
                for h, head in enumerate(batch):
                    partial[b][h][r] |= head[r] - common
                    head[r] = set(common)
    if layouts.get("partial") == "expanded-heads":
        for b, batch in enumerate(partial):
            for r in range(len(batch[0])):
                union = set().union(*(head[r] for head in batch))
                for h, head in enumerate(batch):
                    head[r] = set(union)
                    if full is not None:
                        full[b][h][r] -= union
    columns = int(block_mask.kv_indices.shape[-1])
    device = block_mask.kv_num_blocks.device
    tensors = list(_tensors(partial, columns, layouts.get("partial", "contiguous"), device))
    if full is not None:
        tensors += _tensors(full, columns, layouts.get("full", "contiguous"), device)
    return flex.BlockMask.from_kv_blocks(
        *tensors,
        BLOCK_SIZE=tuple(int(size) for size in block_mask.BLOCK_SIZE),
        mask_mod=mask_mod,
        seq_lengths=tuple(int(length) for length in block_mask.seq_lengths),
    )
