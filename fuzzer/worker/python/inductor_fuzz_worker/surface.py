"""Inductor's C++ op surface: which override Inductor emitted, for which dtype, on which path.

A cell is (op, dtype, path). The op is the name of the override in Inductor's own
CppOverrides / CppVecOverrides (torch/_inductor/codegen/cpp.py), or a load/store form; the
dtype is the dtype of the value the override received (of the result for ops without an
input); the path is where the C++ went:

  scalar       a scalar kernel (CppKernel), or a scalar op inside a vector kernel
  vector       a vectorized kernel's body (CppVecKernel, CppTile2DKernel)
  vector_tail  a vectorized kernel of a loop tail (its tail_size is set: masked vector code)

Cells are read from Inductor's codegen as it runs: every op a C++ kernel generates passes
through CppCSEVariable.update_on_args (the hook CSEProxy calls for each op's result), where
the kernel (V.kernel), the result's vector-ness and the arguments' dtypes are known. Loads and
stores are read at the kernel's own load/store: their masked and gather forms are ops of
their own ("load.masked", "load.gather", "store.masked").

The universe (surface_universe) is derived from the installed release: the ops are the
overrides' own names; whether eager supports an (op, dtype) is asked of eager itself, by
calling the op's eager counterpart on a tensor of that dtype, and which cells Inductor emits
for it is asked of Inductor, by running its codegen (not the C++ compile) on those calls.
"""

import contextlib
import hashlib
import json
import os
import tempfile

PATHS = ("scalar", "vector", "vector_tail")
DTYPES = (
    "bool",
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
)
LOAD_STORE_OPS = ("load", "load.masked", "load.gather", "store", "store.masked")
# Inductor's ops with no eager counterpart that every elementwise program passes through: a
# cell for every dtype. Random number ops and the internal rounding helpers are left out (no
# mask or score program reaches them).
STRUCTURAL_OPS = (
    "to_dtype",
    "to_dtype_bitcast",
    "where",
    "masked",
    "constant",
    "index_expr",
) + LOAD_STORE_OPS
NOT_A_PROGRAM_OP = ("rand", "randn", "randint64", "rand_eager", "load_seed", "value_expr")
# Inductor's own boolean connectives (masks and'ed together): other dtypes reach bitwise_and.
BOOL_ONLY_OPS = ("and_", "or_")
# Ops whose eager counterpart has another name or another calling convention.
EAGER_NAMES = {
    "add": "add",
    "sub": "sub",
    "mul": "mul",
    "truediv": "true_divide",
    "floordiv": "floor_divide",
    "mod": "fmod",
    "and_": "bitwise_and",
    "eq": "eq",
    "ne": "ne",
    "lt": "lt",
    "le": "le",
    "gt": "gt",
    "ge": "ge",
    "fmaximum": "fmax",
    "round_to_int": None,
    "mul_rn": None,
    "fma": None,
}
# Inductor computes half and bfloat16 in float32 (CppKernelProxy.legalize_lowp_fp_dtype:
# only loads, stores and conversions see the 16-bit type), so an op on a 16-bit float value
# reaches the float32 cell; these are the ops that see the 16-bit dtype itself.
LOWP_FP_OPS = ("to_dtype", "to_dtype_bitcast", "constant", "index_expr") + LOAD_STORE_OPS


def _dtype_name(dtype):
    return str(dtype).removeprefix("torch.") if dtype is not None else "unknown"


