#!/usr/bin/env bash
# Mean wall time of `inductor-fuzz run-case` over N generated cases (default 20, from seed 1),
# each a separate run-case as a user would run it: worker start, torch import and compile.
# Usage: bench/run_case_wall_time.sh [N] [SEED]; KEEP=DIR keeps each run-case output there.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-20}
seed=${2:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build/inductor-fuzz gen --seed "$seed" --count "$count" >"$work/cases.jsonl"
total=0
i=0
while IFS= read -r line; do
  printf '%s\n' "$line" >"$work/case-$i.json"
  start=$(date +%s%N)
  set +e
  build/inductor-fuzz run-case "$work/case-$i.json" --out "$work/out-$i" >"$work/log-$i" 2>&1
  code=$?
  set -e
  end=$(date +%s%N)
  milliseconds=$(((end - start) / 1000000))
  total=$((total + milliseconds))
  api=$(grep -o '"api":"[a-z_]*"' "$work/case-$i.json" | cut -d'"' -f4)
  status=$(grep -m1 'result:' "$work/log-$i" | sed 's/^ *result: //')
  printf 'case %2d %-18s exit %d  %6d ms  %s\n' "$i" "$api" "$code" "$milliseconds" "$status"
  if [[ -n ${KEEP:-} ]]; then
    mkdir -p "$KEEP" && rm -rf "${KEEP:?}/case-$i" && mv "$work/out-$i" "$KEEP/case-$i"
  else
    rm -rf "$work/out-$i"
  fi
  i=$((i + 1))
done <"$work/cases.jsonl"
printf 'mean wall time per run-case: %d ms over %d cases\n' "$((total / count))" "$count"
