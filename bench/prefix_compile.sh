#!/usr/bin/env bash
# A kernel's g++ run as its exact command and with the precompiled prefix the capture uses
# (fuzzer/worker/python/inductor_fuzz_worker/prefix_headers.py), one after the other on each
# build of N generated cases (default 8, seed 1) or of the run-case/capture folders given.
# Prints each build's seconds both ways and the ratio.
# Usage: bench/prefix_compile.sh [--cases N] [--seed S] [FOLDER...]
set -euo pipefail
cd "$(dirname "$0")/.."
count=8
seed=1
folders=()
while (($#)); do
  case $1 in
    --cases) count=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    -h | --help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) folders+=("$1"); shift ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ((${#folders[@]} == 0)); then
  build/inductor-fuzz gen --seed "$seed" --count "$count" >"$work/cases.jsonl"
  split -l 1 -d -a 3 --additional-suffix=.json "$work/cases.jsonl" "$work/case-"
  # --probe-runs 0: the builds are what is timed, not the findings.
  build/inductor-fuzz run-case "$work"/case-*.json --out "$work/runs" --probe-runs 0 >"$work/log" 2>&1 || true
  for folder in "$work"/runs/*/; do
    [[ -f $folder/commands.json ]] && folders+=("$folder")
  done
fi
PYTHONPATH=fuzzer/worker/python PYTHONDONTWRITEBYTECODE=1 .venv/bin/python bench/prefix_compile.py "${folders[@]}"