class SurfaceRecorder:
    """Records the cells one case's compile reaches. install() once per compile; cells()."""

    def __init__(self):
        self._cells = set()

    def cells(self):
        return sorted([str(part) for part in cell] for cell in self._cells)

    def _path(self, kernel, is_vec):
        from torch._inductor.codegen.cpp import CppVecKernel

        if isinstance(kernel, CppVecKernel) and is_vec:
            return "vector_tail" if getattr(kernel, "tail_size", None) else "vector"
        return "scalar"

    def _on_op(self, variable, name, args):
        from torch._inductor.codegen.cpp_utils import CppCSEVariable
        from torch._inductor.virtualized import V

        if name in ("load", "store") or name.startswith("_"):
            return
        dtype = None
        for arg in args:
            if isinstance(arg, CppCSEVariable) and arg.dtype is not None:
                dtype = arg.dtype
                break
        if name == "where" and len(args) == 3 and isinstance(args[1], CppCSEVariable):
            dtype = args[1].dtype or dtype  # the values', not the condition's
        if dtype is None:
            dtype = variable.dtype
        try:
            kernel = V.kernel
        except Exception:  # noqa: BLE001 (no kernel: not C++ codegen)
            return
        self._cells.add((name, _dtype_name(dtype), self._path(kernel, variable.is_vec)))
        if name == "to_dtype" and len(args) >= 2:
            self._cells.add(("to_dtype->" + _dtype_name(args[1]), _dtype_name(dtype), "cast"))

    def _on_access(self, kernel, op, name, index, is_vec):
        from torch._inductor.codegen.cpp import CppVecKernel
        from torch._inductor.virtualized import V

        try:
            dtype = V.graph.get_dtype(name)
        except Exception:  # noqa: BLE001
            return
        form = op
        if getattr(kernel, "_load_mask", None) is not None:
            form += ".masked"
        elif isinstance(kernel, CppVecKernel) and is_vec and op == "load":
            tiling = kernel.itervars[kernel.tiling_idx]
            stride = kernel._try_get_const_stride(index, tiling)
            if stride not in (0, 1):
                form += ".gather"
        self._cells.add((form, _dtype_name(dtype), self._path(kernel, is_vec)))

    @contextlib.contextmanager
    def installed(self):
        """Inductor's C++ codegen with the recorder watching; restored after."""
        from torch._inductor.codegen import cpp
        from torch._inductor.codegen.cpp_utils import CppCSEVariable

        recorder = self
        original_update = CppCSEVariable.update_on_args
        originals = {
            (cls, attr): cls.__dict__[attr]
            for cls in (cpp.CppKernel, cpp.CppVecKernel, cpp.CppTile2DKernel)
            for attr in ("load", "store")
            if attr in cls.__dict__
        }

        def update_on_args(self, name, args, kwargs):
            original_update(self, name, args, kwargs)
            try:
                recorder._on_op(self, name, args)
            except Exception:  # noqa: BLE001 (recording never breaks a compile)
                pass

        def access(function, op):
            def wrapped(kernel, name, index, *rest, **kwargs):
                result = function(kernel, name, index, *rest, **kwargs)
                try:
                    if op == "load":
                        is_vec = bool(getattr(result, "is_vec", False))
                    else:
                        value = rest[0] if rest else kwargs.get("value")
                        is_vec = bool(getattr(value, "is_vec", False))
                    recorder._on_access(kernel, op, name, index, is_vec)
                except Exception:  # noqa: BLE001
                    pass
                return result

            return wrapped

        CppCSEVariable.update_on_args = update_on_args
        for (cls, attr), function in originals.items():
            setattr(cls, attr, access(function, attr))
        try:
            yield self
        finally:
            CppCSEVariable.update_on_args = original_update
            for (cls, attr), function in originals.items():
                setattr(cls, attr, function)


def _override_ops():
    """{op: vectorized natively} for every override of Inductor's C++ backend."""
    from torch._inductor.codegen.cpp import CppOverrides, CppVecOverrides

    ops = {}
    for name, method in vars(CppOverrides).items():
        if isinstance(method, staticmethod) and not name.startswith("_"):
            ops[name] = False
    for name, method in vars(CppVecOverrides).items():
        if not isinstance(method, staticmethod) or name.startswith("_"):
            continue
        scalarized = "_scalarize" in getattr(method.__func__, "__qualname__", "")
        if not scalarized:
            ops[name] = True
        else:
            ops.setdefault(name, False)
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):  # OpOverrides' own, on both paths
        ops.setdefault(name, True)
    return ops


def _eager_function(op):
    import torch

    name = EAGER_NAMES.get(op, op)
    if name is None:
        return None
    if op == "truncdiv":
        return lambda a, b: torch.div(a, b, rounding_mode="trunc")
    for namespace in (torch, torch.special):
        function = getattr(namespace, name, None)
        if callable(function):
            return function
    return None


def _arity(op):
    import inspect

    from torch._inductor.codegen.cpp import CppOverrides

    method = getattr(CppOverrides, op, None)
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return 1
    return sum(1 for p in parameters if p.default is inspect.Parameter.empty) or 1


def _sample(dtype, torch):
    if dtype == torch.bool:
        return torch.tensor([True, False, True, False])
    if dtype.is_floating_point:
        return torch.tensor([0.5, -1.5, 0.0, float("nan"), float("inf")], dtype=dtype)
    if dtype == torch.uint8:
        return torch.tensor([1, 200, 0, 7], dtype=dtype)
    return torch.tensor([1, -2, 0, 7], dtype=dtype)


