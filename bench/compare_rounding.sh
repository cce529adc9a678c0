#!/usr/bin/env bash
# How often a compiler upgrade's runtime differences are rounding, and what explaining them
# costs (issue 51). N generated flex_attention cases (float32 and 16-bit, the policy's dtype
# weights) are run once with `run-case` (their TUs captured, their kernel calls recorded, the
# float64 reference kept), together with one captured program whose g++ and clang builds differ
# by rounding (tests/fixtures/capture/cancelling_attention.py). Then for each pair,
# `compare --baseline A --candidate B` twice on that same corpus, side by side: with
# `--no-fp-pinning` (today's compare and the float64 reference, which costs no build) and with
# the floating-point pins (the extra builds). Printed per pair: the verdicts before the float64
# reference judged them ("before": rounding counted as runtime-differs) and after, by dtype;
# each build's error against the reference where they differ; what the pins said; both wall
# times and their ratio.
# Usage: bench/compare_rounding.sh [N] [SEED] [PAIR...]   (default 50, 1, "g++-12:clang++-19")
# INDUCTOR_FUZZ_BUILD picks the build folder (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-50}
seed=${2:-1}
shift $(($# < 2 ? $# : 2))
pairs=("$@")
((${#pairs[@]})) || pairs=("g++-12:clang++-19")
binary="${INDUCTOR_FUZZ_BUILD:-build}/inductor-fuzz"
work=$(mktemp -d /tmp/inductor-fuzz-rounding-XXXXXX)
trap 'rm -rf "$work"' EXIT
echo '{"weights": {"api": {"flex_attention": 1, "create_block_mask": 0, "create_mask": 0}}}' \
  >"$work/policy.json"
mkdir -p "$work/cases" "$work/corpus"
"$binary" gen --seed "$seed" --count "$count" --policy "$work/policy.json" |
  .venv/bin/python -c '
import json, sys
for number, line in enumerate(sys.stdin):
    case = json.loads(line)
    open(sys.argv[1] + "/" + case["name"] + ".json", "w").write(line)
' "$work/cases"
start=$(date +%s.%N)
for case in "$work"/cases/*.json; do
  name=$(basename "$case" .json)
  "$binary" run-case "$case" --out "$work/corpus/$name" --probe-runs 0 >/dev/null 2>&1 || true
done
"$binary" capture --out "$work/corpus/program" -- \
  python tests/fixtures/capture/cancelling_attention.py >/dev/null 2>&1
end=$(date +%s.%N)
echo "corpus: $count case(s) run and 1 program captured in $(.venv/bin/python -c \
  "print(round($end - $start))") s"

for pair in "${pairs[@]}"; do
  baseline=${pair%%:*} candidate=${pair#*:}
  for mode in plain pinned; do
    flags=()
    [[ $mode == plain ]] && flags=(--no-fp-pinning)
    start=$(date +%s.%N)
    "$binary" compare --baseline "$baseline" --candidate "$candidate" --corpus "$work/corpus" \
      --report "$work/$pair-$mode" "${flags[@]}" >"$work/$pair-$mode.out" \
      2>"$work/$pair-$mode.err" || [[ $? -eq 1 ]]
    end=$(date +%s.%N)
    echo "$start $end" >"$work/$pair-$mode.time"
  done
  .venv/bin/python - "$work" "$pair" <<'PYTHON'
import collections
import json
import os
import sys

work, pair = sys.argv[1], sys.argv[2]


def seconds(mode):
    start, end = open(f"{work}/{pair}-{mode}.time").read().split()
    return float(end) - float(start)


def dtype_of(tu):
    case = f"{work}/cases/{tu.split('/')[0]}.json"
    if os.path.exists(case):
        return json.load(open(case)).get("attention", {}).get("dtype", "none")
    return "program"


record = json.load(open(f"{work}/{pair}-pinned/compare.json"))
plain = json.load(open(f"{work}/{pair}-plain/compare.json"))
assert [r["verdict"] for r in plain["tus"]] == [r["verdict"] for r in record["tus"]], (
    "the pins changed a verdict"
)
after = collections.Counter((dtype_of(r["tu"]), r["verdict"]) for r in record["tus"])
before = collections.Counter(
    (dtype_of(r["tu"]), "runtime-differs" if r["verdict"] == "rounding" else r["verdict"])
    for r in record["tus"]
)
print(f"{pair}: {len(record['tus'])} TU(s)")
for dtype in sorted({d for d, _ in after}):
    b = {v: n for (d, v), n in sorted(before.items()) if d == dtype}
    a = {v: n for (d, v), n in sorted(after.items()) if d == dtype}
    print(f"  {dtype:<9} before {b}  after {a}")
judged = [
    r
    for r in record["tus"]
    if r["baseline"].get("float64_reference") and r["candidate"].get("float64_reference")
]
print(f"  judged against the float64 reference: {len(judged)} TU(s)")
for r in judged:
    base, cand = r["baseline"]["float64_reference"], r["candidate"]["float64_reference"]
    if r["verdict"] in ("rounding", "runtime-differs") or base["build_error"] != cand["build_error"]:
        print(
            f"    {r['verdict']:<16} {base['dtype']:<9} baseline {base['build_error']:.3g} "
            f"candidate {cand['build_error']:.3g} limit {cand['limit']:.3g}  {r['tu'][:50]}"
        )
        pinning = r.get("fp_pinning") or {}
        for pin in pinning.get("pins", []):
            said = pin.get("skipped") or pin.get("error") or (
                "agree" if pin.get("identical") else f"differ by {pin.get('max_abs_difference')}"
            )
            print(f"      pin {pin['pin']}: {said}")
        if pinning:
            print(f"      explained by: {pinning.get('explained_by')}")
plain_s, pinned_s = seconds("plain"), seconds("pinned")
print(
    f"  time: --no-fp-pinning {plain_s:.0f} s, with the pins {pinned_s:.0f} s, "
    f"ratio {pinned_s / plain_s:.2f}"
)
PYTHON
done
