#!/usr/bin/env bash
# Worker memory over a long campaign, with recycling: the resident memory of the worker that
# ran each case, right after it (summary.json's campaign.worker_resident), compared between
# the cases around case 50 and the last cases of the run. Goal: growth under 10%.
# Also prints the campaign's own numbers, so that one run serves as a long-campaign report.
#
#   bench/campaign_memory.sh [CASES=500] [JOBS=2] [SEED=1] [-- extra fuzz flags]
#
# Uses $INDUCTOR_FUZZ_BUILD (default build). Exit 0 within the goal, 1 over it, 2 on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-500}
jobs=${2:-2}
seed=${3:-1}
shift $(($# < 3 ? $# : 3))
[ "${1:-}" = "--" ] && shift
build=${INDUCTOR_FUZZ_BUILD:-build}
tool="$build/inductor-fuzz"
[ -x "$tool" ] || { echo "campaign_memory: $tool is missing: run scripts/setup" >&2; exit 2; }
out=${OUT:-$(mktemp -d /tmp/inductor-fuzz-memory-XXXXXX)}
mkdir -p "$out"
echo "campaign_memory: $cases cases, $jobs jobs, seed $seed, corpus $out/corpus"
start=$(date +%s)
set +e
"$tool" fuzz --reduce none --cases "$cases" --jobs "$jobs" --seed "$seed" --corpus "$out/corpus" "$@" \
  >"$out/fuzz.out" 2>"$out/fuzz.err"
status=$?
set -e
end=$(date +%s)
if [ "$status" -gt 1 ]; then
  echo "campaign_memory: fuzz failed (exit $status):" >&2
  tail -5 "$out/fuzz.err" >&2
  exit 2
fi
.venv/bin/python - "$out/corpus/report/summary.json" "$((end - start))" <<'PY'
import json, statistics, sys

summary = json.load(open(sys.argv[1]))
campaign = summary["campaign"]
wall = int(sys.argv[2])
print(f"cases: {campaign['cases']} in {wall} s ({campaign['cases'] * 60 / max(wall, 1):.1f}/min), "
      f"by status {campaign['by_status']}, worker restarts {campaign['worker_restarts']}")
print(f"findings new by kind: {campaign['new_by_kind']}; known by kind: {campaign['known_by_kind']}")
print(f"distinct signatures: {len(campaign['signatures'])}")
for signature in campaign["signatures"]:
    state = "NEW" if signature["new"] else ("known " + signature["known_issue"] if signature["known_issue"] else "seen before")
    print(f"  {state:<28} {signature['id']}  {signature['signature'][:110]}")
if campaign.get("matrix_cases"):
    print(f"compiler matrix: {campaign['matrix_cases']} cases, {campaign['matrix_builds']} builds, "
          f"{campaign['build_cache_hits']} from the build cache, {campaign['runtime_replays']} replayed")
samples = campaign["worker_resident"]
if len(samples) < 60:
    print(f"memory: only {len(samples)} samples; run at least 60 cases")
    sys.exit(2)
mib = 1 << 20
window = 10
early = [rss for done, rss in samples if 50 - window < done <= 50]
late = [rss for done, rss in samples[-window:]]
early_mib = statistics.median(early) / mib
late_mib = statistics.median(late) / mib
growth = (late_mib - early_mib) / early_mib
peak = max(rss for _, rss in samples) / mib
print(f"worker resident memory: median of cases 41-50 {early_mib:.0f} MiB, of the last {window} "
      f"cases (to case {samples[-1][0]}) {late_mib:.0f} MiB, growth {growth * 100:+.1f}% "
      f"(goal < 10%), peak {peak:.0f} MiB")
print("PASS" if growth < 0.10 else "FAIL")
sys.exit(0 if growth < 0.10 else 1)
PY
