"""Broken variants of stored cases, for bench/records_unchanged.sh: each field (to three levels
deep) of each case left out, or given a value of each JSON type, and one unknown field added.
Deterministic: the same cases give the same variants.

Usage: python3 bench/case_mutations.py OUT_DIR CASE.json...   (prints how many it wrote)"""

import copy
import json
import sys
from pathlib import Path

VALUES = [None, "x", 3, -1, [], {}, True, 1.5]


def field_paths(value, path=(), depth=0):
    if depth >= 3:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key)
            yield from field_paths(item, (*path, key), depth + 1)
    elif isinstance(value, list) and value:
        yield (*path, 0)
        yield from field_paths(value[0], (*path, 0), depth + 1)


def variants(case):
    for path in field_paths(case):
        if "values" in path[:-1]:
            continue  # a tensor's elements: one is enough (the path ending in "values")
        for value in ["leave out", *VALUES]:
            broken = copy.deepcopy(case)
            parent = broken
            for key in path[:-1]:
                parent = parent[key]
            if value == "leave out":
                if not isinstance(parent, dict):
                    continue
                del parent[path[-1]]
            else:
                parent[path[-1]] = value
            yield broken
    yield {**case, "colour": "red"}


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for name in sys.argv[2:]:
        try:
            case = json.loads(Path(name).read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(case, dict):
            continue
        for broken in variants(case):
            count += 1
            (out / f"m{count:05d}.json").write_text(json.dumps(broken))
    print(count)


if __name__ == "__main__":
    main()
