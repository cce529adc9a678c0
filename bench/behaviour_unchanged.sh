#!/usr/bin/env bash
# Whether a change left a campaign's behaviour as it was: the same cases of one seed run by the
# tool built at REV and by this checkout's build, side by side, and their summary.json compared
# but for versions and times (bench/summary_diff.py: cases, statuses, findings, signatures, bugs,
# keys, features and the op surface must be equal). The cases are generated, not mutated
# (--no-feedback: feedback picks parents by their run time) and run one at a time (--jobs 1), so
# that both arms meet the same cases in the same order; no reduction.
# REV is built once, from a worktree, into ~/.cache/inductor-fuzz/bench-revisions/<commit>
# (the tool and its worker: about 4 minutes on 2 cores), with the venv of this checkout.
# A flaky failure (a heap corruption a run shows some of the time) differs between two runs of
# one build too: --control runs this build twice instead, for that floor.
# Usage: bench/behaviour_unchanged.sh --before REV [--cases N] [--seed S] [--out DIR] [--control 1]
# Defaults: 40 cases, seed 6400, DIR /tmp/behaviour-unchanged (replaced).
# Exit 0 when the summaries are the same but for versions and times, 1 when not (the
# differences printed), 2 on bad input or when a campaign or REV's build failed.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  sed -n '/^# Usage:/,/^# Defaults:/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
before='' cases=40 seed=6400 out=/tmp/behaviour-unchanged control=0
while (($#)); do
  (($# >= 2)) || usage
  case $1 in
  --before) before=$2 ;;
  --cases) cases=$2 ;;
  --seed) seed=$2 ;;
  --out) out=$2 ;;
  --control) control=$2 ;;
  *) usage ;;
  esac
  shift 2
done
[[ -n $before && $cases =~ ^[1-9][0-9]*$ && $seed =~ ^[0-9]+$ && $control =~ ^[01]$ ]] || usage
build="${INDUCTOR_FUZZ_BUILD:-build}"
for needed in "$build/inductor-fuzz" "$build/inductor-fuzz-worker" .venv/bin/python; do
  [[ -x $needed ]] || { echo "behaviour_unchanged: $needed is missing (run scripts/setup)" >&2; exit 2; }
done
INDUCTOR_FUZZ_VENV="$(pwd)/.venv"
export INDUCTOR_FUZZ_VENV

# The tool at REV, built once.
# shellcheck source=bench/build_revision.sh
source bench/build_revision.sh
before_tool=$build
((control)) || { build_revision "$before" behaviour_unchanged; before_tool=$REVISION_BUILD; }

rm -rf "$out"
mkdir -p "$out/before-bin" "$out/after-bin"
cp "$before_tool/inductor-fuzz" "$before_tool/inductor-fuzz-worker" "$out/before-bin/"
cp "$build/inductor-fuzz" "$build/inductor-fuzz-worker" "$out/after-bin/"
common=(fuzz --cases "$cases" --seed "$seed" --jobs 1 --no-feedback --reduce none)
status=0
"$out/before-bin/inductor-fuzz" "${common[@]}" --corpus "$out/before" >"$out/before.log" 2>&1 &
first=$!
"$out/after-bin/inductor-fuzz" "${common[@]}" --corpus "$out/after" >"$out/after.log" 2>&1 &
second=$!
for pid in $first $second; do
  code=0
  wait "$pid" || code=$?
  ((code <= 1)) || status=2
done
if ((status)); then
  echo "behaviour_unchanged: a campaign failed; last lines:" >&2
  tail -n 5 "$out/before.log" "$out/after.log" >&2
  exit 2
fi
label=${before}
((control)) && label="this build (control)"
echo "behaviour_unchanged: seed $seed, $cases cases; before = $label, after = this build"
python3 bench/summary_diff.py "$out/before/report/summary.json" "$out/after/report/summary.json"
