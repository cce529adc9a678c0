"""Replaying recorded kernel calls on another build of the same translation unit.

kernels.py records Inductor's kernel calls (whole storages before and after each call); this
module runs another compiler's build of that code on copies of the "before" storages and
compares every tensor with "after". It imports nothing from its package, so that a matrix
finding's repro.sh can carry it as one file beside the recording.
"""

import importlib.util
import itertools
import os

KERNEL_ENTRY = "kernel"
WRAPPER_ENTRY = "inductor_entry_cpp"


def rebuild(description, storages):
    import torch

    kind = description["kind"]
    if kind == "tensor":
        return torch.empty(0, dtype=getattr(torch, description["dtype"])).set_(
            storages[description["storage"]].untyped_storage(),
            description["offset"],
            description["size"],
            description["stride"],
        )
    if kind == "none":
        return None
    return description["value"]


_replayed_modules = itertools.count()

TOLERANCES = {  # (rtol, atol) per floating dtype, as torch.testing.assert_close uses
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
}


def load_entry(module_path, entry):
    import torch

    os.environ["_TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR"] = str(
        torch._C._dynamo.guards._torchinductor_pyobject_tensor_data_ptr
    )
    name = f"inductor_fuzz_replay_{next(_replayed_modules)}.{entry}"
    spec = importlib.util.spec_from_file_location(name, module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, entry)


def call_entry(function, entry, args):
    """Calls a loaded entry as Inductor's wrapper would; returns the tensors it returned."""
    import torch

    if entry != WRAPPER_ENTRY:
        function(*args)
        return []
    present = [arg for arg in args if arg is not None]
    handles = iter(torch._C._aoti.unsafe_alloc_void_ptrs_from_tensors(present))
    output_handles = function([None if arg is None else next(handles) for arg in args])
    return list(torch._C._aoti.alloc_tensors_by_stealing_from_void_ptrs(output_handles))


def compare_tensor(label, expected, actual, tolerance=None):
    """None when equal (integers, bool) or within the dtype's tolerance (floating point), else
    the worst element's error. `tolerance` is (rtol, atol) from the driver's table for this
    dtype and the TU's op family (fuzzer/matrix/tolerances.txt); TOLERANCES when absent.

    The floating-point tolerance is normwise: atol + rtol * max|expected| for every element.
    Kernels that round intermediates to float16 or bfloat16 (flex attention casts its
    probabilities before the second product) turn a last-bit difference in float32 into a few
    ulps of a small output element; relative to the tensor's scale that stays below rtol,
    while a wrong element (a mask or index bug) is far beyond it.
    """
    import torch

    if actual is None or tuple(actual.shape) != tuple(expected.shape):
        return {"argument": label, "error": "shape differs", "max_abs_error": None}
    dtype = str(expected.dtype).removeprefix("torch.")
    e64 = expected.to(torch.float64)
    a64 = actual.to(torch.float64)
    rtol, atol = tolerance or TOLERANCES.get(dtype, (0.0, 0.0))
    scale = 0.0
    if dtype in TOLERANCES:
        finite = e64[e64.isfinite()]
        scale = float(finite.abs().max()) if finite.numel() else 0.0
        close = (
            ((a64 - e64).abs() <= atol + rtol * scale)
            | (actual == expected)
            | (actual.isnan() & expected.isnan())
        )
    else:
        close = actual == expected
    if bool(close.all()):
        return None
    abs_error = (a64 - e64).abs()
    abs_error = torch.where(close, torch.zeros_like(abs_error), abs_error.nan_to_num(float("inf")))
    # Relative to a zero expected value is undefined: such elements only count in abs error.
    rel_error = torch.where(
        e64 != 0, abs_error / e64.abs(), torch.full_like(abs_error, float("nan"))
    )
    rel_mismatched = rel_error[~close].nan_to_num(nan=-1.0)
    flat = int(abs_error.reshape(-1).argmax())
    index = [int(i) for i in torch.unravel_index(torch.tensor(flat), expected.shape)]
    return {
        "argument": label,
        "dtype": dtype,
        "index": index,
        "flat_index": flat,
        "expected": float(e64.reshape(-1)[flat]),
        "actual": float(a64.reshape(-1)[flat]),
        "max_abs_error": float(abs_error.max()),
        "max_rel_error": None if float(rel_mismatched.max()) < 0 else float(rel_mismatched.max()),
        "mismatched_elements": int((~close).sum()),
        "elements": expected.numel(),
        "tolerance": {"rtol": rtol, "atol": atol, "scale": scale},
    }


