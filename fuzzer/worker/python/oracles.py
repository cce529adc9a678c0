"""The worker's oracles: how each API runs eagerly and compiled, and how results compare.

Concatenated after worker.py into the one script the worker executes (see fuzzer/CMakeLists.txt).
"""

import re

BLOCK_MASK_FIELDS = (
    "kv_num_blocks",
    "kv_indices",
    "full_kv_num_blocks",
    "full_kv_indices",
    "q_num_blocks",
    "q_indices",
    "full_q_num_blocks",
    "full_q_indices",
)


def compare_block_masks(eager, compiled):
    mismatches = []
    for field in ("BLOCK_SIZE", "seq_lengths"):
        if tuple(getattr(eager, field)) != tuple(getattr(compiled, field)):
            mismatches.append(
                {
                    "field": field,
                    "eager": list(getattr(eager, field)),
                    "compiled": list(getattr(compiled, field)),
                }
            )
    for field in BLOCK_MASK_FIELDS:
        left, right = getattr(eager, field), getattr(compiled, field)
        if left is None and right is None:
            continue
        if left is None or right is None:
            mismatches.append({"field": field, "problem": "present in only one of the two"})
            continue
        mismatches += compare_tensors(field, left.cpu(), right.cpu())
    return mismatches


# Exceptions a case can be meant to raise, recognised by what torch says; the class is what a
# case's expect.raises names.
EXPECTED_EXCEPTION_CLASSES = {
    "data-dependent": re.compile(
        r"_local_scalar_dense|data.dependent|DataDependent|\.item\(\)|GuardOnDataDependent"
        r"|unbacked",
        re.IGNORECASE,
    ),
}

# flex_attention against a float64 reference: the largest absolute error allowed, per dtype.
# The compiled output may also be as far off as four times eager's own error.
ATTENTION_TOLERANCE = {"float32": 1e-4, "bfloat16": 3e-2, "float16": 3e-3}


def classify_exception(described):
    text = described["message"] + " " + " ".join(described["chain"])
    for name, pattern in EXPECTED_EXCEPTION_CLASSES.items():
        if pattern.search(text):
            return name
    return None


def build_namespace(case):
    import torch
    from torch.nn.attention import flex_attention as flex

    namespace = {
        "torch": torch,
        "and_masks": flex.and_masks,
        "or_masks": flex.or_masks,
        "__name__": "inductor_fuzz_case",
    }
    dtypes = {"int64": torch.int64, "bool": torch.bool, "float32": torch.float32}
    for tensor in case.get("tensors", []):
        namespace[tensor["name"]] = torch.tensor(
            tensor["values"], dtype=dtypes[tensor["dtype"]]
        ).reshape(tensor["shape"])
    for key in ("mask_mod", "score_mod"):
        if case.get(key):
            exec(compile(case[key]["source"], f"<{key}>", "exec"), namespace)
    return namespace


def function_of(namespace, case, key):
    return namespace[case[key]["name"]] if case.get(key) else None


def mask_arguments(case, mask_mod):
    args = case["create_block_mask"]
    return (mask_mod, args["B"], args["H"], args["Q_LEN"], args["KV_LEN"]), {
        "device": args["device"]
    }


def block_size(case):
    size = case["create_block_mask"]["BLOCK_SIZE"]
    return tuple(size) if isinstance(size, list) else size


