#!/usr/bin/env bash
# Bucket quality: how the campaign groups findings into bugs, measured on bugs we plant.
# bench/injected_bugs/ patches torch's Inductor at run time (loaded through PYTHONPATH by its
# sitecustomize.py, which every worker's embedded CPython imports) with seventeen injected bugs
# in two sets: the first thirteen, a..m (six of them wrong results: a campaign must tell five
# silent flex_attention and create_mask miscompiles apart), and the second four, n..q, written
# for issue 68 against keys tuned on the first (a block count whose tables change with the
# shape, a redeclaration whose type is the dtype's, two causes Clang reports with one
# diagnostic about one callee). Each fires on a feature of the generated code or graph. One campaign
# runs with all of them on, the compiler matrix on every K-th case so that the
# compiler-specific ones show; each firing is logged (INDUCTOR_FUZZ_INJECT_LOG). The corpus
# is then replayed with injection off: a finding that still fails is a real torch bug.
# bench/injected_bugs/score.py prints, from the log and the campaign's summary.json, a table and
#   set first: ..., set second: found X/4, bugs per injected bug R, merges M
#   bucket_quality: found X/17, bugs per injected bug R (goal <= 1.1), injected bugs per bug P (1.0)
# Usage: bench/bucket_quality.sh [--cases N] [--seed S] [--jobs J] [--matrix-every K]
#   [--out DIR] [--bugs LIST] [--baseline replay|campaign|none] [--sanitize-crashes CHECKS|none]
# Defaults: 200 cases of seed 1, 2 jobs, the matrix on every 8th case, DIR /tmp/bucket-quality
# (replaced), all bugs, replay baseline, ASan reruns of crashes. --baseline campaign also runs
# the same cases with injection off (twice the time) and takes any finding that campaign has in
# the same case as real. Takes 30-60 min on 2 cores. INDUCTOR_FUZZ_BUILD picks the build folder
# (default build); its binaries are copied into DIR first, so a rebuild meanwhile cannot break
# the run. Exit 0 when every injected bug is found, each as one bug, no bug with two causes;
# 1 otherwise; 2 when a run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cases=200 seed=1 jobs=2 matrix_every=8 out=/tmp/bucket-quality bugs=all baseline=replay
sanitize_crashes=address
usage() {
  sed -n '/^# Usage:/,/^# Defaults:/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
while (($#)); do
  case $1 in
  --cases) cases=$2 ;;
  --seed) seed=$2 ;;
  --jobs) jobs=$2 ;;
  --matrix-every) matrix_every=$2 ;;
  --out) out=$2 ;;
  --bugs) bugs=$2 ;;
  --baseline) baseline=$2 ;;
  --sanitize-crashes) sanitize_crashes=$2 ;;
  *) usage ;;
  esac
  (($# >= 2)) || usage
  shift 2
done
[[ $cases =~ ^[1-9][0-9]*$ && $seed =~ ^[0-9]+$ && $jobs =~ ^[1-9][0-9]*$ &&
  $matrix_every =~ ^[0-9]+$ && $baseline =~ ^(replay|campaign|none)$ ]] || usage

build="${INDUCTOR_FUZZ_BUILD:-build}"
python="${INDUCTOR_FUZZ_VENV:-$root/.venv}/bin/python"
# The other binaries may be relinking this moment: wait a little for them.
for _ in $(seq 60); do
  [[ -x $build/inductor-fuzz && -x $build/inductor-fuzz-worker ]] && break
  sleep 5
done
for needed in "$build/inductor-fuzz" "$build/inductor-fuzz-worker" "$python"; do
  [[ -x $needed ]] || { echo "bucket_quality: $needed is missing (build it first)" >&2; exit 2; }
done

rm -rf "$out"
mkdir -p "$out/bin"
cp "$build/inductor-fuzz" "$build/inductor-fuzz-worker" "$out/bin/"
binary="$out/bin/inductor-fuzz"
export INDUCTOR_FUZZ_VENV="${INDUCTOR_FUZZ_VENV:-$root/.venv}"
export PYTHONPATH="$root/bench/injected_bugs${PYTHONPATH:+:$PYTHONPATH}"
export INDUCTOR_FUZZ_INJECT_LOG="$out/inject.jsonl"
# A bug only clang's build shows fires only in the cases the matrix builds.
export INDUCTOR_FUZZ_INJECT_MATRIX_EVERY=$matrix_every
: >"$INDUCTOR_FUZZ_INJECT_LOG"

# The injected bugs are code we trust, patched into torch in every worker, and their log is
# written outside any case's folder: a confined worker may not write it (docs/case-format.md).
global_args=(--no-confine)
fuzz_args=(--cases "$cases" --seed "$seed" --jobs "$jobs" --matrix-every "$matrix_every" --reduce none)
[[ $sanitize_crashes == none ]] || fuzz_args+=(--sanitize-crashes "$sanitize_crashes")

run() { # label, log file, command...: exit codes 0 and 1 are results, 2 and up failures
  local label=$1 log=$2 code=0
  shift 2
  echo "bucket_quality: $label" >&2
  "$@" >"$log" 2>&1 || code=$?
  if ((code > 1)); then
    echo "bucket_quality: $label failed (exit $code), last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 2
  fi
}

start=$(date +%s)
INDUCTOR_FUZZ_INJECT=$bugs run "campaign with injected bugs ($bugs): ${fuzz_args[*]}" \
  "$out/fuzz.log" "$binary" "${global_args[@]}" fuzz "${fuzz_args[@]}" --corpus "$out/corpus"
tail -n 1 "$out/fuzz.log" >&2
if [[ ! -s $INDUCTOR_FUZZ_INJECT_LOG ]]; then
  echo "bucket_quality: no injected bug fired in $cases cases ($INDUCTOR_FUZZ_INJECT_LOG is empty): were the bugs loaded (PYTHONPATH) and could the workers write the log?" >&2
  exit 2
fi

score_args=(--corpus "$out/corpus" --inject-log "$INDUCTOR_FUZZ_INJECT_LOG" --seed "$seed"
  --bugs "$bugs" --json "$out/score.json")
if [[ $baseline == replay ]]; then
  INDUCTOR_FUZZ_INJECT=none run "replay of its findings with injection off" \
    "$out/replay.log" "$binary" "${global_args[@]}" replay --corpus "$out/corpus"
  score_args+=(--replay "$out/replay.log")
elif [[ $baseline == campaign ]]; then
  INDUCTOR_FUZZ_INJECT=none run "the same campaign with injection off" \
    "$out/baseline.log" "$binary" "${global_args[@]}" fuzz "${fuzz_args[@]}" --corpus "$out/baseline-corpus"
  score_args+=(--baseline-corpus "$out/baseline-corpus")
fi
echo "bucket_quality: $(($(date +%s) - start)) s; corpus, logs and score.json in $out" >&2

python3 bench/injected_bugs/score.py "${score_args[@]}" | tee "$out/score.txt"
python3 - "$out/score.json" <<'EOF'
import json, sys
numbers = json.load(open(sys.argv[1]))
ok = (numbers["found"] == numbers["injected"] and numbers["bugs_per_injected_bug"] <= 1.1
      and numbers["injected_bugs_per_bug"] <= 1.0)
sys.exit(0 if ok else 1)
EOF
