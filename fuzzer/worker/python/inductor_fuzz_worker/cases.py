"""Running one case: define it, run it eagerly, compile it with everything captured, and ask
the oracle whether the two agree.

Where a case fails decides what the failure means. Eager is the reference: when defining the
case, making its inputs or running it eagerly fails and the case did not say it would, the
case is broken ("invalid-case"), not torch.compile. Only what fails once compiling starts is a
finding.
"""

import contextlib
import os
import time

from .capture import BUILD_JOURNAL, Capture, collect_wrapper_code
from .exceptions import classify_exception, describe_exception
from .kernels import KernelRecorder
from .oracles import Api, build_namespace, plant_difference


@contextlib.contextmanager
def fresh_inductor_state(cache_dir):
    """A new Inductor cache folder and cleared in-memory caches, so that nothing one case
    compiled shapes what the next one generates."""
    import torch
    from torch._inductor.utils import clear_caches

    os.makedirs(cache_dir, exist_ok=True)
    saved = {key: os.environ.get(key) for key in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")}
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir
    os.environ["TRITON_CACHE_DIR"] = os.path.join(cache_dir, "triton")
    torch._dynamo.reset()
    clear_caches()
    try:
        yield
    finally:
        torch._dynamo.reset()
        clear_caches()
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
):
    """The result of one case. inductor_config is the complete torch._inductor.config patch
    and dynamic torch.compile's argument, both as the driver computed them from the case."""
    result = {"status": "pass", "kind": None, "phases": {}, "builds": [], "wrappers": []}
    expected = (case.get("expect") or {}).get("raises")
    started = time.monotonic()
    try:
        api = Api(case, build_namespace(case))
    except BaseException as error:  # a SyntaxError or NameError in the case's own source
        return _broken(session, result, "define", error, expected=None)

    with fresh_inductor_state(cache_dir):
        eager = None
        phase = "inputs"
        try:
            api.make_inputs()
            phase = "eager"
            eager = api.run_eager()
        except BaseException as error:
            if not expected or eager_only or phase != "eager":
                return _broken(session, result, phase, error, expected)
            # Meant to raise: eager's exception is kept, and the compile still runs, since what
            # torch.compile raises for it is what the case is about.
            result["eager_exception"] = describe_exception(error, session.torch_root)
        result["phases"]["eager_seconds"] = round(time.monotonic() - started, 3)
        if eager_only:
            return result

        started = time.monotonic()
        capture = Capture(
            session.cpp_builder,
            session.versions,
            journal=os.path.join(record_dir, BUILD_JOURNAL) if record_dir else None,
        )
        recorder = KernelRecorder(record_dir)
        try:
            with capture.installed(), recorder.installed():
                compiled = api.run_compiled(inductor_config, dynamic)
        except BaseException as error:
            result["builds"] = capture.builds
            result["wrappers"] = collect_wrapper_code(cache_dir)
            kind = "exception"
            if any(b["exit_code"] != 0 for b in capture.builds):
                kind = "compile-error"
            return _failed(session, result, kind, "compile", error, expected)
        result["phases"]["compiled_seconds"] = round(time.monotonic() - started, 3)
        result["recordings"] = recorder.save()
        result["recording_skipped"] = sorted(set(recorder.skipped))
        result["builds"] = capture.builds
        result["wrappers"] = collect_wrapper_code(cache_dir)
    if expected:
        result["expected_exception_missing"] = expected
    if eager is None:
        return result
    if plant:
        compiled = plant_difference(case["api"], compiled, plant)
    mismatches, details = api.compare(eager, compiled)
    result.update(details)
    if mismatches:
        result.update(status="finding", kind="wrong-result", mismatches=mismatches)
    return result


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


def _broken(session, result, phase, error, expected):
    """The case failed before compiling: as the case said it would, or it is invalid."""
    described = _described(session, error, expected)
    if described["expected"]:
        result.update(status="expected", kind="exception", phase=phase, exception=described)
    else:
        result.update(status="invalid-case", kind=None, phase=phase, exception=described)
    return result