REFERENCE_FILE = "reference.pt"  # beside the recordings: the case's float64 reference


def save_references(record_dir, entries):
    """Writes the case's reference entries (comparisons.reference_entry) beside its recordings."""
    import torch

    if not entries:
        return
    os.makedirs(record_dir, exist_ok=True)
    path = os.path.join(record_dir, REFERENCE_FILE)
    torch.save({"format_version": 1, "outputs": entries}, path + ".tmp")
    os.replace(path + ".tmp", path)


def _distance(tensor, reference):
    """The largest absolute error of `tensor` against the float64 reference; equal values
    (infinities too) and NaN against NaN count as none, a NaN against a number as infinite."""
    import torch

    t64 = tensor.to(torch.float64)
    same = (t64 == reference) | (t64.isnan() & reference.isnan())
    difference = torch.where(same, torch.zeros_like(t64), (t64 - reference).abs())
    difference = difference.nan_to_num(nan=float("inf"))
    return float(difference.max()) if difference.numel() else 0.0


def reference_error(expected, actual, references):
    """When the recording's tensor is what the compiled case returned (a case's output, kept
    by save_references), how far the rebuilt kernel's tensor and the recorded one are from the
    float64 reference, and the limit the case's own comparison used; else None."""
    if actual is None:
        return None
    for entry in references:
        compiled = entry["compiled"]
        if tuple(compiled.shape) != tuple(expected.shape) or compiled.dtype != expected.dtype:
            continue
        if not bool(((compiled == expected) | (compiled.isnan() & expected.isnan())).all()):
            continue
        if tuple(actual.shape) != tuple(expected.shape):
            return None
        return {
            "field": entry["field"],
            "dtype": entry["dtype"],
            "build_error": _distance(actual, entry["reference"]),
            "recorded_error": _distance(expected, entry["reference"]),
            "eager_error": entry["eager_error"],
            "limit": entry["limit"],
        }
    return None


def _write_call_journal(path, number, args):
    """Where each tensor argument of the call about to run lives, written before it runs: when a
    sanitizer stops the process in the call, the bad address can be matched to an argument."""
    import json

    import torch

    arguments = []
    for position, arg in enumerate(args):
        if not isinstance(arg, torch.Tensor):
            continue
        storage = arg.untyped_storage()
        arguments.append(
            {
                "position": position,
                "dtype": str(arg.dtype).removeprefix("torch."),
                "itemsize": arg.element_size(),
                "elements": arg.numel(),
                "data_ptr": arg.data_ptr(),
                "storage_ptr": storage.data_ptr(),
                "storage_bytes": storage.nbytes(),
            }
        )
    with open(path + ".tmp", "w") as journal:
        json.dump({"call": number, "arguments": arguments}, journal)
    os.replace(path + ".tmp", path)


KERNEL_PROBE_FILE_VARIABLE = "INDUCTOR_FUZZ_KERNEL_PROBES"  # as fuzzer/matrix/kernel_probes.h
_SCALAR_TYPES = {
    0: "uint8",
    1: "int8",
    2: "int16",
    3: "int32",
    4: "int64",
    5: "float16",
    6: "float32",
    7: "float64",
    11: "bool",
    15: "bfloat16",
}


