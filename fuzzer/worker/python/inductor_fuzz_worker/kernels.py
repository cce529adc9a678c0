"""Recording Inductor's kernel calls, and replaying them on other compilers' builds.

A kernel built by Inductor takes raw pointers into tensors' storages, so a recording keeps
whole storages (not just the views passed): two arguments may alias one buffer, and a kernel
may reach past a view into its storage. Each call records the storages before and after it.
A replay runs another build of the same TU on copies of the "before" storages and compares
every tensor argument (and, for cpp_wrapper entries, every returned tensor) with "after".
"""

import importlib.util
import itertools
import os

RECORDED_CALLS_PER_KERNEL = 2
RECORDED_BYTES_PER_CASE = 256 << 20
KERNEL_ENTRY = "kernel"
WRAPPER_ENTRY = "inductor_entry_cpp"


def _storage_bytes(tensor):
    import torch

    return torch.empty(0, dtype=torch.uint8).set_(tensor.untyped_storage())


class _Snapshot:
    """The distinct storages behind some tensors, copied, and how each tensor views them."""

    def __init__(self):
        self.storages = []
        self._index_of = {}

    def describe(self, value):
        import torch

        if isinstance(value, torch.Tensor):
            key = value.untyped_storage().data_ptr()
            if key not in self._index_of:
                self._index_of[key] = len(self.storages)
                self.storages.append(_storage_bytes(value).clone())
            return {
                "kind": "tensor",
                "storage": self._index_of[key],
                "offset": value.storage_offset(),
                "size": list(value.shape),
                "stride": list(value.stride()),
                "dtype": str(value.dtype).removeprefix("torch."),
            }
        if isinstance(value, bool):
            return {"kind": "bool", "value": value}
        if isinstance(value, int):
            return {"kind": "int", "value": value}
        if isinstance(value, float):
            return {"kind": "float", "value": value}
        if value is None:
            return {"kind": "none"}
        raise TypeError(f"cannot record a kernel argument of type {type(value).__name__}")

    def recopy(self, values):
        """The current contents of the storages already described (after the call)."""
        import torch

        copies = list(self.storages)
        for value in values:
            if isinstance(value, torch.Tensor):
                key = value.untyped_storage().data_ptr()
                if key in self._index_of:
                    copies[self._index_of[key]] = _storage_bytes(value).clone()
        return copies

    def size_bytes(self):
        return sum(storage.numel() for storage in self.storages)


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