class Api:
    """How one API runs eagerly and compiled, and how its two results are compared."""

    def __init__(self, case, namespace):
        import torch
        from torch.nn.attention import flex_attention as flex

        self.case = case
        self.torch = torch
        self.flex = flex
        self.mask_mod = function_of(namespace, case, "mask_mod")
        self.score_mod = function_of(namespace, case, "score_mod")
        self.api = case["api"]
        if self.api == "flex_attention":
            self._make_attention_inputs()

    def _make_attention_inputs(self):
        torch = self.torch
        a = self.case["attention"]
        generator = torch.Generator().manual_seed(a["input_seed"])
        dtype = getattr(torch, a["dtype"])
        self.q = torch.randn((a["B"], a["Hq"], a["Q_LEN"], a["E"]), generator=generator).to(dtype)
        self.k = torch.randn((a["B"], a["Hkv"], a["KV_LEN"], a["E"]), generator=generator).to(dtype)
        self.v = torch.randn((a["B"], a["Hkv"], a["KV_LEN"], a["Ev"]), generator=generator).to(dtype)
        self.block_mask = None
        if a["use_block_mask"]:
            args, kwargs = mask_arguments(self.case, self.mask_mod)
            self.block_mask = self.flex.create_block_mask(
                *args, BLOCK_SIZE=block_size(self.case), **kwargs
            )
        self.kwargs = dict(
            score_mod=self.score_mod, block_mask=self.block_mask, enable_gqa=a["enable_gqa"]
        )

    def run(self, function):
        if self.api == "flex_attention":
            return function(self.q, self.k, self.v, **self.kwargs)
        args, kwargs = mask_arguments(self.case, self.mask_mod)
        if self.api == "create_block_mask":
            kwargs["BLOCK_SIZE"] = block_size(self.case)
        return function(*args, **kwargs)

    def eager_function(self):
        return getattr(self.flex, self.api)

    def compare(self, eager, compiled):
        if self.api == "create_block_mask":
            return compare_block_masks(eager, compiled), {}
        if self.api == "create_mask":
            return compare_tensors("mask", eager, compiled), {}
        return self._compare_attention(eager, compiled)

    def _compare_attention(self, eager, compiled):
        torch = self.torch
        reference = self.flex.flex_attention(
            self.q.double(), self.k.double(), self.v.double(), **self.kwargs
        )
        errors = {}
        for name, output in (("eager", eager), ("compiled", compiled)):
            difference = (output.double() - reference).abs().nan_to_num(0)
            flat = int(difference.argmax())
            index = list(torch.unravel_index(torch.tensor(flat), difference.shape))
            largest = difference.flatten()[flat].item()
            scale = reference.abs().flatten()[flat].item()
            errors[name] = {
                "max_abs_error": largest,
                "max_rel_error": largest / scale if scale else None,
                "index": [int(i) for i in index],
            }
        limit = max(
            ATTENTION_TOLERANCE[self.case["attention"]["dtype"]],
            4 * errors["eager"]["max_abs_error"],
        )
        errors["limit"] = limit
        mismatches = []
        if errors["compiled"]["max_abs_error"] > limit or (
            compiled.isnan().any().item() and not reference.isnan().any().item()
        ):
            mismatches.append({"field": "output", "problem": "compiled output off the reference",
                               **errors["compiled"]})
        return mismatches, {"attention_errors": errors}


def compare_tensors(field, left, right):
    import torch

    if left.shape != right.shape or left.dtype != right.dtype:
        return [{"field": field, "problem": "shape or dtype differs",
                 "eager": f"{tuple(left.shape)} {left.dtype}",
                 "compiled": f"{tuple(right.shape)} {right.dtype}"}]
    differs = left != right
    if not bool(differs.any()):
        return []
    first = torch.nonzero(differs)[0].tolist()
    return [{"field": field, "problem": "values differ",
             "elements_differing": int(differs.sum()), "first_index": first,
             "eager_value": left[tuple(first)].item(),
             "compiled_value": right[tuple(first)].item()}]


def plant_difference(api, compiled, plant):
    """Test-only: corrupts the compiled result so the oracle has something to catch."""
    if plant != "flip-one-block":
        raise ValueError(f"unknown test_plant {plant!r}; the one there is is flip-one-block")
    if api == "create_block_mask":
        compiled.kv_num_blocks.view(-1)[0] += 1
    elif api == "create_mask":
        compiled.view(-1)[0] = ~compiled.view(-1)[0]
    else:
        compiled.view(-1)[0] += 1.0
    return compiled
