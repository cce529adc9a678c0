#!/usr/bin/env bash
# Runs a test binary (with the arguments after it) once on every other torch release installed
# next to .venv (the .venv-torch-VERSION folders `scripts/setup --with-torch VERSION` makes),
# through INDUCTOR_FUZZ_TEST_VENV. With none installed it fails: scripts/test installs one.
set -uo pipefail
binary=$1
shift # the rest goes to the binary (a --gtest_filter)
root=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
venvs=("$root"/.venv-torch-*/)
if ((${#venvs[@]} == 0)); then
  echo "no .venv-torch-* next to .venv: run scripts/setup --with-torch VERSION (scripts/test does)"
  exit 1
fi
status=0
for venv in "${venvs[@]}"; do
  echo "=== $(basename "$venv")"
  INDUCTOR_FUZZ_TEST_VENV=${venv%/} "$binary" "$@" || status=1
done
exit $status
