"""create_block_mask's oracle: the BlockMask of mask_mod, compared field by field, exactly.

create_block_mask takes what create_mask takes, and BLOCK_SIZE and the case's options. Like
oracles.py, the repro script embeds this file verbatim, so it imports from its package only
modules pasted before it, with a fallback.
"""

try:
    from .api_mask import CreateMask
    from .block_masks import create_block_mask_options
    from .case_calls import block_size, mask_arguments
    from .comparisons import BLOCK_MASK_SIZES, BLOCK_MASK_TENSORS, compare_block_masks
except ImportError:  # pasted into a repro script, after the text of the modules above
    pass


class CreateBlockMask(CreateMask):
    """create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, BLOCK_SIZE=..., **options).

    For AOTInductor: a BlockMask is no pytree output, so the exported module returns its
    tensors (BLOCK_MASK_TENSORS, None where it has none) and aoti_result puts them back beside
    its sizes, which are Python ints fixed when the module was traced."""

    def mask_options(self):
        kwargs = super().mask_options()
        kwargs["BLOCK_SIZE"] = block_size(self.case)
        kwargs.update(create_block_mask_options(self.case))
        return kwargs

    def compare(self, eager, compiled):
        return compare_block_masks(eager, compiled), {}

    def aoti_forward(self, program, inputs, sizes):
        constants = self.case.get("constants") or {}
        args, _ = mask_arguments(self.case, self.mask_mod)
        if program is not None:
            mask = program(args[1:], **constants)
        else:
            mask = self.flex.create_block_mask(*args, **self.mask_options())
        sizes.update({field: getattr(mask, field) for field in BLOCK_MASK_SIZES})
        return tuple(getattr(mask, field) for field in BLOCK_MASK_TENSORS)

    def aoti_result(self, result, sizes):
        import types

        return types.SimpleNamespace(**dict(zip(BLOCK_MASK_TENSORS, result, strict=False)), **sizes)
