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
    import torch

    result = {"status": "pass", "kind": None, "phases": {}, "builds": [], "wrappers": []}
    expected = (case.get("expect") or {}).get("raises")
    started = time.monotonic()
    calls = call_count(case)
    if calls > 1:
        result["calls"] = calls
    with fresh_inductor_state(cache_dir):
        apis, eagers = [], []
        for index in range(calls):
            torch._dynamo.reset()
            phase = "define"
            eager = None
            try:
                apis.append(
                    Api(case, build_namespace(case)) if not apis else apis[0].next_call(index)
                )
                phase = "inputs"
                apis[-1].make_inputs()
                phase = "contract"
                apis[-1].check_contracts()
                phase = "eager"
                eager = apis[-1].run_eager()
            except BaseException as error:
                if not expected or eager_only or phase != "eager":
                    return _broken(session, result, phase, error, expected, index)
                # Meant to raise: eager's exception is kept, and the compile still runs, since
                # what torch.compile raises for it is what the case is about.
                result["eager_exception"] = describe_exception(error, session.torch_root)
            eagers.append(eager)
        result["phases"]["eager_seconds"] = round(time.monotonic() - started, 3)
        if eager_only:
            return result
        torch._dynamo.reset()
        absent = split_config(inductor_config)[1]
        if absent:  # keys this torch release does not have: left out of the patch
            result["config_absent"] = absent

        capture = Capture(
            session.cpp_builder,
            session.versions,
            journal=os.path.join(record_dir, BUILD_JOURNAL) if record_dir else None,
            build_cache=BuildCache(build_cache, cache_dir) if build_cache else None,
            prefixes=_prefixes_beside(build_cache),
        )
        recorder = KernelRecorder(record_dir)
        surface = SurfaceRecorder()
        mismatches = []
        for index, (api, eager) in enumerate(zip(apis, eagers, strict=False)):
            started = time.monotonic()
            api.compiled = apis[0].compiled
            try:
                with capture.installed(), recorder.installed(), surface.installed():
                    compiled = api.run_compiled(inductor_config, dynamic)
                    if index == 0:
                        result["knobs_in_force"] = knobs_in_force(defaulted_knobs, dynamic)
            except BaseException as error:
                result["builds"] = capture.builds
                result["wrappers"] = collect_wrapper_code(cache_dir)
                result["surface"] = surface.cells()
                kind = "exception"
                if any(b["exit_code"] != 0 for b in capture.builds):
                    kind = "compile-error"
                if index:
                    result["call"] = index
                return _failed(session, result, kind, "compile", error, expected)
            key = "compiled_seconds" if index == 0 else f"call{index}_compiled_seconds"
            result["phases"][key] = round(time.monotonic() - started, 3)
            if calls > 1:  # whether a call recompiled: Dynamo's graph count after each call
                graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"]
                result.setdefault("graphs_after_call", []).append(graphs)
            if eager is None:
                continue
            if plant:
                compiled = plant_difference(case["api"], compiled, plant)
            started = time.monotonic()
            found, details = api.compare(eager, compiled)
            if record_dir and index == 0 and not plant:
                save_references(record_dir, api.reference_entries(eager, compiled))
            key = "compare_seconds" if index == 0 else f"call{index}_compare_seconds"
            result["phases"][key] = round(time.monotonic() - started, 3)
            for mismatch in found:
                if index:
                    mismatch["field"] = f"call{index}.{mismatch['field']}"
                    mismatch["call"] = index
            mismatches += found
            if details:
                result.update(details if index == 0 else {f"call{index}": details})
        result["surface"] = surface.cells()
        result["recordings"] = recorder.save()
        result["recording_skipped"] = sorted(set(recorder.skipped))
        result["builds"] = capture.builds
        result["wrappers"] = collect_wrapper_code(cache_dir)
    if expected:
        result["expected_exception_missing"] = expected
    if mismatches:
        result.update(status="finding", kind="wrong-result", mismatches=mismatches)
    return result


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
