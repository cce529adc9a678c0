"""A case's functions, calls and inputs: the namespace its mask_mod and score_mod are defined
in, the case as each call of its sequence sees it, and the inputs laid out as the case says.

The oracles (oracles.py) run what this module builds. Like them, the repro script embeds this
file verbatim: it imports nothing from its package but compat, with a fallback.
"""

try:
    from .compat import case_globals
except ImportError:  # pasted into a repro script, after compat's own text
    pass

CAPTURED_DTYPES = (
    "int8",
    "int16",
    "int32",
    "int64",
    "bool",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "uint8",
)
# The factory a case's sources run in when the case has closure constants.
CLOSURE_FACTORY = "__inductor_fuzz_closure"
# compile_scope "function": the user's function compiled instead of the API, and the globals it
# calls the API through.
PROGRAM = "__inductor_fuzz_program"
PROGRAM_API = "__inductor_fuzz_api"
PROGRAM_OPTIONS = "__inductor_fuzz_options"
COMPILE_FUNCTION = "function"
COMPILE_MODULE = "module"


# The first four reduce the mask's values as int64 (sum, amax) or bool (any); the others reduce
# them in the program's own dtype, whatever it is (value_sum with torch's own promotion).
INDEX_REDUCTIONS = (
    "none",
    "sum",
    "amax",
    "any",
    "prod",
    "amin",
    "all",
    "argmax",
    "value_sum",
    "value_amax",
)


def index_program(case, mask_mod):
    """api "index_program": mask_mod evaluated on broadcast aranges of the block mask's shape
    (B, H, Q_LEN, KV_LEN; None is 1), as a plain tensor program without vmap, then reduced over
    the last dimension as case["index_program"]["reduction"] says. What it compiles to is
    Inductor's generic loop code: gathers over arange, // and %, reductions over odd lengths."""
    import torch

    args = case["create_block_mask"]
    shape = (args["B"] or 1, args["H"] or 1, args["Q_LEN"], args["KV_LEN"])
    reduction = case["index_program"]["reduction"]
    if reduction not in INDEX_REDUCTIONS:
        raise ValueError(f"index_program.reduction {reduction!r} is not one of {INDEX_REDUCTIONS}")

    def program():
        b, h, q_idx, kv_idx = (
            torch.arange(size, device=args.get("device", "cpu")).view(
                [size if axis == at else 1 for axis in range(4)]
            )
            for at, size in enumerate(shape)
        )
        values = torch.broadcast_to(mask_mod(b, h, q_idx, kv_idx), shape)
        return index_reduced(values, reduction)

    return program


def index_reduced(values, reduction):
    """`values` (the program's, of any dtype) reduced over the last dimension as the reduction
    of INDEX_REDUCTIONS says."""
    import torch

    if reduction == "sum":
        return values.to(torch.int64).sum(-1)
    if reduction == "amax":
        return values.to(torch.int64).amax(-1)
    if reduction == "any":
        return values.bool().any(-1)
    if reduction == "prod":
        return values.prod(-1)
    if reduction == "amin":
        return values.amin(-1)
    if reduction == "all":
        return values.bool().all(-1)
    if reduction == "argmax":
        # Eager's argmax is not defined on bool (NotImplementedError): on 0 and 1 instead.
        return (values.to(torch.uint8) if values.dtype == torch.bool else values).argmax(-1)
    if reduction == "value_sum":
        return values.sum(-1)
    if reduction == "value_amax":
        return values.amax(-1)
    return values


def program_parameters(case):
    """The compiled function's parameters (compile_scope "function"): the API's tensor inputs
    (flex_attention) or the mask's sizes (create_mask, create_block_mask), then the constants."""
    inputs = ["q", "k", "v", "block_mask"] if case["api"] == "flex_attention" else ["sizes"]
    return inputs + list(case.get("constants") or {})


