#!/usr/bin/env bash
# How often a compiler upgrade's runtime differences are rounding (issue 51): N generated
# flex_attention cases (float32 and 16-bit, the policy's dtype weights) through
# `compare --baseline A --candidate B` for each pair, with the verdicts as they were before the
# float64 reference judged them ("before": rounding counted as runtime-differs) and after, each
# build's error against the reference where the TU computes the case's output, and the wall time.
# The reference costs no extra build: the worker keeps it while it runs the case.
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
mkdir -p "$work/cases"
"$binary" gen --seed "$seed" --count "$count" --policy "$work/policy.json" |
  .venv/bin/python -c '
import json, sys
for number, line in enumerate(sys.stdin):
    case = json.loads(line)
    name = case["name"]
    open(f"{sys.argv[1]}/{number:03d}-{name}.json", "w").write(line)
' "$work/cases"
for pair in "${pairs[@]}"; do
  baseline=${pair%%:*} candidate=${pair#*:}
  start=$(date +%s.%N)
  "$binary" compare --baseline "$baseline" --candidate "$candidate" --corpus "$work/cases" \
    --report "$work/$pair" >"$work/$pair.out" 2>"$work/$pair.err" || [[ $? -eq 1 ]]
  end=$(date +%s.%N)
  .venv/bin/python - "$work/$pair/compare.json" "$pair" "$start" "$end" <<'PYTHON'
import collections
import json
import sys

record = json.load(open(sys.argv[1]))
after = collections.Counter(row["verdict"] for row in record["tus"])
before = collections.Counter(
    "runtime-differs" if row["verdict"] == "rounding" else row["verdict"] for row in record["tus"]
)
judged = [
    row
    for row in record["tus"]
    if row["baseline"].get("float64_reference") and row["candidate"].get("float64_reference")
]
print(f"{sys.argv[2]}: {len(record['tus'])} TU(s) in {float(sys.argv[4]) - float(sys.argv[3]):.0f} s")
print(f"  before: {dict(sorted(before.items()))}")
print(f"  after:  {dict(sorted(after.items()))}")
print(f"  judged against the float64 reference: {len(judged)} TU(s)")
for row in judged:
    base, cand = row["baseline"]["float64_reference"], row["candidate"]["float64_reference"]
    if row["verdict"] in ("rounding", "runtime-differs") or base["build_error"] != cand["build_error"]:
        print(
            f"    {row['verdict']:<16} {base['dtype']:<9} baseline {base['build_error']:.3g} "
            f"candidate {cand['build_error']:.3g} limit {cand['limit']:.3g}  {row['tu'][:60]}"
        )
PYTHON
done
