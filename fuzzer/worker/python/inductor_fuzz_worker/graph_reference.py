"""A float64 reference for every graph a user's program compiles (`capture`), so that a
rebuilt kernel's output can be judged against the true result, as a case's can.

A case knows its op and computes its own reference (oracles.py). A user's program does not
say what it computes, but Dynamo hands Inductor each graph as an FX GraphModule that runs
eagerly too: the hook wraps what Inductor returns, and on the first calls of each graph runs
the graph eagerly twice on copies of the same inputs, once as the program gave them (eager's
own error) and once with every floating tensor and parameter in float64 (the reference).
Each floating output becomes a reference entry (comparisons.reference_entry's format), which
the replay matches to the kernel argument that holds it (replay.reference_error).

What this reference is not: a graph that casts explicitly (`x.float()`, a dtype= argument)
computes that part in the dtype it names, and a graph that draws random numbers has none.
"""

import contextlib
import copy
import threading

from .comparisons import EAGER_ERROR_FACTOR, attention_error, attention_limit

REFERENCE_CALLS_PER_GRAPH = 2  # kernels.RECORDED_CALLS_PER_KERNEL: the calls that are recorded
REFERENCE_BYTES = 256 << 20  # inputs copied and outputs kept, over the whole program
JUDGED_DTYPES = ("float32", "float16", "bfloat16")
# A graph without attention: torch.testing's default (rtol, atol) per dtype, normwise.
GRAPH_TOLERANCE = {"float32": (1.3e-6, 1e-5), "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5)}
RANDOM_OPS = ("rand", "bernoulli", "dropout", "normal", "multinomial", "uniform", "exponential")


def _tensors(value):
    import torch
    import torch.utils._pytree as pytree

    return [leaf for leaf in pytree.tree_leaves(value) if isinstance(leaf, torch.Tensor)]


def _copy_inputs(args, to_float64):
    import torch

    def one(arg):
        if not isinstance(arg, torch.Tensor):
            return arg
        copied = arg.detach().clone()
        if to_float64 and copied.is_floating_point():
            copied = copied.to(torch.float64)
        return copied

    return [one(arg) for arg in args]


def _calls(graph_module):
    """Every call node in the graph and its submodules (score_mod and mask_mod graphs)."""
    for module in graph_module.modules():
        graph = getattr(module, "graph", None)
        for node in getattr(graph, "nodes", ()):
            if node.op in ("call_function", "call_method"):
                yield node


def _target_name(node):
    return str(getattr(node.target, "__name__", node.target))


def _is_identity_dropout(node, name):
    """A dropout that draws nothing: in eval mode (training/train False) or with p == 0, as
    every transformer's dropout is under model.eval(). torch.nn.functional.dropout(input, p,
    training, inplace), torch.dropout and aten.native_dropout(input, p, train) alike."""
    if "dropout" not in name:
        return False
    if node.op == "call_method":  # Tensor.dropout does not exist; a method call is not ours
        return False
    args, kwargs = list(node.args), dict(node.kwargs)
    p = kwargs.get("p", args[1] if len(args) > 1 else 0.5)
    training = kwargs.get("training", kwargs.get("train", args[2] if len(args) > 2 else True))
    # Only constants in the graph count: a p or a training flag that is a node is not known.
    if isinstance(p, (int, float)) and not isinstance(p, bool) and p == 0:
        return True
    return training is False


def _random_draws(graph_module):
    """The call targets that draw random numbers; a dropout that is the identity is none."""
    drawn = set()
    for node in _calls(graph_module):
        name = _target_name(node)
        if any(op in name.lower() for op in RANDOM_OPS) and not _is_identity_dropout(node, name):
            drawn.add(name)
    return sorted(drawn)


def _limit(dtype, eager_error, reference, attention):
    """How far from the float64 reference the compiled output may be: flex_attention's rule
    for a graph that calls it, torch.testing's normwise default otherwise; never less than a
    few times eager's own error."""
    if attention:
        return attention_limit(dtype, eager_error)
    rtol, atol = GRAPH_TOLERANCE[dtype]
    finite = reference[reference.isfinite()]
    scale = float(finite.abs().max()) if finite.numel() else 0.0
    return max(atol + rtol * scale, EAGER_ERROR_FACTOR * eager_error)


class GraphReferences:
    """Wraps torch._inductor.compile_fx.compile_fx (Dynamo's inductor backend calls it by name)
    while installed; `entries` collects the reference entries, `skipped` why a graph has none."""

    def __init__(self):
        self.entries = []
        self.skipped = []
        self._bytes = 0
        self._graphs = 0
        self._inside = threading.local()

    @contextlib.contextmanager
    def installed(self):
        import torch._inductor.compile_fx as compile_fx_module

        original = compile_fx_module.compile_fx
        references = self

        def referencing_compile_fx(model, example_inputs, *args, **kwargs):
            # compile_fx calls itself (config patches, inference graphs): wrap the outermost only.
            if getattr(references._inside, "depth", 0):
                return original(model, example_inputs, *args, **kwargs)
            graph = references._eager_copy(model)
            references._inside.depth = 1
            try:
                compiled = original(model, example_inputs, *args, **kwargs)
            finally:
                references._inside.depth = 0
            # AOTInductor's compile (compile_fx_aot) expects its artifacts back as they are.
            if graph is None or not callable(compiled) or "AOTI" in type(compiled).__name__:
                return compiled
            return references._wrap(graph, compiled)

        compile_fx_module.compile_fx = referencing_compile_fx
        try:
            yield self
        finally:
            compile_fx_module.compile_fx = original

    def _eager_copy(self, model):
        """A copy of the graph to run eagerly (Inductor's passes may rewrite the original), or
        None when it cannot have a reference."""
        import torch

        if not isinstance(model, torch.fx.GraphModule):
            return None
        drawn = _random_draws(model)
        if drawn:
            self.skipped.append(f"a graph draws random numbers ({', '.join(drawn)})")
            return None
        try:
            graph = copy.deepcopy(model)
        except Exception as error:  # noqa: BLE001 - a graph we cannot copy just has no reference
            self.skipped.append(f"a graph could not be copied: {type(error).__name__}: {error}")
            return None
        graph.inductor_fuzz_attention = any(
            "flex_attention" in _target_name(node) for node in _calls(model)
        )
        graph.inductor_fuzz_number = self._graphs
        self._graphs += 1
        return graph

    def _wrap(self, graph, compiled):
        # Dynamo calls what the backend returned with the graph's arguments unpacked (a
        # GmWrapper, which takes them boxed in a list, is not a GraphModule: never wrapped).
        references = self
        calls = []

        def wrapper(*args):
            if len(calls) >= REFERENCE_CALLS_PER_GRAPH:
                return compiled(*args)
            nbytes = sum(t.numel() * t.element_size() for t in _tensors(list(args)))
            if references._bytes + 4 * nbytes > REFERENCE_BYTES:
                references.skipped.append("reference budget spent")
                return compiled(*args)
            references._bytes += 4 * nbytes
            kept = _copy_inputs(args, to_float64=False)  # before: the call may change its inputs
            result = compiled(*args)
            calls.append(True)
            try:
                references._reference(graph, kept, result, len(calls) - 1)
            except Exception as error:  # noqa: BLE001 - the program's result stands regardless
                references.skipped.append(
                    f"graph {graph.inductor_fuzz_number}: {type(error).__name__}: {error}"[:500]
                )
            return result

        return wrapper

    def _reference(self, graph, inputs, result, call):
        import torch

        with torch.no_grad():
            eager = graph(*_copy_inputs(inputs, to_float64=False))
            if not hasattr(graph, "inductor_fuzz_float64"):
                graph.inductor_fuzz_float64 = copy.deepcopy(graph).to(torch.float64)
            reference = graph.inductor_fuzz_float64(*_copy_inputs(inputs, to_float64=True))
        outputs = _tensors(result)
        eagers, references = _tensors(eager), _tensors(reference)
        if not (len(outputs) == len(eagers) == len(references)):
            self.skipped.append(f"graph {graph.inductor_fuzz_number}: outputs do not line up")
            return
        for position, (compiled, eager_out, reference_out) in enumerate(
            zip(outputs, eagers, references, strict=True)
        ):
            dtype = str(compiled.dtype).removeprefix("torch.")
            if dtype not in JUDGED_DTYPES or reference_out.dtype != torch.float64:
                continue
            if tuple(compiled.shape) != tuple(reference_out.shape):
                continue
            compiled = compiled.detach().cpu().clone()
            reference_out = reference_out.detach().cpu().clone()
            eager_error = attention_error(eager_out.detach().cpu(), reference_out)["max_abs_error"]
            self._bytes += compiled.numel() * (compiled.element_size() + 8)
            self.entries.append(
                {
                    "field": f"graph {graph.inductor_fuzz_number} call {call} output {position}",
                    "dtype": dtype,
                    "compiled": compiled,
                    "reference": reference_out,
                    "eager_error": eager_error,
                    "limit": _limit(
                        dtype, eager_error, reference_out, graph.inductor_fuzz_attention
                    ),
                }
            )
