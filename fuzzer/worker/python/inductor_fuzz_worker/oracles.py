"""The oracles: how a case's API runs eagerly and compiled, and how the two results compare.

This is the one implementation: the worker runs cases with it, and the repro script that
`inductor-fuzz gen --python` writes embeds this file verbatim and calls the same functions.
So it imports nothing from its own package, only the standard library and torch.

A comparison yields mismatches, dicts with at least "field" and "problem"; none means the
compiled result agrees with eager. "field" names what differs, so that one wrong field is one
signature.
"""

import contextlib

try:
    from .allocations import zeroed_allocations
    from .block_masks import create_block_mask_options, rebuilt_from_kv_blocks
    from .case_calls import (  # noqa: F401 (oracles.X is what callers and tests use)
        CAPTURED_DTYPES,
        CLOSURE_FACTORY,
        COMPILE_FUNCTION,
        COMPILE_MODULE,
        LAYOUTS,
        attention_arguments,
        block_size,
        build_namespace,
        build_program,
        call_count,
        case_for_call,
        compile_environment,
        function_of,
        index_program,
        laid_out,
        mask_arguments,
    )
    from .comparisons import (  # noqa: F401 (oracles.X is what callers and tests use)
        ATTENTION_TOLERANCE,
        BLOCK_MASK_SIZES,
        BLOCK_MASK_TENSORS,
        DEFAULT_BLOCK_Q,
        EAGER_ERROR_FACTOR,
        EVERYWHERE_SHARE,
        HOW_TOKENS,
        PATTERN_SHARE,
        WHERE_TOKENS,
        _indices_used,
        _is_tail,
        _mask_slices,
        _sizes,
        _tails,
        attention_error,
        attention_how,
        attention_where,
        compare_attention,
        compare_block_masks,
        compare_tensors,
        exact_how,
        exact_where,
        fully_masked_rows,
        reference_entry,
    )
    from .compat import split_config
    from .value_judge import judge_values
except ImportError:  # pasted into a repro script, after the text of the modules above
    pass

# How a case's function is compiled (the case's "compile_with"; absent means torch.compile).
TORCH_COMPILE = "torch.compile"
AOTI = "aoti"
INDEX_PROGRAM = "index_program"


def forget_vec_isa_list():
    from torch._inductor import cpu_vec_isa

    cache_clear = getattr(cpu_vec_isa.valid_vec_isa_list, "cache_clear", None)
    if cache_clear is not None:
        cache_clear()


class ApiContractError(ValueError):
    """The case breaks a documented contract of the API it calls. Then what flex_attention
    computes is not defined, so a difference between eager and compiled is no bug: the case is
    invalid, never a finding."""


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