def _eager_support(op, dtype, torch):
    """Whether eager runs `op` on `dtype` and keeps it (or gives bool): the override then sees
    that dtype. A result of another dtype (sin of an integer) means Inductor converts first."""
    if op in BOOL_ONLY_OPS:
        return "supported" if dtype == torch.bool else "promoted"
    function = _eager_function(op)
    if function is None:
        return None
    sample = _sample(dtype, torch)
    arity = _arity(op)
    if op in ("ldexp",):
        args = [sample, torch.ones_like(sample, dtype=torch.int32)]
    elif op in ("polygamma",):
        args = [1, sample]
    elif op in ("frexp",):
        args = [sample]
    else:
        args = [sample] * arity
    try:
        result = function(*args)
    except Exception:  # noqa: BLE001 (not implemented for the dtype, or no such overload)
        return "unsupported"
    if isinstance(result, tuple):
        result = result[0]
    if not isinstance(result, torch.Tensor):
        return "unsupported"
    if result.dtype != dtype and result.dtype != torch.bool:
        return "promoted"
    # A unary op that is its input (ceil of an integer) or a constant of it (isnan of an
    # integer) on a varied sample is folded away by Inductor: no override sees the dtype.
    if arity == 1 and (
        (result.dtype == dtype and torch.equal(result, sample))
        or (result.dtype == torch.bool and dtype != torch.bool and result.unique().numel() == 1)
    ):
        return "folded"
    return "supported"


# The length the probe's kernels run over: past every vector width (64 int8 lanes at
# AVX-512), and not a multiple of any, so that a vectorized kernel has a tail.
PROBE_LENGTH = 131


class _CodegenDone(Exception):
    """Raised where Inductor would compile its generated C++: the probe needs the codegen only."""


def _stop_after_codegen(graph, wrapper_code):
    raise _CodegenDone()


def _cells_of(functions, args, torch):
    """The cells Inductor's C++ codegen emits for `functions` (one output each) on `args`, or
    None when the compile failed for another reason than the probe's own stop."""
    from torch._inductor import config
    from torch._inductor.graph import GraphLowering

    def program(*inputs):
        return tuple(function(*inputs) for function in functions)

    recorder = SurfaceRecorder()
    torch._dynamo.reset()
    original = GraphLowering._compile_to_module_lines
    GraphLowering._compile_to_module_lines = _stop_after_codegen
    try:
        # One kernel per output (no fusion), so that an op Inductor cannot vectorize keeps
        # only its own kernel scalar; no cache, so that the codegen runs.
        with (
            recorder.installed(),
            config.patch({"max_fusion_size": 1, "fx_graph_cache": False, "freezing": False}),
        ):
            torch.compile(program, fullgraph=True, dynamic=False)(*args)
    except Exception as error:  # noqa: BLE001 (the stop, or the batch has a failing op)
        cause = error
        while cause is not None and not isinstance(cause, _CodegenDone):
            cause = cause.__cause__ or cause.__context__
        if cause is None:
            return None
    finally:
        GraphLowering._compile_to_module_lines = original
        torch._dynamo.reset()
    return recorder.cells()


def _probe(functions, args, torch, cells):
    """Adds the cells of `functions` to `cells`; a batch that fails is split, so that one op
    Inductor refuses costs only its own cells."""
    if not functions:
        return
    found = _cells_of(functions, args, torch)
    if found is not None:
        cells.update(tuple(cell) for cell in found)
    elif len(functions) > 1:
        half = len(functions) // 2
        _probe(functions[:half], args, torch, cells)
        _probe(functions[half:], args, torch, cells)