def read_probes(path):
    """The records a probed build's kernel calls appended to `path` (see kernel_probes.cpp)."""
    import struct

    import torch

    records = []
    if not os.path.exists(path):
        return records
    with open(path, "rb") as stream:
        data = stream.read()
    at = 0

    def take(fmt):
        nonlocal at
        values = struct.unpack_from(fmt, data, at)
        at += struct.calcsize(fmt)
        return values

    while at < len(data):
        if data[at : at + 4] != b"IFZP":
            raise ValueError(f"{path}: a probe record at byte {at} does not start with IFZP")
        at += 4
        site, argument, kernel_length = take("<III")
        kernel = data[at : at + kernel_length].decode()
        at += kernel_length
        (buffer_length,) = take("<I")
        buffer = data[at : at + buffer_length].decode()
        at += buffer_length
        dtype_code, dim = take("<iq")
        sizes = take(f"<{dim}q") if dim else ()
        strides = take(f"<{dim}q") if dim else ()
        (nbytes,) = take("<Q")
        payload = data[at : at + nbytes]
        at += nbytes
        dtype = _SCALAR_TYPES.get(dtype_code)
        tensor = None
        if dtype is not None:
            flat = (
                torch.frombuffer(bytearray(payload), dtype=getattr(torch, dtype))
                if nbytes
                else torch.empty(0, dtype=getattr(torch, dtype))
            )
            tensor = (
                flat.as_strided(sizes, strides).clone()
                if flat.numel()
                else torch.empty(sizes, dtype=getattr(torch, dtype))
            )
        records.append(
            {
                "site": site,
                "argument": argument,
                "kernel": kernel,
                "buffer": buffer,
                "dtype": dtype,
                "tensor": tensor,
            }
        )
    return records


def compare_probes(reference_dir, candidate_dir):
    """Every kernel call's written buffers of two probed replays of one TU, compared as replay
    compares tensors. The worst difference names the kernel, its call site and the buffer."""
    import glob

    files = sorted(glob.glob(os.path.join(reference_dir, "call-*.probes")))
    worst = None
    compared = 0
    differing = []
    for reference_file in files:
        name = os.path.basename(reference_file)
        call = int(name.removeprefix("call-").removesuffix(".probes"))
        expected = read_probes(reference_file)
        actual = read_probes(os.path.join(candidate_dir, name))
        if [(r["site"], r["argument"]) for r in expected] != [
            (r["site"], r["argument"]) for r in actual
        ]:
            return {
                "status": "differs",
                "probes_compared": compared,
                "kernels": differing,
                "worst": {
                    "argument": f"call {call}",
                    "error": "the kernel calls differ",
                    "max_abs_error": None,
                },
            }
        for want, got in zip(expected, actual, strict=False):
            if want["tensor"] is None:
                continue
            compared += 1
            label = f"call {call} {want['kernel']} argument {want['argument']} ({want['buffer']})"
            difference = compare_tensor(label, want["tensor"], got["tensor"])
            if difference is None:
                continue
            difference.update(
                {
                    "kernel": want["kernel"],
                    "site": want["site"],
                    "call": call,
                    "kernel_argument": want["argument"],
                    "buffer": want["buffer"],
                }
            )
            if want["kernel"] not in differing:
                differing.append(want["kernel"])
            if worst is None or (difference["max_abs_error"] or float("inf")) > (
                worst["max_abs_error"] or float("inf")
            ):
                worst = difference
    return {
        "status": "differs" if worst else "same",
        "probes_compared": compared,
        "probe_files": len(files),
        "kernels": differing,
        "worst": worst,
    }


def outputs_agreement(first, second):
    """Whether two builds left bit for bit the same tensors (NaN where the other has NaN), and
    the largest absolute difference where they did not (infinite for a NaN against a number)."""
    import torch

    labels = sorted(set(first) | set(second))
    largest = 0.0
    identical = True
    for label in labels:
        a, b = first.get(label), second.get(label)
        if a is None or b is None or a.shape != b.shape or a.dtype != b.dtype:
            return {"identical": False, "tensors": len(labels), "max_abs_difference": None}
        same = (a == b) | (a.isnan() & b.isnan()) if a.is_floating_point() else a == b
        if bool(same.all()):
            continue
        identical = False
        if a.is_floating_point():
            difference = (a.double() - b.double()).abs()
            difference = torch.where(same, torch.zeros_like(difference), difference)
            largest = max(largest, float(difference.nan_to_num(nan=float("inf")).max()))
        else:
            largest = float("inf")
    return {"identical": identical, "tensors": len(labels), "max_abs_difference": largest}


