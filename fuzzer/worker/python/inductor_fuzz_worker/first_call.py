"""What a recording's first call passes to a Python-wrapper kernel (workflows/reduce_case.cpp,
a runtime divergence reduced to a program): run by the venv's python as
`python -c SOURCE RECORDING FOLDER`, it writes each storage before the call to
FOLDER/storage-N.bin and prints {"entry", "storages", "args"} as one JSON line, each tensor
argument with its itemsize. Never imported by the worker."""

import json
import sys


def dump(recording_path, folder):
    import torch

    recording = torch.load(recording_path, weights_only=True)
    call = recording["calls"][0]
    for number, storage in enumerate(call["before"]):
        with open(f"{folder}/storage-{number}.bin", "wb") as out:
            out.write(storage.numpy().tobytes())
    arguments = []
    for argument in call["args"]:
        argument = dict(argument)
        if argument["kind"] == "tensor":
            dtype = getattr(torch, argument["dtype"])
            argument["itemsize"] = torch.empty(0, dtype=dtype).element_size()
        arguments.append(argument)
    return {"entry": recording["entry"], "storages": len(call["before"]), "args": arguments}


if __name__ == "__main__":
    print(json.dumps(dump(sys.argv[1], sys.argv[2])))