class KernelRecorder:
    """Wraps CppPythonBindingsCodeCache.load_pybinding_async, which both Python-wrapper
    kernels and cpp_wrapper entries pass through, so every loaded entry records its calls."""

    def __init__(self, record_dir):
        self.record_dir = record_dir
        self.recordings = []  # one per loaded module, in load order
        self.skipped = []
        self._bytes = 0
        self._wrapper_inputs = []  # cpp_wrapper: the tensors behind the handles of the call
        self._wrapper_pending = []  # cpp_wrapper: calls waiting for their returned tensors

    def _snapshot_before(self, args):
        """The storages behind args and how args view them, or None when not recordable."""
        snapshot = _Snapshot()
        try:
            described = [snapshot.describe(arg) for arg in args]
        except TypeError as error:
            self.skipped.append(str(error))
            return None
        nbytes = 2 * snapshot.size_bytes()  # before and after
        if self._bytes + nbytes > RECORDED_BYTES_PER_CASE:
            self.skipped.append("recording budget spent")
            return None
        self._bytes += nbytes
        return snapshot, described

    def _path_of(self, recording):
        return os.path.join(
            self.record_dir, f"{recording['index']:02}-{os.path.basename(recording['module'])}.pt"
        )

    def _flush_before(self, recording, call):
        """Writes the recording with `call` in flight (no `after` yet) before it runs: a call
        that kills the process (heap corruption, a segfault) still leaves its inputs, to be
        replayed under a sanitizer. save() overwrites it with the finished recording."""
        if not self.record_dir or not recording["module"]:
            return
        import torch

        os.makedirs(self.record_dir, exist_ok=True)
        path = self._path_of(recording)
        torch.save(dict(recording, calls=recording["calls"] + [call]), path + ".tmp")
        os.replace(path + ".tmp", path)

    def installed(self):
        import contextlib

        import torch
        from torch._inductor.codecache import CppPythonBindingsCodeCache

        recorder = self

        @contextlib.contextmanager
        def patched():
            original_load = CppPythonBindingsCodeCache.__dict__["load_pybinding_async"]
            aoti = torch._C._aoti
            original_alloc = aoti.unsafe_alloc_void_ptrs_from_tensors
            original_steal = aoti.alloc_tensors_by_stealing_from_void_ptrs

            def recording_load(cls, argtypes, *args, **kwargs):
                future = original_load.__func__(cls, argtypes, *args, **kwargs)
                return recorder._wrap_future(future, cls.entry_function, list(argtypes))

            def recording_alloc(tensors):
                recorder._wrapper_inputs = list(tensors)
                return original_alloc(tensors)

            def recording_steal(handles):
                tensors = original_steal(handles)
                if recorder._wrapper_pending:
                    recorder._wrapper_pending.pop()(tensors)
                return tensors

            CppPythonBindingsCodeCache.load_pybinding_async = classmethod(recording_load)
            aoti.unsafe_alloc_void_ptrs_from_tensors = recording_alloc
            aoti.alloc_tensors_by_stealing_from_void_ptrs = recording_steal
            try:
                yield recorder
            finally:
                CppPythonBindingsCodeCache.load_pybinding_async = original_load
                aoti.unsafe_alloc_void_ptrs_from_tensors = original_alloc
                aoti.alloc_tensors_by_stealing_from_void_ptrs = original_steal

        return patched()

    def _wrap_future(self, future, entry, argtypes):
        recorder = self

        def recording_future():
            function = future()
            recording = {
                "module": recorder._module_file_of(function, entry),
                "entry": entry,
                "argtypes": argtypes,
                "calls": [],
                "index": len(recorder.recordings),
            }
            recorder.recordings.append(recording)
            if entry == WRAPPER_ENTRY:
                return recorder._wrapper_recorder(function, recording)
            return recorder._kernel_recorder(function, recording)

        return recording_future

    @staticmethod
    def _module_file_of(function, entry):
        """The .so the entry came from: Inductor names its module "<key>.<entry>"."""
        import sys

        for name, module in list(sys.modules.items()):
            if name.endswith("." + entry) and getattr(module, entry, None) is function:
                return getattr(module, "__file__", None)
        return None

    def _kernel_recorder(self, function, recording):
        recorder = self

        def kernel(*args):
            if len(recording["calls"]) >= RECORDED_CALLS_PER_KERNEL:
                return function(*args)
            before = recorder._snapshot_before(args)
            if before is None:
                return function(*args)
            snapshot, described = before
            recorder._flush_before(
                recording,
                {"args": described, "results": [], "before": snapshot.storages, "after": None},
            )
            result = function(*args)
            recording["calls"].append(
                {
                    "args": described,
                    "results": [],
                    "before": snapshot.storages,
                    "after": snapshot.recopy(args),
                }
            )
            return result

        return kernel

    def _wrapper_recorder(self, function, recording):
        recorder = self

        def entry(handles):
            inputs = recorder._wrapper_inputs
            recorder._wrapper_inputs = []
            if len(recording["calls"]) >= RECORDED_CALLS_PER_KERNEL:
                return function(handles)
            # Handles are opaque: the tensors behind them are those just converted, in order,
            # with None where Inductor passed no handle.
            tensors = iter(inputs)
            args = [None if handle is None else next(tensors, None) for handle in handles]
            before = recorder._snapshot_before(args)
            if before is None:
                return function(handles)
            snapshot, described = before
            recorder._flush_before(
                recording,
                {"args": described, "results": [], "before": snapshot.storages, "after": None},
            )
            output_handles = function(handles)

            def complete(outputs):
                after = snapshot.recopy(args)
                returned = _Snapshot()
                results = [returned.describe(output) for output in outputs]
                shift = len(after)
                for result in results:
                    if result["kind"] == "tensor":
                        result["storage"] += shift
                recording["calls"].append(
                    {
                        "args": described,
                        "results": results,
                        "before": snapshot.storages,
                        "after": after + returned.storages,
                    }
                )

            recorder._wrapper_pending.append(complete)
            return output_handles

        return entry

    def save(self):
        """Writes each recording with calls to record_dir; returns their index."""
        import torch

        saved = []
        if not self.record_dir:
            return saved
        os.makedirs(self.record_dir, exist_ok=True)
        for recording in self.recordings:
            if not recording["calls"] or not recording["module"]:
                continue
            path = self._path_of(recording)
            torch.save(recording, path + ".tmp")
            os.replace(path + ".tmp", path)
            saved.append(
                {
                    "module": recording["module"],
                    "entry": recording["entry"],
                    "file": path,
                    "calls": len(recording["calls"]),
                    "bytes": os.path.getsize(path),
                }
            )
        return saved


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


def compare_tensor(label, expected, actual):
    """None when equal (integers, bool) or within the dtype's tolerance (floating point), else
    the worst element's error.

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
    rtol, atol = TOLERANCES.get(dtype, (0.0, 0.0))
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


def replay(module_path, entry, recording_path, call_journal=None, probe_dir=None):
    """Runs the build at module_path on every recorded call and compares with the recording.
    With call_journal, each call's argument addresses are written there before it runs. With
    probe_dir (a probed build, see kernel_probes.h), each call's kernel probes go to
    probe_dir/call-N.probes."""
    import torch

    recording = torch.load(recording_path, weights_only=True)
    entry = recording["entry"]  # the recording knows which entry it called
    function = load_entry(module_path, entry)
    worst = None
    compared = 0
    unfinished = 0
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
            difference = compare_tensor(label, rebuild(description, call["after"]), actual)
            if difference and (
                worst is None
                or (difference["max_abs_error"] or float("inf"))
                > (worst["max_abs_error"] or float("inf"))
            ):
                worst = difference
    return {
        "status": "differs" if worst else "same",
        "calls": len(recording["calls"]),
        "tensors_compared": compared,
        "unfinished_calls": unfinished,
        "worst": worst,
    }