def build_program(case, namespace, api, options):
    """compile_scope "function": a user's function of program_parameters(case) whose body
    defines the case's mask_mod and score_mod, closing over its parameters, and calls `api`
    with `options` (keyword arguments), as a model's forward does. Defined in `namespace`, so
    the functions read the case's tensors as globals.

    compile_scope "module": the same body as the forward of an nn.Module that holds the case's
    tensors, the floating ones as parameters (requires_grad=False) and the others as buffers;
    the forward reads them from self into locals of the same names, which the functions close
    over. Returns the module."""
    import ast

    keys = [key for key in ("mask_mod", "score_mod") if case.get(key)]
    names = {key: case[key]["name"] for key in keys}
    if case["api"] == "flex_attention":
        call = (
            f"{PROGRAM_API}(q, k, v, score_mod={names.get('score_mod', 'None')}, "
            f"block_mask=block_mask, **{PROGRAM_OPTIONS})"
        )
    else:
        call = f"{PROGRAM_API}({names['mask_mod']}, *sizes, **{PROGRAM_OPTIONS})"
    module = case.get("compile_scope") == COMPILE_MODULE
    tensors = [tensor["name"] for tensor in case.get("tensors") or []] if module else []
    parameters = (["self"] if module else []) + program_parameters(case)
    program = ast.parse(f"def {PROGRAM}({', '.join(parameters)}):\n    return {call}")
    for key in reversed(keys):
        program.body[0].body[:0] = ast.parse(case[key]["source"], f"<{key}>").body
    for name in reversed(tensors):
        program.body[0].body[:0] = ast.parse(f"{name} = self.{name}").body
    namespace[PROGRAM_API], namespace[PROGRAM_OPTIONS] = api, options
    exec(compile(program, "<case program>", "exec"), namespace)
    if not module:
        return namespace[PROGRAM]
    return _case_module(namespace[PROGRAM], {name: namespace[name] for name in tensors})


def _case_module(forward, tensors):
    import torch

    class CaseModule(torch.nn.Module):
        def __init__(self):
            super().__init__()
            for name, tensor in tensors.items():
                if tensor.is_floating_point():
                    self.register_parameter(
                        name, torch.nn.Parameter(tensor.clone(), requires_grad=False)
                    )
                else:
                    self.register_buffer(name, tensor.clone())

    CaseModule.forward = forward
    return CaseModule()


def build_namespace(case):
    """The globals the case's mask_mod and score_mod are defined in: torch, the mask
    combinators and the captured tensors. Raises what defining the source raises."""
    import torch
    from torch.nn.attention import flex_attention as flex

    namespace = case_globals("inductor_fuzz_case")
    namespace.update(torch=torch, and_masks=flex.and_masks, or_masks=flex.or_masks)
    for tensor in case.get("tensors") or []:
        if tensor["dtype"] not in CAPTURED_DTYPES:
            raise ValueError(f"captured tensor {tensor['name']!r} has dtype {tensor['dtype']!r}")
        # On the block mask's device: a mask that reads a table indexes it where it runs.
        namespace[tensor["name"]] = torch.tensor(
            tensor["values"],
            dtype=getattr(torch, tensor["dtype"]),
            device=(case.get("create_block_mask") or {}).get("device", "cpu"),
        ).reshape(tensor["shape"])
    keys = [key for key in ("mask_mod", "score_mod") if case.get(key)]
    constants = case.get("constants") or {}
    if not constants:
        for key in keys:
            exec(compile(case[key]["source"], f"<{key}>", "exec"), namespace)
        return namespace
    # The functions close over the constants, as a user's factory-made closures do: a later
    # call's new values reach Dynamo as closure cells, not as globals. The factory is built from
    # parsed code, not by indenting text, so that a multi-line string keeps its lines.
    import ast

    names = [case[key]["name"] for key in keys]
    for name in list(constants) + names:
        if not name.isidentifier() or name in ("torch", "and_masks", "or_masks", "sizes"):
            raise ValueError(f"{name!r} cannot name a constant or a function of a case")
    returned = "".join(f"{name}, " for name in names)
    factory = ast.parse(f"def {CLOSURE_FACTORY}({', '.join(constants)}):\n    return ({returned})")
    for key in reversed(keys):
        factory.body[0].body[:0] = ast.parse(case[key]["source"], f"<{key}>").body
    exec(compile(factory, "<case functions>", "exec"), namespace)
    namespace.update(zip(names, namespace.pop(CLOSURE_FACTORY)(**constants), strict=False))
    return namespace


