"""What every API's oracle shares: the case's functions defined, a call sequence, compiling
with torch.compile or AOTInductor under the case's Inductor configuration.

ApiBase is the base class of each API's own (api_mask.py, api_block_mask.py,
api_flex_attention.py, api_index_program.py), which the registry (apis.py) names; an API's class
overrides what its API does differently: make_inputs, check_contracts, program_options, run,
run_eager, compare, reference_entries and the aoti_* steps. Like oracles.py, the repro script
embeds this file verbatim, so it imports from its package only modules pasted before it, with a
fallback.
"""

import contextlib

try:
    from .allocations import zeroed_allocations
    from .case_calls import (
        COMPILE_FUNCTION,
        COMPILE_MODULE,
        build_namespace,
        build_program,
        case_for_call,
        compile_environment,
        function_of,
    )
    from .compat import split_config
except ImportError:  # pasted into a repro script, after the text of the modules above
    pass

# How a case's function is compiled (the case's "compile_with"; absent means torch.compile).
TORCH_COMPILE = "torch.compile"
AOTI = "aoti"


def forget_vec_isa_list():
    from torch._inductor import cpu_vec_isa

    cache_clear = getattr(cpu_vec_isa.valid_vec_isa_list, "cache_clear", None)
    if cache_clear is not None:
        cache_clear()


class ApiContractError(ValueError):
    """The case breaks a documented contract of the API it calls. Then what flex_attention
    computes is not defined, so a difference between eager and compiled is no bug: the case is
    invalid, never a finding."""


class ApiBase:
    """One case's API, run eagerly and compiled on the same inputs, and compared.

    Each step is its own method so that the caller can tell where a case failed: defining its
    functions (the constructor), making its inputs, running eager, compiling.
    """

    # Whether the compiled result must equal eager's exactly: then the compiled run's fresh
    # memory reads zero (allocations.py), so that an unwritten element never passes by chance.
    EXACT = True

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
        following = type(self)(case, build_namespace(case))
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
        """The API's inputs, made eagerly for both runs (none but the case's own, by default)."""

    def check_contracts(self):
        """Raises ApiContractError when the case breaks a contract of the API it calls, so that
        what the API returns is not defined (docs/contracts.md lists them). After make_inputs."""

    def eager_function(self):
        """The API, or for compile_scope "function" the user's function that calls it."""
        api = getattr(self.flex, self.api)
        if not self.function_scope():
            return api
        if self.program is None:
            self.program = build_program(self.case, self.namespace, api, self.program_options())
        return self.program

    def program_options(self):
        """The keyword arguments the user's program passes to the API."""
        return {}

    def run(self, function):
        """Calls `function`: the API, the user's program or torch.compile's of either."""
        raise NotImplementedError(f"api {self.api!r} says nothing of how it runs")

    def run_eager(self):
        """Eager's result."""
        return self.run(self.eager_function())

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
            with config.patch(applicable), compile_environment(self.case):
                with zeroed_allocations() if self.EXACT else contextlib.nullcontext():
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
        raise NotImplementedError(f"api {self.api!r} says nothing of how it compares")

    def reference_entries(self, eager, compiled):
        """The float64 references of the case's results with what the compiled case returned,
        for replays of its kernels on other compilers (replay.py); none by default."""
        return []

    def aoti_inputs(self):
        """The inputs of the exported module (none: what the API takes are its constants)."""
        return ()

    def aoti_forward(self, program, inputs, sizes):
        """The exported module's forward: the API's call, or `program`'s (compile_scope
        "module"), on `inputs`; `sizes` is where it may keep what is no tensor output."""
        raise NotImplementedError(f"api {self.api!r} is not exported for AOTInductor")

    def aoti_result(self, result, sizes):
        """What the loaded package returned, as the API returns it."""
        return result


class AotiProgram:
    """The case's call compiled by AOTInductor: wrapped in an nn.Module, exported with
    torch.export.export (non-strict, as 2.7 and later do by default), compiled and packaged
    with torch._inductor.aoti_compile_and_package, loaded with aoti_load_package. The module
    holds what is not an input as constants: the block mask flex_attention gets (its tensors
    are lifted as constants) and the captured tensors the functions read as globals.

    The API's class says what the module takes (aoti_inputs), what its forward does
    (aoti_forward) and how the package's result becomes the API's (aoti_result)."""

    def __init__(self, api):
        import tempfile

        import torch

        self.api = api
        self.sizes = {}
        module = _aoti_module_class()(api, self.sizes)
        inputs = api.aoti_inputs()
        exported = torch.export.export(module, inputs, strict=False)
        # The package is written next to Inductor's cache (the worker's is new for every case).
        self._folder = tempfile.TemporaryDirectory(prefix="aoti-", dir=_cache_dir())
        path = torch._inductor.aoti_compile_and_package(
            exported, package_path=f"{self._folder.name}/case.pt2"
        )
        self.loaded = torch._inductor.aoti_load_package(path)

    def run(self):
        return self.api.aoti_result(self.loaded(*self.api.aoti_inputs()), self.sizes)


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
            return self.api.aoti_forward(self.program, inputs, self.sizes)

    return AotiModule
