#!/usr/bin/env bash
# The README's first command, `scripts/setup && build/inductor-fuzz fuzz`, on a fresh clone of
# this checkout's HEAD, timed by phase: set-up's steps (Debian packages, the venv with its
# downloads, configuring, the build, the capture wheel) and the campaign; then the ten slowest
# translation units of the build (from its .ninja_log).
#
#   bench/setup_time.sh [--empty-wheelhouse] [--time 5m] [--keep]
#
# --empty-wheelhouse  set-up gets a wheelhouse of its own, empty, so it downloads every wheel
#                     again (torch is about 3 GB), and the tool's caches start empty, as on a
#                     machine that never ran it; without it the machine's wheelhouse serves
#                     and nothing is downloaded
# --time D            the campaign's --time (default 5m, the README's)
# --keep              keep the clone (its path is printed)
#
# Debian packages are not removed: on a machine that has them their step takes seconds, and
# the table says so. Nothing else of this checkout is touched.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

empty_wheelhouse=0
time_budget=5m
keep=0
while (($#)); do
  case $1 in
    --empty-wheelhouse) empty_wheelhouse=1 ;;
    --time)
      time_budget=${2:?--time takes a duration, e.g. 5m}
      shift
      ;;
    --keep) keep=1 ;;
    -h | --help)
      sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "setup_time: unknown argument $1 (see --help)" >&2
      exit 2
      ;;
  esac
  shift
done

work=$(mktemp -d /tmp/inductor-fuzz-setup-time.XXXXXX)
trap '((keep)) || rm -rf "$work"' EXIT
git clone -q "$root" "$work/repo"
echo "setup_time: fresh clone of $(git -C "$root" rev-parse --short HEAD) in $work/repo" >&2
if ((empty_wheelhouse)); then
  # A machine that never ran it: no wheels, and none of the tool's caches (shared builds,
  # precompiled prefixes, the op surface's universe) under ~/.cache either.
  export INDUCTOR_FUZZ_WHEELHOUSE=$work/wheelhouse XDG_CACHE_HOME=$work/cache
fi

cd "$work/repo"
start=$SECONDS
scripts/setup 2> >(tee "$work/setup.log" >&2)
setup_seconds=$((SECONDS - start))
start=$SECONDS
status=0
build/inductor-fuzz fuzz --time "$time_budget" --corpus "$work/corpus" >"$work/fuzz.log" 2>&1 || status=$?
fuzz_seconds=$((SECONDS - start))
tail -1 "$work/fuzz.log" >&2
# fuzz exits 1 when it found bugs: that is a campaign, not a failure.
((status <= 1)) || {
  echo "setup_time: the campaign failed (exit $status): $work/fuzz.log" >&2
  keep=1
  exit 2
}

# The steps' times from set-up's last line: "ready: ..., in N s (packages=3 venv=120 ...)".
steps=$(grep -o '(packages=[^)]*)' "$work/setup.log" | tail -1 | tr -d '()')
echo
echo "| phase | seconds |"
echo "|---|---|"
for pair in $steps; do
  echo "| ${pair%%=*} | ${pair#*=} |"
done
echo "| set-up in all | $setup_seconds |"
echo "| campaign (fuzz --time $time_budget) | $fuzz_seconds |"
echo "| first command in all | $((setup_seconds + fuzz_seconds)) |"
echo
echo "The ten slowest translation units of the build (seconds, from build/.ninja_log):"
python3 - build/.ninja_log <<'EOF'
import sys
times = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    start, end, _, target, _ = line.rstrip("\n").split("\t")
    if target.endswith(".o"):
        times[target] = (int(end) - int(start)) / 1000
for target, seconds in sorted(times.items(), key=lambda item: -item[1])[:10]:
    print(f"  {seconds:6.1f}  {target}")
print(f"  {sum(times.values()):6.0f}  all {len(times)} objects together (CPU seconds, both cores)")
EOF
((keep)) && echo "setup_time: kept $work" >&2
exit 0