def case_for_call(case, index):
    """The case as call `index` sees it: call 0 is the case itself, call i > 0 applies
    case["calls"][i - 1] (new closure constants, shape, captured tensors or dtype)."""
    if index == 0:
        return case
    change = case["calls"][index - 1]
    call = dict(case)
    call["constants"] = {**(case.get("constants") or {}), **change.get("constants", {})}
    replaced = {tensor["name"]: tensor for tensor in change.get("tensors", [])}
    call["tensors"] = [replaced.get(t["name"], t) for t in case.get("tensors") or []]
    mask = dict(case["create_block_mask"])
    attention = dict(case["attention"]) if case.get("attention") else None
    for key in ("B", "Q_LEN", "KV_LEN"):
        if key in change:
            if key != "B" or mask["B"] is not None:
                mask[key] = change[key]
            if attention is not None:
                attention[key] = change[key]
    if attention is not None and "dtype" in change:
        attention["dtype"] = change["dtype"]
    call["create_block_mask"], call["attention"] = mask, attention
    return call


def call_count(case):
    return 1 + len(case.get("calls") or [])


def attention_arguments(case):
    """The case's attention arguments, with what a version 2 case gives once (B, Q_LEN,
    KV_LEN) taken from the block mask, and the optional ones filled in."""
    a = dict(case["attention"])
    mask = case["create_block_mask"]
    for key in ("B", "Q_LEN", "KV_LEN"):
        if key not in a:
            a[key] = mask[key]
    a.setdefault("scale", None)
    a.setdefault("return_lse", False)
    a.setdefault("kernel_options", None)
    return a


def function_of(namespace, case, key):
    if not case.get(key):
        return None
    name = case[key]["name"]
    if not callable(namespace.get(name)):
        raise NameError(f"the case's {key} source defines no function named {name!r}")
    return namespace[name]


def mask_arguments(case, mask_mod):
    args = case["create_block_mask"]
    return (mask_mod, args["B"], args["H"], args["Q_LEN"], args["KV_LEN"]), {
        "device": args["device"]
    }


def block_size(case):
    size = case["create_block_mask"]["BLOCK_SIZE"]
    return tuple(size) if isinstance(size, list) else size


LAYOUTS = ("contiguous", "bshd-transposed", "sliced", "expanded-kv")


def laid_out(batch, shape, layout, role, generator, dtype):
    """One of flex_attention's inputs, of logical shape (batch,) + shape = (B, H, S, D), drawn
    from `generator` in `dtype` and laid out in memory as the case's attention.layout says:
    "contiguous"; "bshd-transposed", allocated (B, S, H, D) and transposed; "sliced", a view
    into a (B, H, S + 1, 2 * D) tensor (a storage offset and a row stride of 2 * D);
    "expanded-kv", key and value allocated with one head and expanded to H (stride 0). The cast
    comes before the view: a cast would make a non-dense view contiguous again."""
    import torch

    heads, length, dim = shape
    if layout == "bshd-transposed":
        return (
            torch.randn((batch, length, heads, dim), generator=generator).to(dtype).transpose(1, 2)
        )
    if layout == "sliced":
        wide = torch.randn((batch, heads, length + 1, 2 * dim), generator=generator).to(dtype)
        return wide[:, :, 1:, :dim]
    if layout == "expanded-kv" and role != "q":
        one = torch.randn((batch, 1, length, dim), generator=generator).to(dtype)
        return one.expand(batch, heads, length, dim)
    if layout not in LAYOUTS:
        raise ValueError(f"attention.layout {layout!r} is not one of {', '.join(LAYOUTS)}")
    return torch.randn((batch,) + shape, generator=generator).to(dtype)


# The case's knobs that are environment variables, set around the compile only (knobs.cpp's
# kEnvironment): ATEN_CPU_CAPABILITY picks the vector ISA Inductor targets when cpp.simdlen is
# left to it; eager's ATen kernels were picked when torch was imported.
ENVIRONMENT_KNOBS = ("ATEN_CPU_CAPABILITY",)


class compile_environment:
    """Sets the case's environment knobs for the duration of a compile, then restores them."""

    def __init__(self, case):
        knobs = case.get("inductor") or {}
        self.settings = {key: str(knobs[key]) for key in ENVIRONMENT_KNOBS if key in knobs}
        self.saved = {}

    def __enter__(self):
        import os

        for key, value in self.settings.items():
            self.saved[key] = os.environ.get(key)
            os.environ[key] = value
        return self

    def __exit__(self, *exc):
        import os

        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        return False