class Api:
    """One case's API, run eagerly and compiled on the same inputs, and compared.

    Each step is its own method so that the caller can tell where a case failed: defining its
    functions (the constructor), making its inputs, running eager, compiling.
    """

    def __init__(self, case, namespace):
        from torch.nn.attention import flex_attention as flex

        self.case = case
        self.api = case["api"]
        self.flex = flex
        self.namespace = namespace
        self.mask_mod = function_of(namespace, case, "mask_mod")
        self.score_mod = function_of(namespace, case, "score_mod")
        self.q = self.k = self.v = self.block_mask = None
        self.kwargs = {}
        self.compiled = None  # torch.compile's function, shared by every call of a sequence
        self.program = None  # compile_scope "function" or "module": the user's program
        self.reference = None  # flex_attention's float64 result, made with eager's

    def next_call(self, index):
        """The Api of call `index` of the case's sequence, calling the same compiled function."""
        case = case_for_call(self.case, index)
        following = Api(case, build_namespace(case))
        following.compiled = self.compiled
        if self.function_scope():
            # The compiled function reads the tensors as globals of the first call's namespace,
            # as a user's function reads a module's, or as its module's buffers and parameters:
            # a later call's tables replace them there.
            import torch

            for tensor in case.get("tensors") or []:
                name = tensor["name"]
                self.namespace[name] = following.namespace[name]
                if isinstance(self.program, torch.nn.Module):
                    with torch.no_grad():
                        getattr(self.program, name).copy_(following.namespace[name])
            following.program = self.program
        return following

    def function_scope(self):
        """compile_scope "function" or "module": a user's program calls the API."""
        return self.case.get("compile_scope") in (COMPILE_FUNCTION, COMPILE_MODULE)

    def make_inputs(self):
        """flex_attention's query, key, value and block mask (made eagerly, for both runs)."""
        if self.api != "flex_attention":
            return
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
        """Raises ApiContractError when the case breaks a contract of the API it calls, so that
        what the API returns is not defined (docs/contracts.md lists them). After make_inputs."""
        if self.api != "flex_attention":
            return
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

    def eager_function(self):
        """The API, or for compile_scope "function" the user's function that calls it."""
        if self.api == INDEX_PROGRAM:
            return index_program(self.case, self.mask_mod)
        api = getattr(self.flex, self.api)
        if not self.function_scope():
            return api
        if self.program is None:
            options = {k: v for k, v in self.kwargs.items() if k not in ("score_mod", "block_mask")}
            if self.api != "flex_attention":
                options = self.mask_options()
            self.program = build_program(self.case, self.namespace, api, options)
        return self.program

    def mask_options(self):
        """create_mask's or create_block_mask's keyword arguments."""
        _, kwargs = mask_arguments(self.case, self.mask_mod)
        if self.api == "create_block_mask":
            kwargs["BLOCK_SIZE"] = block_size(self.case)
            kwargs.update(create_block_mask_options(self.case))
        return kwargs

    def run(self, function):
        if self.api == INDEX_PROGRAM:
            return function()
        if self.function_scope():
            constants = self.case.get("constants") or {}
            if self.api == "flex_attention":
                return function(self.q, self.k, self.v, self.block_mask, **constants)
            return function(mask_arguments(self.case, self.mask_mod)[0][1:], **constants)
        if self.api == "flex_attention":
            return function(self.q, self.k, self.v, **self.kwargs)
        args, _ = mask_arguments(self.case, self.mask_mod)
        return function(*args, **self.mask_options())

    def run_eager(self):
        """Eager's result; for flex_attention also the float64 reference, here and not when
        comparing: eager flex_attention compiles internally, so the reference of a later call
        must be made where that call's eager run is, on its own."""
        eager = self.run(self.eager_function())
        if self.api == "flex_attention":
            self.reference = self.flex.flex_attention(
                self.q.double(), self.k.double(), self.v.double(), **self.kwargs
            )
        return eager

    def run_compiled(self, inductor_config, dynamic):
        """torch.compile of the API under the case's complete Inductor configuration; for an
        aoti case (compile_with "aoti"), AOTInductor's instead (see AotiProgram)."""
        from torch._inductor import config

        # Keys this torch release does not have are left out (the worker's result names them).
        applicable, _ = split_config(inductor_config)
        # Inductor caches the list of usable vector ISAs for the process on first use, judged under
        # the cpp.vec_isa_ok then in force: a case that sets it must neither see an earlier case's
        # list nor leave its own (empty) one to the worker's next cases.
        isa_sensitive = "cpp.vec_isa_ok" in applicable
        if isa_sensitive:
            forget_vec_isa_list()
        try:
            exact = self.api != "flex_attention"
            with config.patch(applicable), compile_environment(self.case):
                with zeroed_allocations() if exact else contextlib.nullcontext():
                    return self._run_compiled_patched(dynamic)
        finally:
            if isa_sensitive:
                forget_vec_isa_list()

    def _run_compiled_patched(self, dynamic):
        import torch

        if self.case.get("compile_with", TORCH_COMPILE) == AOTI:
            if self.compiled is None:
                self.compiled = AotiProgram(self)
            return self.compiled.run()
        if self.compiled is None:
            self.compiled = torch.compile(self.eager_function(), dynamic=dynamic)
        return self.run(self.compiled)

    def compare(self, eager, compiled):
        """(mismatches, details): details are what the comparison measured, kept in the result
        whether or not anything mismatched."""
        if self.api == "create_block_mask":
            return compare_block_masks(eager, compiled), {}
        if self.api == "create_mask":
            return compare_tensors("mask", eager, compiled), {}
        if self.api == INDEX_PROGRAM:
            # Exact, but for what rounding explains: eager runs again under the judge's tracker
            # when (and only when) the values differ.
            return judge_values(eager, compiled, index_program(self.case, self.mask_mod))
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
        """The float64 reference of a flex_attention case's output (and lse) with what the
        compiled case returned, for replays of its kernels on other compilers (replay.py)."""
        if self.api != "flex_attention" or self.reference is None:
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


