#!/usr/bin/env bash
# What the sanitizers add to a case: `run-case` on the same cases without and with
# `--sanitize address,undefined`, side by side in one run, each run-case as a user would run it
# (worker start, torch import, Inductor's compiles: with the sanitizers those are instrumented
# builds). Prints each case's two wall times and their ratio, then the totals.
# Usage: bench/sanitizer_cost.sh [CASE.json...] (default: tests/fixtures/sanitizer/flex_threads1.json
#   with cpp.threads=2, which is clean, and corpus/seeds/*.json). INDUCTOR_FUZZ picks the binary
#   (default build/inductor-fuzz). OMP_NUM_THREADS=2 for every run.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${INDUCTOR_FUZZ:-build/inductor-fuzz}
[[ -x $binary ]] || { echo "sanitizer_cost: $binary is missing (build it first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases=("$@")
if ((${#cases[@]} == 0)); then
  sed 's/"cpp.threads": 1/"cpp.threads": 2/' tests/fixtures/sanitizer/flex_threads1.json >"$work/flex_threads2.json"
  cases=("$work/flex_threads2.json" corpus/seeds/*.json)
fi
export OMP_NUM_THREADS=2
now() { date +%s%N; }
total_plain=0
total_sanitized=0
printf '%-28s %10s %10s %7s  %s\n' case plain_ms sanitized_ms ratio "sanitized result"
for case in "${cases[@]}"; do
  name=$(basename "$case" .json)
  start=$(now)
  "$binary" run-case "$case" --out "$work/$name-plain" >"$work/$name-plain.log" 2>&1 || true
  middle=$(now)
  "$binary" run-case "$case" --out "$work/$name-sanitized" --sanitize address,undefined \
    >"$work/$name-sanitized.log" 2>&1 || true
  end=$(now)
  plain=$(((middle - start) / 1000000))
  sanitized=$(((end - middle) / 1000000))
  total_plain=$((total_plain + plain))
  total_sanitized=$((total_sanitized + sanitized))
  result=$(grep -m1 'result:' "$work/$name-sanitized.log" | sed 's/^ *result: //')
  printf '%-28s %10d %10d %7s  %s\n' "$name" "$plain" "$sanitized" \
    "$(awk -v a="$sanitized" -v b="$plain" 'BEGIN { printf "%.2f", a / b }')" "${result:-?}"
done
printf 'total: plain %d ms, sanitized %d ms, ratio %s\n' "$total_plain" "$total_sanitized" \
  "$(awk -v a="$total_sanitized" -v b="$total_plain" 'BEGIN { printf "%.2f", a / b }')"
