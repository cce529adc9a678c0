"""Compares two campaigns' summary.json but for what may differ between two runs of the same
behaviour: times, versions, command lines, the corpus's own path, and what the machine's caches
decide (builds served from the shared builds or a kept prefix). What is left (the cases, their
statuses, findings, signatures, bugs and keys, the codegen features, the op surface) must be
equal for a change that claims not to change behaviour.

Usage: python3 bench/summary_diff.py BEFORE/report/summary.json AFTER/report/summary.json
Exit 0 when equal, 1 when not (each difference printed, a line each), 2 on bad input.
"""

import json
import re
import sys
from pathlib import Path

# Keys whose values are times, versions or the machine's state, wherever they appear.
IGNORED_KEYS = {
    "seconds",
    "timeline",
    "case_timeline",
    "feature_timeline",
    "worker_resident",
    "reduction_seconds",
    "first_seen",
    "last_seen",
    "time",
    "tool_version",
    "tool_versions",
    "torch_version",
    "torch_versions",
    "compilers",
    "command_line",
    "command_lines",
    "build_cache_hits",
    "shared_builds",
    "prefixed_builds",
    "policy_sha256",
    "generator_version",
}
# Free text for people whose numbers a process's history picks (Dynamo numbers its symbols in the
# order it makes them: cur_kvSplitSize6 or 7); the signatures, where those are <N>, are compared
# whole.
NUMBERED_TEXT_KEYS = {"summary"}
# time_by_family: the stage times; its counts of cases and builds stay.
KEPT_FAMILY_COUNTS = {"cases", "builds"}


def normalised(value, corpus, path=()):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in IGNORED_KEYS:
                continue
            if path and path[-1] == "time_by_family":
                item = {k: v for k, v in item.items() if k in KEPT_FAMILY_COUNTS}
            if key in NUMBERED_TEXT_KEYS and isinstance(item, str):
                item = re.sub(r"[0-9]+", "<N>", item)
            out[key] = normalised(item, corpus, path + (key,))
        return out
    if isinstance(value, list):
        return [normalised(item, corpus, path) for item in value]
    if isinstance(value, str):
        return value.replace(corpus, "CORPUS")
    return value


def flattened(value, prefix=""):
    if isinstance(value, dict):
        for key in sorted(value):
            yield from flattened(value[key], f"{prefix}.{key}" if prefix else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from flattened(item, f"{prefix}[{index}]")
    else:
        yield prefix, value


def load(path):
    file = Path(path)
    try:
        summary = json.loads(file.read_text())
    except (OSError, ValueError) as error:
        sys.exit(f"summary_diff: {path} cannot be read as JSON ({error}); give a summary.json")
    if not isinstance(summary, dict) or "campaign" not in summary:
        sys.exit(f"summary_diff: {path} is not a campaign's summary.json (no 'campaign')")
    corpus = str(file.resolve().parent.parent)  # CORPUS/report/summary.json
    return dict(flattened(normalised(summary, corpus)))


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        before, after = load(argv[1]), load(argv[2])
    except SystemExit as refusal:
        print(refusal, file=sys.stderr)
        return 2
    differences = 0
    for key in sorted(set(before) | set(after)):
        if before.get(key, "<absent>") != after.get(key, "<absent>"):
            differences += 1
            print(
                f"{key}: {str(before.get(key, '<absent>'))[:160]!s} -> "
                f"{str(after.get(key, '<absent>'))[:160]!s}"
            )
    print(
        f"summary_diff: {len(set(before) | set(after))} field(s) compared, {differences} differ"
        + ("" if differences else " (the same but for versions and times)")
    )
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
