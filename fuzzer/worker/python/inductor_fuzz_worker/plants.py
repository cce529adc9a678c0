"""Test plants: each corrupts the compiled result the way one oracle must catch, so that a test
can prove that oracle fires, in the worker (request "test_plant") and in the repro script
(TEST_PLANT_VARIABLE). Never used on a real run.

Like oracles.py, the repro script embeds this file verbatim: it imports nothing from its package.
"""

# Where the repro script reads a test plant from, so that a test can plant into it too.
TEST_PLANT_VARIABLE = "INDUCTOR_FUZZ_TEST_PLANT"


def _first_index(tensor):
    return (0,) * tensor.dim()


def _bump_first(tensor):
    import torch

    index = _first_index(tensor)
    if tensor.dtype == torch.bool:
        tensor[index] = ~tensor[index]
    else:
        tensor[index] += 1


def _plant_block_size(mask):
    q, kv = mask.BLOCK_SIZE
    mask.BLOCK_SIZE = (q * 2, kv)


def _plant_seq_lengths(mask):
    q, kv = mask.seq_lengths
    mask.seq_lengths = (q, kv + 1)


def _plant_nan(output):
    output[_first_index(output)] = float("nan")


def _plant_flip_one_block(result):
    _bump_first(result if not hasattr(result, "kv_num_blocks") else result.kv_num_blocks)


def _plant_program_output(result):
    _bump_first(result[0][0])  # (outputs, inputs after the call): the first output


def _plant_program_input(result):
    _bump_first(result[1][0])  # the first input as the call left it


# name: (the API whose result it corrupts, or None for any, what it does in place)
TEST_PLANTS = {
    "flip-one-block": (None, _plant_flip_one_block),
    "kv-num-blocks": ("create_block_mask", lambda mask: _bump_first(mask.kv_num_blocks)),
    "block-size": ("create_block_mask", _plant_block_size),
    "seq-lengths": ("create_block_mask", _plant_seq_lengths),
    "create-mask": ("create_mask", _bump_first),
    "attention-value": ("flex_attention", _bump_first),
    "attention-nan": ("flex_attention", _plant_nan),
    "program-output": ("tensor_program", _plant_program_output),
    "program-input": ("tensor_program", _plant_program_input),
}


def plant_difference(api, compiled, plant):
    """Test-only: corrupts the compiled result of `api` (the API's name) with plant `plant`."""
    if plant not in TEST_PLANTS:
        raise ValueError(f"unknown test plant {plant!r}; known: {', '.join(TEST_PLANTS)}")
    wanted, corrupt = TEST_PLANTS[plant]
    if wanted is not None and wanted != api:
        raise ValueError(f"test plant {plant!r} corrupts {wanted} results, not {api}")
    corrupt(compiled)
    return compiled
