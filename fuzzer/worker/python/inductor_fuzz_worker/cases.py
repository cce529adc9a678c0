"""Running one case: define it, run it eagerly, compile it with everything captured, and ask
the oracle whether the two agree.

Where a case fails decides what the failure means. Eager is the reference: when defining the
case, making its inputs or running it eagerly fails and the case did not say it would, the
case is broken ("invalid-case"), not torch.compile. So is a case that breaks a contract of the
API it calls (phase "contract", oracles.ApiContractError: a block mask made with H=None for a
mask_mod that reads h), whose result no oracle can judge. Only what fails once compiling starts
is a finding.
"""

import contextlib
import os
import time

from .capture import BUILD_JOURNAL, BuildCache, Capture, collect_wrapper_code
from .compat import clear_inductor_caches, split_config
from .exceptions import classify_exception, describe_exception
from .first_wrong import locate_first_wrong
from .kernels import KernelRecorder
from .oracles import Api, build_namespace, call_count
from .plants import plant_difference
from .prefix_headers import PrefixHeaders
from .replay import save_references
from .surface import SurfaceRecorder


@contextlib.contextmanager
def fresh_inductor_state(cache_dir):
    """A new Inductor cache folder and cleared in-memory caches, so that nothing one case
    compiled shapes what the next one generates."""
    import torch

    os.makedirs(cache_dir, exist_ok=True)
    saved = {key: os.environ.get(key) for key in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")}
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir
    os.environ["TRITON_CACHE_DIR"] = os.path.join(cache_dir, "triton")
    torch._dynamo.reset()
    clear_inductor_caches()
    try:
        yield
    finally:
        torch._dynamo.reset()
        clear_inductor_caches()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


# The finding kinds a case's result may name (docs/signature.md): what the worker finds.
EXCEPTION = "exception"
COMPILE_ERROR = "compile-error"
WRONG_RESULT = "wrong-result"


def run_case(
    session,
    case,
    cache_dir,
    inductor_config,
    dynamic,
    eager_only=False,
    plant=None,
    record_dir=None,
    defaulted_knobs=(),
    build_cache=None,
):
    """The result of one case. inductor_config is the complete torch._inductor.config patch
    and dynamic torch.compile's argument, both as the driver computed them from the case.

    A case with a call sequence calls the one compiled function once per call, each call with
    its own inputs and functions, and compares each against eager; a call's mismatches are
    named "callN.FIELD" (N > 0) so that the first call keeps the signatures of a single call.
    Each call's eager reference runs on its own, after torch._dynamo.reset(): eager
    flex_attention compiles internally, and its reference must not depend on the calls before.
    """
    run = CaseRun(session, case, cache_dir, inductor_config, dynamic, plant, record_dir)
    with fresh_inductor_state(cache_dir):
        if not run.run_eagerly(eager_only) or eager_only:
            return run.result
        run.start_compiling(build_cache)
        for index, (api, eager) in enumerate(zip(run.apis, run.eagers, strict=False)):
            compiled = run.compile_call(index, api, defaulted_knobs)
            if compiled is CaseRun.FAILED:
                return run.result
            if eager is not None:
                run.compare_call(index, api, eager, compiled)
        run.collect()
        run.locate_first_wrong()
    return run.verdict()


class CaseRun:
    """One case's run, step by step (run_case calls them in order): every call defined and run
    eagerly, the capture installed, each call compiled and compared, what the capture saw
    collected, the verdict. `result` is the result so far, its keys in the order they are met."""

    FAILED = object()  # compile_call's answer when torch.compile failed (result says how)

    def __init__(self, session, case, cache_dir, inductor_config, dynamic, plant, record_dir):
        self.session, self.case, self.cache_dir = session, case, cache_dir
        self.inductor_config, self.dynamic = inductor_config, dynamic
        self.plant, self.record_dir = plant, record_dir
        self.result = {"status": "pass", "kind": None, "phases": {}, "builds": [], "wrappers": []}
        self.expected = (case.get("expect") or {}).get("raises")
        self.started = time.monotonic()
        self.calls = call_count(case)
        if self.calls > 1:
            self.result["calls"] = self.calls
        self.apis, self.eagers, self.mismatches = [], [], []

    def run_eagerly(self, eager_only):
        """Defines every call, makes its inputs, checks its contracts and runs it eagerly; False
        when the case failed before compiling (result says how)."""
        import torch

        for index in range(self.calls):
            torch._dynamo.reset()
            phase = "define"
            eager = None
            try:
                self.apis.append(
                    Api(self.case, build_namespace(self.case))
                    if not self.apis
                    else self.apis[0].next_call(index)
                )
                phase = "inputs"
                self.apis[-1].make_inputs()
                phase = "contract"
                self.apis[-1].check_contracts()
                phase = "eager"
                eager = self.apis[-1].run_eager()
            except BaseException as error:
                if not self.expected or eager_only or phase != "eager":
                    _broken(self.session, self.result, phase, error, self.expected, index)
                    return False
                # Meant to raise: eager's exception is kept, and the compile still runs, since
                # what torch.compile raises for it is what the case is about.
                self.result["eager_exception"] = describe_exception(error, self.session.torch_root)
            self.eagers.append(eager)
        self.result["phases"]["eager_seconds"] = round(time.monotonic() - self.started, 3)
        return True

    def start_compiling(self, build_cache):
        """Inductor's state reset, and the capture of builds, kernels and surface made."""
        import torch

        torch._dynamo.reset()
        absent = split_config(self.inductor_config)[1]
        if absent:  # keys this torch release does not have: left out of the patch
            self.result["config_absent"] = absent
        record_dir = self.record_dir
        self.capture = Capture(
            self.session.cpp_builder,
            self.session.versions,
            journal=os.path.join(record_dir, BUILD_JOURNAL) if record_dir else None,
            build_cache=BuildCache(build_cache, self.cache_dir) if build_cache else None,
            prefixes=_prefixes_beside(build_cache),
        )
        self.recorder = KernelRecorder(record_dir)
        self.surface = SurfaceRecorder()

    def compile_call(self, index, api, defaulted_knobs):
        """Call `index` compiled (the first call's compiled function, for every call) and run:
        its result, or FAILED when torch.compile raised (result says how)."""
        import torch

        started = time.monotonic()
        api.compiled = self.apis[0].compiled
        try:
            with self.capture.installed(), self.recorder.installed(), self.surface.installed():
                compiled = api.run_compiled(self.inductor_config, self.dynamic)
                if index == 0:
                    self.result["knobs_in_force"] = knobs_in_force(defaulted_knobs, self.dynamic)
        except BaseException as error:
            self.result["builds"] = self.capture.builds
            self.result["wrappers"] = collect_wrapper_code(self.cache_dir)
            self.result["surface"] = self.surface.cells()
            kind = EXCEPTION
            if any(b["exit_code"] != 0 for b in self.capture.builds):
                kind = COMPILE_ERROR
            if index:
                self.result["call"] = index
            _failed(self.session, self.result, kind, "compile", error, self.expected)
            return CaseRun.FAILED
        key = "compiled_seconds" if index == 0 else f"call{index}_compiled_seconds"
        self.result["phases"][key] = round(time.monotonic() - started, 3)
        if self.calls > 1:  # whether a call recompiled: Dynamo's graph count after each call
            graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"]
            self.result.setdefault("graphs_after_call", []).append(graphs)
        return compiled

    def compare_call(self, index, api, eager, compiled):
        """Call `index`'s compiled result against eager's (planted first, for a test plant);
        the first call's references saved for replays."""
        if self.plant:
            compiled = plant_difference(self.case["api"], compiled, self.plant)
        started = time.monotonic()
        found, details = api.compare(eager, compiled)
        if self.record_dir and index == 0 and not self.plant:
            save_references(self.record_dir, api.reference_entries(eager, compiled))
        key = "compare_seconds" if index == 0 else f"call{index}_compare_seconds"
        self.result["phases"][key] = round(time.monotonic() - started, 3)
        for mismatch in found:
            if index:
                mismatch["field"] = f"call{index}.{mismatch['field']}"
                mismatch["call"] = index
        self.mismatches += found
        if details:
            self.result.update(details if index == 0 else {f"call{index}": details})

    def collect(self):
        """What the capture saw: the surface, the kernels recorded, the builds, the wrappers."""
        self.result["surface"] = self.surface.cells()
        self.result["recordings"] = self.recorder.save()
        self.result["recording_skipped"] = sorted(set(self.recorder.skipped))
        self.result["builds"] = self.capture.builds
        self.result["wrappers"] = collect_wrapper_code(self.cache_dir)

    def locate_first_wrong(self):
        """For a wrong program of one call (an API whose LOCATES_FIRST_WRONG is set), the first
        statement whose value is wrong on its own (first_wrong.py), after the capture: the
        prefixes' builds are not the case's."""
        api = self.apis[0] if self.apis else None
        if not self.mismatches or self.plant or self.calls != 1:
            return
        if not getattr(api, "LOCATES_FIRST_WRONG", False):
            return
        started = time.monotonic()
        located = locate_first_wrong(
            type(api), self.case, build_namespace, self.inductor_config, self.dynamic
        )
        self.result["phases"]["first_wrong_seconds"] = round(time.monotonic() - started, 3)
        if located:
            self.result["first_wrong"] = located

    def verdict(self):
        """The result: a wrong result when a call mismatched, and the exception the case
        expected but torch.compile did not raise named."""
        if self.expected:
            self.result["expected_exception_missing"] = self.expected
        if self.mismatches:
            self.result.update(status="finding", kind=WRONG_RESULT, mismatches=self.mismatches)
        return self.result


def _prefixes_beside(build_cache):
    """The precompiled prefixes go with the shared builds (--no-shared-builds turns off both),
    in a folder beside theirs that a confined worker may write (Worker::WriteRoots)."""
    if not build_cache:
        return None
    folder = os.path.join(os.path.dirname(os.path.abspath(build_cache)), "gcc-prefixes")
    return PrefixHeaders(folder, BuildCache.torch_stamp())


def knobs_in_force(defaulted_knobs, dynamic):
    """The values of the knobs the case left to Inductor, read while its patch is in force."""
    from torch._inductor import config

    in_force = {}
    for name in defaulted_knobs:
        if name == "dynamic":
            in_force[name] = dynamic
            continue
        value = config
        for part in name.split("."):
            value = getattr(value, part, None)
        in_force[name] = value
    return in_force


def _described(session, error, expected):
    described = describe_exception(error, session.torch_root)
    described["class"] = classify_exception(described)
    described["expected"] = bool(expected) and described["class"] == expected
    return described


def _failed(session, result, kind, phase, error, expected):
    """torch.compile failed: a finding, unless it raised what the case said it would."""
    described = _described(session, error, expected)
    if kind == "exception" and "compile_error" in described:
        kind = "compile-error"
    status = "expected" if described["expected"] else "finding"
    result.update(status=status, kind=kind, phase=phase, exception=described)
    return result


def _broken(session, result, phase, error, expected, call=0):
    """The case failed before compiling: as the case said it would, or it is invalid."""
    described = _described(session, error, expected)
    if phase == "contract":  # a broken contract is never what a case means to raise
        described["expected"] = False
    if call:
        result["call"] = call
    if described["expected"]:
        result.update(status="expected", kind="exception", phase=phase, exception=described)
    else:
        result.update(status="invalid-case", kind=None, phase=phase, exception=described)
    return result
