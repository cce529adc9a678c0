#!/usr/bin/env bash
# A red CI run to a minimal repro: torch 2.15.0's bool score_mod failure (g++: cannot convert
# 'accum_t*' {aka 'float*'} to 'bool*') run as a pytest test (bench/ci_log_bool_score_mod_test.py)
# into a log, then `inductor-fuzz reduce --from-log` on that log, timed; and the same TU through
# C-Vise with the same test (the logged command, the same first error, no more errors than the
# original), side by side. The interestingness script for C-Vise is written next to the TU
# (interesting.sh): it runs the command as Inductor ran it (its own precompiled header included)
# with -fsyntax-only, as our reducer does when that keeps the error.
# Goal (issue 87): ours reaches a reduced.cpp of at most 10 lines whose repro.sh shows the same
# first error, in at most 120 s wall with --jobs 2 on 2 cores.
# Usage: bench/ci_log_to_repro.sh [--jobs J] [--timeout SECONDS] [--cvise-timeout SECONDS]
#   (defaults: 2 jobs, 600 s for ours, 900 s for C-Vise; a tool stopped by its timeout counts
#   with its best file so far). OUT: results folder (default /tmp/ci-log-to-repro);
#   INDUCTOR_FUZZ: the binary (default build/inductor-fuzz); CVISE (default cvise).
# Exit 0 when the goal holds, 1 when not, 2 when a run failed.
# Measured 2026-11-25 (2 cores shared with two other engineers' builds, load 5 to 7), --jobs 2
# --timeout 300 --cvise-timeout 600: ours 307 s to 489 lines (19,359 bytes, 4,150 tokens, 176
# candidates at 2.9 s each), repro.sh with the same first error; C-Vise stopped at 600 s at 188
# lines (35,269 bytes). The goal was not met then.
# Measured 2026-11-25 with slice-to-error (idle machine for ours; C-Vise's last 8 minutes shared
# with a test run): ours 180.6 s wall to 5 lines (152 bytes, 51 tokens, 571 candidates at 0.5 s),
# repro.sh with the same first error; C-Vise stopped at 600 s at 188 lines (35,269 bytes); time
# ours / C-Vise 0.30. Goal met.
# Measured 2026-12-03 (2 cores shared with two helpers' builds and tests; no C-Vise installed),
# --jobs 2 --timeout 600: ours stopped at 603.9 s at 7 lines (148 bytes) of 1,625, repro.sh with
# the same first error. The 120 s goal of issue 87 is not met.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: bench/ci_log_to_repro.sh [--jobs J] [--timeout SECONDS] [--cvise-timeout SECONDS]" >&2
  exit 2
}
jobs=2
ours_timeout=600
cvise_timeout=900
while (($#)); do
  case $1 in
    --jobs) (($# >= 2)) || usage; jobs=$2; shift 2 ;;
    --timeout) (($# >= 2)) || usage; ours_timeout=$2; shift 2 ;;
    --cvise-timeout) (($# >= 2)) || usage; cvise_timeout=$2; shift 2 ;;
    *) usage ;;
  esac
done
binary=$(realpath "${INDUCTOR_FUZZ:-build/inductor-fuzz}")
# C-Vise is the arm beside ours where it is installed (apt-get install cvise); without it ours
# runs alone and its goal is still checked.
cvise=$(command -v "${CVISE:-cvise}" || true)
python=$PWD/.venv/bin/python
out=${OUT:-/tmp/ci-log-to-repro}
[[ -x $binary ]] || { echo "ci_log_to_repro: $binary is missing (build it first)" >&2; exit 2; }
"$python" -c 'import pytest' 2>/dev/null || {
  echo "ci_log_to_repro: pytest is missing from .venv (.venv/bin/pip install pytest)" >&2
  exit 2
}
rm -rf "$out"
mkdir -p "$out"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# 1. The red CI run: pytest, the Inductor cache kept (CI would keep it as an artifact).
start=$(now)
(cd "$out" && TORCHINDUCTOR_CACHE_DIR=$out/inductor-cache "$python" -m pytest -p no:cacheprovider \
  "$OLDPWD/bench/ci_log_bool_score_mod_test.py" >pytest.log 2>&1) && {
  echo "ci_log_to_repro: the test passed: no failure to reduce (is torch 2.15.0 installed?)" >&2
  exit 2
}
pytest_seconds=$(since "$start")
grep -q '^E .*Command:' "$out/pytest.log" || { echo "ci_log_to_repro: no CppCompileError in $out/pytest.log" >&2; exit 2; }

# 2. Ours, from the log.
start=$(now)
code=0
timeout -k 30 "$ours_timeout" "$binary" reduce --from-log "$out/pytest.log" --jobs "$jobs" \
  --out "$out/ours" >"$out/ours.log" 2>&1 </dev/null || code=$?
ours_seconds=$(since "$start")
[[ -f $out/ours/reduced.cpp ]] || { echo "ci_log_to_repro: ours left no reduced.cpp (exit $code, $out/ours.log)" >&2; exit 2; }
# Reads all its input: a reader that stops early would kill the writer with SIGPIPE (pipefail).
first_error() { awk '!found && /error: / { sub(/.*error: /, ""); print; found = 1 }'; }
original_error=$(sed -n '/^E *Output:/,$p' "$out/pytest.log" | sed 's/^E *//' | first_error)
ours_error=$(sh "$out/ours/repro.sh" 2>&1 | first_error || true)
ours_lines=$(grep -c '' "$out/ours/reduced.cpp")

# 3. C-Vise on the same TU with the same test.
tu=$(grep -m1 -o '/[^ ]*\.cpp' <(sed -n '/^E *Command:/,/^E *Output:/p' "$out/pytest.log"))
original_lines=$(grep -c '' "$tu")
if [[ -n $cvise ]]; then
mkdir -p "$out/cvise"
cp "$tu" "$out/cvise/kernel.cpp"
command_line=$(sed -n '/^E *Command:/{n;p;q}' "$out/pytest.log" | sed 's/^E *//')
errors=$(sed -n '/^E *Output:/,/^[^E]/p' "$out/pytest.log" | grep -c ': error: ')
cat >"$out/cvise/interesting.sh" <<SCRIPT
#!/bin/sh
# The same test as ours: the logged command, front end only, on kernel.cpp in this folder; the
# same first error and no more errors than the original had.
${command_line/$tu/kernel.cpp} -fsyntax-only >out.txt 2>&1 && exit 1
[ "\$(grep -c ': error: ' out.txt)" -le $errors ] || exit 1
grep -m1 ': error: ' out.txt | grep -qF -- $(printf %q "$original_error")
SCRIPT
chmod +x "$out/cvise/interesting.sh"
(cd "$out/cvise" && ./interesting.sh) || { echo "ci_log_to_repro: the C-Vise test rejects the untouched TU ($out/cvise)" >&2; exit 2; }
start=$(now)
code=0
(cd "$out/cvise" && timeout -k 30 "$cvise_timeout" "$cvise" --n "$jobs" --timeout 300 --tidy \
  ./interesting.sh kernel.cpp) >"$out/cvise.log" 2>&1 </dev/null || code=$?
cvise_seconds=$(since "$start")
cvise_status=$([[ $code == 124 || $code == 137 ]] && echo "stopped at ${cvise_timeout} s" || echo "exit $code")
cvise_lines=$(grep -c '' "$out/cvise/kernel.cpp")
fi

printf 'pytest run (the red CI job): %s s\n' "$pytest_seconds"
# Lines alone flatter C-Vise, whose line pass joins lines: bytes beside them.
printf '%-8s %8s %8s %8s  %s\n' tool seconds lines bytes "first error"
printf '%-8s %8s %8s %8s  %s\n' original - "$original_lines" "$(wc -c <"$tu")" "$original_error"
printf '%-8s %8s %8s %8s  %s\n' ours "$ours_seconds" "$ours_lines" "$(wc -c <"$out/ours/reduced.cpp")" "$ours_error"
if [[ -n $cvise ]]; then
  printf '%-8s %8s %8s %8s  %s\n' C-Vise "$cvise_seconds" "$cvise_lines" "$(wc -c <"$out/cvise/kernel.cpp")" "($cvise_status)"
  awk -v a="$ours_seconds" -v b="$cvise_seconds" 'BEGIN { printf "time ours / C-Vise: %.2f\n", a / b }'
else
  echo "C-Vise: not installed (apt-get install cvise): ours alone"
fi
if [[ $ours_lines -le 10 && $ours_error == "$original_error" ]] &&
  awk -v s="$ours_seconds" 'BEGIN { exit !(s <= 120) }'; then
  echo "goal met: <= 10 lines, the same first error, <= 120 s"
  exit 0
fi
echo "goal NOT met (<= 10 lines, the same first error, <= 120 s)"
exit 1
