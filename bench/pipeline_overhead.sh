#!/usr/bin/env bash
# Pipeline overhead: wall time of `fuzz --cases N --jobs 1 --seed S` (static analysis on, no
# matrix) against a bare Python loop (bench/bare_loop.py) that only runs eager and torch.compile
# on the same N cases in one process, with the same Inductor settings and a fresh cache per case.
# Goal: fuzz / bare <= 1.15. Both run one after the other in this one invocation.
# Usage: bench/pipeline_overhead.sh [N] [SEED]  (default 30, 1). Builds nothing:
# INDUCTOR_FUZZ_BUILD picks the build folder (default build). BARE_FIRST=1 runs the bare loop
# first; KEEP=DIR keeps the cases, the fuzz corpus and both logs there. A case that crashes
# torch ends the bare loop's process as it ends fuzz's worker: the loop goes on in a new one.
# Exit 0 when within the goal, 1 when over it, 2 when a run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-30}
seed=${2:-1}
goal=1.15
[[ $count =~ ^[1-9][0-9]*$ && $seed =~ ^[0-9]+$ ]] || {
  echo "usage: bench/pipeline_overhead.sh [N>=1] [SEED]" >&2
  exit 2
}
binary="${INDUCTOR_FUZZ_BUILD:-build}/inductor-fuzz"
python="${INDUCTOR_FUZZ_VENV:-.venv}/bin/python"
for needed in "$binary" "$python"; do
  [[ -x $needed ]] || { echo "pipeline_overhead: $needed is missing (build it first)" >&2; exit 2; }
done
work=$(mktemp -d /tmp/inductor-fuzz-overhead-XXXXXX)
keep() {
  if [[ -n ${KEEP:-} ]]; then
    mkdir -p "$KEEP" && cp -r "$work"/cases.py "$work"/corpus "$work"/*.out "$work"/*.err "$KEEP/" \
      2>/dev/null || true
  fi
  rm -rf "$work"
}
trap keep EXIT

# The cases fuzz runs are GenerateCase(seed, i) for i < N with the default policy; `gen` makes
# the very same ones (only the command line in their provenance differs). The bare loop takes
# each case's INDUCTOR_CONFIG and DYNAMIC from the repro script the tool emits for it.
"$binary" gen --seed "$seed" --count "$count" --python >"$work/cases.py"

# No compiler matrix: pass the switch that turns it off, should fuzz have one.
fuzz_extra=()
fuzz_help=$("$binary" fuzz --help)
if grep -q -- '--matrix-every' <<<"$fuzz_help"; then
  fuzz_extra+=(--matrix-every 0)
elif grep -q -- '--no-matrix' <<<"$fuzz_help"; then
  fuzz_extra+=(--no-matrix)
fi

now() { date +%s.%N; }

run_fuzz() {
  local start end code=0
  start=$(now)
  "$binary" fuzz --reduce none --cases "$count" --jobs 1 --seed "$seed" --corpus "$work/corpus" \
    ${fuzz_extra[@]+"${fuzz_extra[@]}"} >"$work/fuzz.out" 2>"$work/fuzz.err" || code=$?
  end=$(now)
  if ((code > 1)); then
    echo "pipeline_overhead: fuzz failed (exit $code):" >&2
    tail -n 20 "$work/fuzz.err" >&2
    exit 2
  fi
  fuzz_seconds=$(python3 -c "print($end - $start)")
  tail -n 1 "$work/fuzz.err"
}

run_bare() {
  local start end
  start=$(now)
  if ! "$python" bench/bare_loop.py "$work/cases.py" --scratch "$work/bare" \
    >"$work/bare.out" 2>"$work/bare.err"; then
    echo "pipeline_overhead: the bare loop failed:" >&2
    tail -n 20 "$work/bare.err" >&2
    exit 2
  fi
  end=$(now)
  bare_seconds=$(python3 -c "print($end - $start)")
  echo "bare: $(tail -n 1 "$work/bare.out")"
}

echo "pipeline overhead: $count cases of seed $seed, $binary fuzz --jobs 1${fuzz_extra[*]:+ ${fuzz_extra[*]}}"
if [[ ${BARE_FIRST:-0} == 1 ]]; then
  run_bare
  run_fuzz
else
  run_fuzz
  run_bare
fi
python3 - "$fuzz_seconds" "$bare_seconds" "$count" "$goal" <<'EOF'
import sys
fuzz, bare, count, goal = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
ratio = fuzz / bare
print(f"fuzz --jobs 1: {fuzz:8.1f} s  ({fuzz / count:.2f} s/case)")
print(f"bare loop:     {bare:8.1f} s  ({bare / count:.2f} s/case)")
print(f"fuzz / bare: {ratio:.3f}  goal <= {goal}: {'PASS' if ratio <= goal else 'FAIL'}")
sys.exit(0 if ratio <= goal else 1)
EOF