def _probe_inputs(dtype, torch):
    """Two contiguous inputs of `dtype` (a binary op of two contiguous loads vectorizes; of a
    flipped one it does not), the sample's values in two orders."""
    sample = _sample(dtype, torch)
    x = sample.repeat(PROBE_LENGTH // sample.numel() + 1)[:PROBE_LENGTH].contiguous()
    return x, x.roll(1).contiguous()


def _op_probe(op, dtype, torch):
    """(x, y) -> eager's counterpart of `op` on x (and y) of `dtype` (with the arguments
    _eager_support uses), or None when the op has no eager counterpart."""
    function = _eager_function(op)
    if function is None:
        return None
    arity = _arity(op)
    if op == "ldexp":
        return lambda x, y: function(x, torch.ones_like(x, dtype=torch.int32))
    if op == "polygamma":
        return lambda x, y: function(1, x)
    if op == "frexp":
        return lambda x, y: function(x)[0]
    if arity >= 2:
        return lambda x, y: function(*([x, y] + [x] * (arity - 2)))
    return lambda x, y: function(x)


def _structural_probes(dtype, torch):
    """Programs that make Inductor emit its own ops on `dtype`: loads and stores (plain,
    masked by a pad, gathered), conversions to every dtype and bitcasts to every dtype of the
    same width, where, constants, index expressions."""
    names = [name for name in DTYPES if name != str(dtype).removeprefix("torch.")]
    probes = [
        lambda x, y: torch.nn.functional.pad(x, (3, 5)),
        lambda x, y: x[(torch.arange(x.numel()) * 7) % x.numel()],
        lambda x, y: torch.where(x == y, x, y),
        lambda x, y: torch.cat([x, y]),
        lambda x, y: torch.arange(x.numel(), dtype=dtype) if dtype != torch.bool else x,
        lambda x, y: torch.full_like(x, 1) + x if dtype != torch.bool else x | True,
    ]
    for name in names:
        other = getattr(torch, name)
        probes.append(lambda x, y, other=other: x.to(other))
        if other.itemsize == dtype.itemsize and torch.bool not in (other, dtype):
            probes.append(lambda x, y, other=other: x.view(other).to(torch.float64))
    return probes


def _inductor_cells(states, torch):
    """The cells Inductor's codegen emits when every op eager supports runs on every dtype,
    and its own ops on every dtype: a probe through the real torch.compile, stopped before the
    C++ compile (seconds per dtype)."""
    cells = set()
    for dtype_name in DTYPES:
        dtype = getattr(torch, dtype_name)
        functions = _structural_probes(dtype, torch)
        for op, by_dtype in states.items():
            if by_dtype.get(dtype_name) == "supported":
                function = _op_probe(op, dtype, torch)
                if function is not None:
                    functions.append(function)
        _probe(functions, _probe_inputs(dtype, torch), torch, cells)
    return cells


def _state(eager, paths):
    """A cell's state: from what Inductor emitted when there is any, else from eager."""
    if paths & {"vector", "vector_tail"} and "scalar" in paths:
        return "supported"
    if paths & {"vector", "vector_tail"}:
        return "vector-only"
    if paths:
        return "scalar-only"
    if eager in ("supported", "structural"):
        return "not-emitted"
    return eager


# Bumped whenever what the probe runs changes, so that a cached universe of an older probe is
# derived again.
PROBE_VERSION = 1


def _universe_cache_file(cache_dir, torch):
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    if cache_dir is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        cache_dir = os.path.join(base, "inductor-fuzz", "surface-universe")
    key = f"{torch.__version__}|{pick_vec_isa()}|probe {PROBE_VERSION}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return os.path.join(cache_dir, f"universe-{digest}.json")


def surface_universe(cache_dir=None):
    """The universe of _derive_universe, kept per release, host vector ISA and probe version
    under cache_dir (default ~/.cache/inductor-fuzz/surface-universe): deriving it takes half
    a minute, and every campaign and test asks. A cache file that does not read is derived
    again and replaced."""
    import torch

    path = _universe_cache_file(cache_dir, torch)
    try:
        with open(path, encoding="utf-8") as stream:
            universe = json.load(stream)
        if universe.get("torch_version") == torch.__version__ and universe.get("ops"):
            return universe
    except (OSError, ValueError):
        pass
    universe = _derive_universe()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=os.path.dirname(path), delete=False, suffix=".tmp", encoding="utf-8"
        ) as stream:
            json.dump(universe, stream)
        os.replace(stream.name, path)
    except OSError:  # a read-only or full cache: the universe is still the answer
        pass
    return universe


def _derive_universe():
    """The ops of the installed release's C++ backend and, per dtype, whether a program can
    make the override see it, derived from the release in two steps. Eager is asked: the
    dtype is "promoted" (eager computes it in another dtype), "folded" (eager's result is the
    input or a constant, which Inductor folds away), "unsupported" (eager refuses) or
    supported. Then Inductor is asked: every supported (op, dtype), and Inductor's own ops
    (loads, stores, conversions, where, ...) on every dtype, run through torch.compile's
    codegen, and the cells it emits decide: "supported" (scalar and vector code),
    "scalar-only" (Inductor keeps the dtype or the op out of vector code), "vector-only", or
    "not-emitted" (eager supports it, but Inductor lowers it to other ops: square to mul, a
    16-bit float op to float32, a logical op to bool)."""
    import torch

    ops = _override_ops()
    eager = {}
    for op in sorted(ops):
        if op in NOT_A_PROGRAM_OP:
            continue
        eager[op] = {}
        for dtype_name in DTYPES:
            state = "structural" if op in STRUCTURAL_OPS else None
            state = state or _eager_support(op, getattr(torch, dtype_name), torch) or "internal"
            eager[op][dtype_name] = state
    for op in LOAD_STORE_OPS:
        eager[op] = dict.fromkeys(DTYPES, "structural")
        ops[op] = True
    emitted = {}
    for op, dtype_name, path in _inductor_cells(eager, torch):
        emitted.setdefault((op, dtype_name), set()).add(path)
    table = []
    for op, by_dtype in eager.items():
        cells = {
            dtype_name: _state(state, emitted.get((op, dtype_name), set()))
            for dtype_name, state in by_dtype.items()
        }
        table.append({"op": op, "vectorized": ops[op], "dtypes": cells})
    return {
        "torch_version": torch.__version__,
        "derived_from": "eager+inductor-codegen",
        "paths": list(PATHS),
        "ops": table,
    }
