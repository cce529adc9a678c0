# shellcheck shell=bash
# Sourced by the bench scripts that run two campaigns side by side (campaign_throughput.sh,
# coverage_growth.sh, op_surface.sh): the binaries copied first, so that a rebuild meanwhile
# cannot break a run, and both arms started together, so that the shared machine's load falls
# on both alike.

# usage: the script's own "# Usage:" to "# Defaults:" lines, exit 2.
usage() {
  sed -n '/^# Usage:/,/^# Defaults:/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

# parse_options "$@": --minutes, --seed, --jobs and --out into minutes, seed, jobs and out (the
# caller's defaults stand otherwise); any other option goes to the caller's own
# `own_option NAME VALUE`, which returns 1 for one it does not know. Then checks the numbers.
parse_options() {
  while (($#)); do
    (($# >= 2)) || usage
    case $1 in
    --minutes) minutes=$2 ;;
    --seed) seed=$2 ;;
    --jobs) jobs=$2 ;;
    --out) out=$2 ;;
    *) own_option "$1" "$2" || usage ;;
    esac
    shift 2
  done
  [[ $minutes =~ ^[1-9][0-9]*$ && $seed =~ ^[0-9]+$ && $jobs =~ ^[1-9][0-9]*$ ]] || usage
}

# copy_tool NAME OUT: the build's binaries into OUT/bin (OUT replaced); exit 2 when missing.
copy_tool() {
  local name=$1 out=$2 build="${INDUCTOR_FUZZ_BUILD:-build}" needed
  for needed in "$build/inductor-fuzz" "$build/inductor-fuzz-worker"; do
    [[ -x $needed ]] || { echo "$name: $needed is missing (build it first)" >&2; exit 2; }
  done
  rm -rf "$out"
  mkdir -p "$out/bin"
  cp "$build/inductor-fuzz" "$build/inductor-fuzz-worker" "$out/bin/"
  export INDUCTOR_FUZZ_VENV="${INDUCTOR_FUZZ_VENV:-$(pwd)/.venv}"
}

# copy_revision NAME OUT BUILD: an older build's binaries into OUT/first-bin, for the first arm.
copy_revision() {
  local name=$1 out=$2 build=$3 needed
  for needed in "$build/inductor-fuzz" "$build/inductor-fuzz-worker"; do
    [[ -x $needed ]] || { echo "$name: $needed is missing" >&2; exit 2; }
  done
  mkdir -p "$out/first-bin"
  cp "$build/inductor-fuzz" "$build/inductor-fuzz-worker" "$out/first-bin/"
}

# run_side_by_side NAME OUT FIRST SECOND: `inductor-fuzz` with the arrays first_args and
# second_args at once, logs in OUT/FIRST.log and OUT/SECOND.log; exit 2 when either fails
# (exit over 1), with their last lines. The first arm runs OUT/first-bin's build when
# copy_revision put one there.
run_side_by_side() {
  local name=$1 out=$2 first=$3 second=$4 start pids=() pid code failed=0 first_bin=$2/bin
  [[ -x $out/first-bin/inductor-fuzz ]] && first_bin=$out/first-bin
  start=$(date +%s)
  "$first_bin/inductor-fuzz" "${first_args[@]}" >"$out/$first.log" 2>&1 &
  pids+=($!)
  "$out/bin/inductor-fuzz" "${second_args[@]}" >"$out/$second.log" 2>&1 &
  pids+=($!)
  for pid in "${pids[@]}"; do
    code=0
    wait "$pid" || code=$?
    ((code <= 1)) || failed=1
  done
  if ((failed)); then
    echo "$name: a campaign failed; last lines:" >&2
    tail -n 5 "$out/$first.log" "$out/$second.log" >&2
    exit 2
  fi
  echo "$name: both campaigns took $(($(date +%s) - start)) s; corpora and logs in $out" >&2
}
