#!/usr/bin/env bash
# Whether a change left the case format as it was: every stored case (corpus/seeds,
# corpus/findings and its reductions, tests/cases, bench/injected_bugs/cases) written again with
# `convert` by the tool built at REV and by this checkout's build must give the same bytes, and
# every broken variant of some of them (bench/case_mutations.py: each field left out or of each
# JSON type, an unknown field added) the same exit code and the same one-line error.
# REV is built once (bench/build_revision.sh). Nothing runs torch: a few minutes.
# Usage: bench/records_unchanged.sh --before REV [--every N] [--out DIR]
# Defaults: every variant (--every 1; 3 checks a third of them), DIR /tmp/records-unchanged.
# Exit 0 when nothing differs, 1 when something does (each difference printed), 2 on bad input.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  sed -n '/^# Usage:/,/^# Defaults:/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
before='' every=1 out=/tmp/records-unchanged
while (($#)); do
  (($# >= 2)) || usage
  case $1 in
  --before) before=$2 ;;
  --every) every=$2 ;;
  --out) out=$2 ;;
  *) usage ;;
  esac
  shift 2
done
[[ -n $before && $every =~ ^[1-9][0-9]*$ ]] || usage
build="${INDUCTOR_FUZZ_BUILD:-build}"
[[ -x $build/inductor-fuzz ]] || { echo "records_unchanged: $build/inductor-fuzz is missing (run scripts/setup)" >&2; exit 2; }
# shellcheck source=bench/build_revision.sh
source bench/build_revision.sh
build_revision "$before" records_unchanged
rm -rf "$out"
mkdir -p "$out/before" "$out/after" "$out/variants"

# One file through both tools: 0 when both give the same exit code, message and bytes.
compare() {
  local file=$1 name=$2 code_before=0 code_after=0
  "$REVISION_BUILD/inductor-fuzz" convert "$file" --out "$out/before/$name" \
    >/dev/null 2>"$out/before/$name.err" || code_before=$?
  "$build/inductor-fuzz" convert "$file" --out "$out/after/$name" \
    >/dev/null 2>"$out/after/$name.err" || code_after=$?
  if ((code_before != code_after)); then
    echo "$file: exit $code_before before, $code_after after"
  elif ! cmp -s "$out/before/$name.err" "$out/after/$name.err"; then
    echo "$file: before: $(head -c 300 "$out/before/$name.err") | after: $(head -c 300 "$out/after/$name.err")"
  elif ((code_before == 0)) && ! cmp -s "$out/before/$name" "$out/after/$name"; then
    echo "$file: written differently"
  else
    return 0
  fi
  return 1
}

shopt -s nullglob
stored=(corpus/seeds/*.json corpus/findings/*.json corpus/findings/reduced/*/*.json tests/cases/*.json bench/injected_bugs/cases/*.json)
differ=0 checked=0
for file in "${stored[@]}"; do
  checked=$((checked + 1))
  compare "$file" "stored-$checked.json" || differ=$((differ + 1))
done
python3 bench/case_mutations.py "$out/variants" corpus/seeds/*.json tests/cases/*.json >/dev/null
variants=0 index=0
for file in "$out/variants"/*.json; do
  index=$((index + 1))
  ((index % every == 0)) || continue
  variants=$((variants + 1))
  compare "$file" "$(basename "$file")" || differ=$((differ + 1))
done
echo "records_unchanged: ${#stored[@]} stored cases and $variants broken variants through convert at $before and at this build: $differ differ"
((differ == 0))
