#!/usr/bin/env bash
# Known issues against real keys: each reduced case of corpus/findings/reduced/ (those with a
# case.json) runs through `run-case` with its probe, and must match the known issue whose
# `reduced` names its folder, and no other; each injected miscompile's case
# (bench/injected_bugs/cases/ID.json, run with INDUCTOR_FUZZ_INJECT=ID) must match none.
# Prints a table and `known_issue_matches: X/Y as expected`. Exit 0 when all are, 1 otherwise,
# 2 when a run failed. About 5 minutes on 2 cores.
# Usage: bench/known_issue_matches.sh [--only reduced|injected] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
only="" out=/tmp/known-issue-matches
while (($#)); do
  case $1 in
  --only) only=$2 ;;
  --out) out=$2 ;;
  *) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
  shift 2
done
[[ -x build/inductor-fuzz ]] || { echo "known_issue_matches: build/inductor-fuzz is missing (scripts/setup)" >&2; exit 2; }
rm -rf "$out" && mkdir -p "$out"

expected_of() { # the known issue(s) whose `reduced` is this folder, comma-separated
  python3 -c 'import json,sys; print(",".join(i["id"] for i in json.load(open("corpus/known-issues.json"))["issues"] if i.get("reduced","").rstrip("/")==sys.argv[1]))' "$1"
}

good=0 total=0
printf '%-58s %-40s %-40s %s\n' case expected matched verdict
check() { # label, expected ids (comma-separated, empty: none), run-case log
  local label=$1 expected=$2 log=$3 matched
  matched=$(sed -n 's/^  known issue: \([^ ]*\).*/\1/p' "$log" | head -1)
  [[ $matched == none ]] && matched=""
  local verdict=wrong
  if [[ -z $expected && -z $matched ]] || [[ -n $matched && ",$expected," == *",$matched,"* ]]; then
    verdict=ok
    good=$((good + 1))
  fi
  total=$((total + 1))
  printf '%-58s %-40s %-40s %s\n' "$label" "${expected:-none}" "${matched:-none}" "$verdict"
  sed -n 's/^  bug key: /    key: /p; s/^  signature: /    signature: /p' "$log" | head -1
}
run() { # out name, case file, then environment assignments
  local name=$1 file=$2 code=0
  shift 2
  env "$@" build/inductor-fuzz run-case "$file" --out "$out/$name" >"$out/$name.log" 2>&1 || code=$?
  if ((code > 1)); then
    echo "known_issue_matches: run-case $file failed (exit $code):" >&2
    tail -3 "$out/$name.log" >&2
    exit 2
  fi
}

if [[ $only != injected ]]; then
  for folder in corpus/findings/reduced/*/; do
    folder=${folder%/}
    [[ -f $folder/case.json ]] || continue
    name=$(basename "$folder")
    run "$name" "$folder/case.json"
    check "$name" "$(expected_of "$folder")" "$out/$name.log"
  done
fi
if [[ $only != reduced ]]; then
  for file in bench/injected_bugs/cases/*.json; do
    id=$(basename "$file" .json)
    run "injected-$id" "$file" PYTHONPATH="$root/bench/injected_bugs" INDUCTOR_FUZZ_INJECT="$id"
    check "injected $id" "" "$out/injected-$id.log"
  done
fi
echo "known_issue_matches: $good/$total as expected"
((good == total))
