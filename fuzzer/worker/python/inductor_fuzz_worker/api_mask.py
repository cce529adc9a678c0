"""create_mask's oracle: the dense bool mask of mask_mod, compared exactly.

Like oracles.py, the repro script embeds this file verbatim, so it imports from its package
only modules pasted before it, with a fallback.
"""

try:
    from .api_base import ApiBase
    from .case_calls import mask_arguments
    from .comparisons import compare_tensors
except ImportError:  # pasted into a repro script, after the text of the modules above
    pass


class CreateMask(ApiBase):
    """create_mask(mask_mod, B, H, Q_LEN, KV_LEN); its user's program takes the sizes after
    mask_mod."""

    def mask_options(self):
        """The API's keyword arguments."""
        _, kwargs = mask_arguments(self.case, self.mask_mod)
        return kwargs

    def program_options(self):
        return self.mask_options()

    def run(self, function):
        if self.function_scope():
            constants = self.case.get("constants") or {}
            return function(mask_arguments(self.case, self.mask_mod)[0][1:], **constants)
        args, _ = mask_arguments(self.case, self.mask_mod)
        return function(*args, **self.mask_options())

    def compare(self, eager, compiled):
        return compare_tensors("mask", eager, compiled), {}

    def aoti_forward(self, program, inputs, sizes):
        constants = self.case.get("constants") or {}
        args, kwargs = mask_arguments(self.case, self.mask_mod)
        if program is not None:
            return program(args[1:], **constants)
        return self.flex.create_mask(*args, **kwargs)