def tolerance_of(tolerances, family, dtype):
    """(rtol, atol) of the driver's table for a dtype and op family, or None."""
    found = (tolerances or {}).get(dtype, {}).get(family)
    return tuple(found) if found else None


def replay(
    module_path,
    entry,
    recording_path,
    call_journal=None,
    probe_dir=None,
    reference=None,
    tolerances=None,
    family="pointwise",
    keep_outputs=None,
    against=None,
):
    """Runs the build at module_path on every recorded call and compares with the recording.
    With call_journal, each call's argument addresses are written there before it runs. With
    probe_dir (a probed build, see kernel_probes.h), each call's kernel probes go to
    probe_dir/call-N.probes. Float tensors are compared within tolerances[dtype][family] (the
    driver's table). With reference (save_references' file), a tensor that is the
    case's output is also judged against the float64 reference: the result's
    "float64_reference" is the furthest such tensor of this build. With keep_outputs, every
    compared tensor the build left is saved there; with against (another build's keep_outputs),
    the result's "agreement" says whether this build left exactly the same (outputs_agreement)."""
    import torch

    recording = torch.load(recording_path, weights_only=True)
    references = []
    if reference and os.path.exists(reference):
        references = torch.load(reference, weights_only=True)["outputs"]
    judged = None
    entry = recording["entry"]  # the recording knows which entry it called
    function = load_entry(module_path, entry)
    worst = None
    compared = 0
    unfinished = 0
    kept = {}
    for number, call in enumerate(recording["calls"]):
        before = [storage.clone() for storage in call["before"]]
        args = [rebuild(description, before) for description in call["args"]]
        if call_journal:
            _write_call_journal(call_journal, number, args)
        if probe_dir:
            os.makedirs(probe_dir, exist_ok=True)
            probe_file = os.path.join(probe_dir, f"call-{number}.probes")
            if os.path.exists(probe_file):
                os.remove(probe_file)
            os.environ[KERNEL_PROBE_FILE_VARIABLE] = probe_file
        try:
            returned = call_entry(function, entry, args)
        finally:
            os.environ.pop(KERNEL_PROBE_FILE_VARIABLE, None)
        if call["after"] is None:
            unfinished += 1  # the recorded process died in this call: run it, compare nothing
            continue
        checks = [
            (f"call {number} argument {position}", description, args[position])
            for position, description in enumerate(call["args"])
            if description["kind"] == "tensor"
        ] + [
            (
                f"call {number} result {position}",
                description,
                returned[position] if position < len(returned) else None,
            )
            for position, description in enumerate(call["results"])
            if description["kind"] == "tensor"
        ]
        for label, description, actual in checks:
            compared += 1
            if actual is not None and (keep_outputs or against):
                kept[label] = actual.detach().clone()
            expected = rebuild(description, call["after"])
            tolerance = tolerance_of(tolerances, family, str(expected.dtype).removeprefix("torch."))
            difference = compare_tensor(label, expected, actual, tolerance)
            error = reference_error(expected, actual, references) if references else None
            if error and (judged is None or error["build_error"] > judged["build_error"]):
                judged = {"argument": label, **error}
            if difference and (
                worst is None
                or (difference["max_abs_error"] or float("inf"))
                > (worst["max_abs_error"] or float("inf"))
            ):
                worst = difference
    if keep_outputs:
        torch.save(kept, keep_outputs + ".tmp")
        os.replace(keep_outputs + ".tmp", keep_outputs)
    agreement = None
    if against:
        agreement = outputs_agreement(torch.load(against, weights_only=True), kept)
    return {
        "agreement": agreement,
        "status": "differs" if worst else "same",
        "calls": len(recording["calls"]),
        "tensors_compared": compared,
        "unfinished_calls": unfinished,
        "worst": worst,
        "float64_reference": judged,
        "family": family,
    }