class AotiProgram:
    """The case's call compiled by AOTInductor: wrapped in an nn.Module, exported with
    torch.export.export (non-strict, as 2.7 and later do by default), compiled and packaged
    with torch._inductor.aoti_compile_and_package, loaded with aoti_load_package. The module
    holds what is not an input as constants: the block mask flex_attention gets (its tensors
    are lifted as constants) and the captured tensors the functions read as globals.

    flex_attention takes q, k and v as inputs; create_mask and create_block_mask take none.
    create_block_mask's BlockMask is no pytree output, so the module returns its tensors
    (BLOCK_MASK_TENSORS, None where it has none) and run() puts them back beside its sizes,
    which are Python ints fixed when the module was traced."""

    def __init__(self, api):
        import tempfile

        import torch

        self.api = api
        self.sizes = {}
        module = _aoti_module_class()(api, self.sizes)
        inputs = (api.q, api.k, api.v) if api.api == "flex_attention" else ()
        exported = torch.export.export(module, inputs, strict=False)
        # The package is written next to Inductor's cache (the worker's is new for every case).
        self._folder = tempfile.TemporaryDirectory(prefix="aoti-", dir=_cache_dir())
        path = torch._inductor.aoti_compile_and_package(
            exported, package_path=f"{self._folder.name}/case.pt2"
        )
        self.loaded = torch._inductor.aoti_load_package(path)

    def run(self):
        import types

        api = self.api
        if api.api != "flex_attention":
            result = self.loaded()
        else:
            result = self.loaded(api.q, api.k, api.v)
        if api.api == "create_block_mask":
            return types.SimpleNamespace(
                **dict(zip(BLOCK_MASK_TENSORS, result, strict=False)), **self.sizes
            )
        if api.api == "flex_attention" and api.kwargs.get("return_lse"):
            return tuple(result)
        return result


def _cache_dir():
    import os

    folder = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    return folder if folder and os.path.isdir(folder) else None


def _aoti_module_class():
    import torch

    class AotiModule(torch.nn.Module):
        """The API's call, or (compile_scope "module") the case's module as a submodule, so
        that its buffers and parameters are exported as the module's own."""

        def __init__(self, api, sizes):
            super().__init__()
            self.api = api
            self.sizes = sizes
            module = api.case.get("compile_scope") == COMPILE_MODULE
            self.program = api.eager_function() if module else None

        def forward(self, *inputs):
            api = self.api
            constants = api.case.get("constants") or {}
            if api.api == "flex_attention":
                if self.program is not None:
                    return self.program(*inputs, api.block_mask, **constants)
                return api.flex.flex_attention(*inputs, **api.kwargs)
            args, kwargs = mask_arguments(api.case, api.mask_mod)
            if self.program is not None:
                mask = self.program(args[1:], **constants)
                if api.api == "create_mask":
                    return mask
            elif api.api == "create_mask":
                return api.flex.create_mask(*args, **kwargs)
            else:
                mask = api.flex.create_block_mask(*args, **api.mask_options())
            self.sizes.update({field: getattr(mask, field) for field in BLOCK_MASK_SIZES})
            return tuple(getattr(mask, field) for field in BLOCK_MASK_TENSORS)

    return AotiModule
