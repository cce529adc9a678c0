"""tensor_program's oracle: the case's program (its "mask_mod" field) called on views of the
case's tensors, eager against torch.compile's, every output and every input after the call
(an in-place update is a result too) compared exactly but for what rounding explains
(value_judge.py, whose accumulating rule covers matrix products, normalisations and scans).

Like oracles.py, the repro script embeds this file verbatim, so it imports from its package
only modules pasted before it, with a fallback.
"""

try:
    from .api_base import ApiBase
    from .value_judge import judge_values
except ImportError:  # pasted into a repro script, after the text of the modules above
    pass


def program_inputs(case, namespace):
    """The program's arguments, made afresh: each a strided view (size, stride, storage
    offset) of a copy of its tensor's values, so that no run sees another's updates."""
    import torch

    inputs = []
    for spec in case["tensor_program"]["inputs"]:
        storage = namespace[spec["tensor"]].reshape(-1).clone()
        inputs.append(
            torch.as_strided(storage, spec["size"], spec["stride"], spec.get("offset", 0))
        )
    return inputs


def program_outputs(result):
    """The program's result as a tuple of its tensors (a lone tensor is one output)."""
    import torch

    if isinstance(result, torch.Tensor):
        return (result,)
    if isinstance(result, (tuple, list)):
        return tuple(result)
    raise TypeError(f"the program returned {type(result).__name__}, not tensors")


# Under -ffast-math, how far a finite float may move by reassociation (relative).
UNSAFE_MATH_RELATIVE = 1e-3


def reassociated(eager, compiled):
    """Whether every element of two float tensors of one shape is within
    UNSAFE_MATH_RELATIVE of the other (NaN equal to NaN, an infinity to itself)."""
    import torch

    if not (eager.is_floating_point() and compiled.is_floating_point()):
        return False
    if eager.shape != compiled.shape:
        return False
    left, right = eager.detach().double(), compiled.detach().double()
    return bool(torch.isclose(left, right, rtol=UNSAFE_MATH_RELATIVE, atol=0, equal_nan=True).all())


def mark_dynamic(case, inputs):
    import torch

    for input_index, dim in case["tensor_program"].get("dynamic") or []:
        torch._dynamo.mark_dynamic(inputs[input_index], dim)


class TensorProgram(ApiBase):
    """A program of the case's inputs; torch.compile only, of the program itself (the case
    reader refuses aoti, a call sequence and constants for it)."""

    # A wrong result names the first statement wrong on its own (first_wrong.py).
    LOCATES_FIRST_WRONG = True

    def eager_function(self):
        return self.mask_mod

    def run(self, function):
        """(the outputs, the inputs after the call): both are compared."""
        inputs = program_inputs(self.case, self.namespace)
        if function is not self.mask_mod:
            mark_dynamic(self.case, inputs)
        return program_outputs(function(*inputs)), tuple(inputs)

    def rerun(self, part, index):
        """Eager run again (under the judge's tracker): output or input `index` of `part`."""

        def program():
            return self.run(self.mask_mod)[part][index]

        return program

    def unsafe_math(self):
        """Whether the kernels are built with -ffast-math (cpp.enable_unsafe_math_opt_flag),
        which lets the compiler reassociate every float expression."""
        return bool((self.case.get("inductor") or {}).get("cpp.enable_unsafe_math_opt_flag"))

    def compare(self, eager, compiled):
        found, details = [], {}
        for part, name in enumerate(("output", "input")):
            if len(eager[part]) != len(compiled[part]):
                found.append(
                    {
                        "field": f"{name}s",
                        "problem": f"eager gave {len(eager[part])} {name}s, compiled "
                        f"{len(compiled[part])}",
                    }
                )
                continue
            for index, (left, right) in enumerate(zip(eager[part], compiled[part], strict=True)):
                mismatches, judged = judge_values(
                    left, right, self.rerun(part, index), field=f"{name}{index}"
                )
                if mismatches and self.unsafe_math() and reassociated(left, right):
                    judged[f"{name}{index}_excused_unsafe_math"] = True
                    mismatches = []
                found += mismatches
                details.update(judged)
        return found, details
