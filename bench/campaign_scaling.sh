#!/usr/bin/env bash
# Cases per hour of `fuzz --jobs 2` against `fuzz --jobs 1` over the same cases, run one after
# the other in one go. Usage: bench/campaign_scaling.sh [CASES] [SEED]  (default 16, 1).
# INDUCTOR_FUZZ_BUILD picks the build folder (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-16}
seed=${2:-1}
binary="${INDUCTOR_FUZZ_BUILD:-build}/inductor-fuzz"
work=$(mktemp -d /tmp/inductor-fuzz-scaling-XXXXXX)
trap 'rm -rf "$work"' EXIT
times=()
for jobs in 1 2; do
  start=$(date +%s.%N)
  "$binary" fuzz --reduce none --cases "$cases" --seed "$seed" --jobs "$jobs" --corpus "$work/jobs-$jobs" \
    >"$work/jobs-$jobs.out" 2>"$work/jobs-$jobs.err" || [[ $? -eq 1 ]]
  end=$(date +%s.%N)
  times+=("$(python3 -c "print($end - $start)")")
  python3 -c "print(f'jobs $jobs: $cases cases in {${times[-1]}:.1f} s, {$cases * 3600 / ${times[-1]}:.0f} cases/hour')"
done
python3 -c "print(f'jobs 2 / jobs 1, cases per hour: {${times[0]} / ${times[1]}:.2f}')"
