"""Recording Inductor's kernel calls, for replay on other compilers' builds (replay.py).

A kernel built by Inductor takes raw pointers into tensors' storages, so a recording keeps
whole storages (not just the views passed): two arguments may alias one buffer, and a kernel
may reach past a view into its storage. Each call records the storages before and after it.
A replay runs another build of the same TU on copies of the "before" storages and compares
every tensor argument (and, for cpp_wrapper entries, every returned tensor) with "after".
"""

import os

from .replay import WRAPPER_ENTRY

RECORDED_CALLS_PER_KERNEL = 2
RECORDED_BYTES_PER_CASE = 256 << 20


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
            # A GPU module's calls are not recorded: its kernels run on that machine's GPU, and a
            # CPU byte view of its storage cannot be made (the program must not fail for it).
            if value.device.type != "cpu":
                raise TypeError(f"a kernel argument on {value.device.type}: not recorded")
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
