#!/usr/bin/env bash
# A campaign's throughput, before and after a change, side by side: two campaigns of the same
# seed, length and jobs start together (the shared machine's load falls on both alike), one with
# BEFORE's flags, the other with the tool's defaults. Each uses the default policy, the default
# compiler matrix (every 10th case), probes and the project's known issues; no reduction
# (--reduce none), so the time goes to cases. Prints for each arm cases and cases a minute,
# codegen features and features a minute, bugs and new bugs, builds and how many an earlier
# case's output served, and where the wall time went (summary.json's time_by_family, all
# families), then
#   campaign_throughput: after/before cases a minute = R
# Both arms share the 2 cores, so each has about half the machine: a campaign alone with
# --jobs 2 runs about twice an arm's cases a minute (its own line says so, as "alone").
# Usage: bench/campaign_throughput.sh [--minutes M] [--seed S] [--jobs J] [--out DIR] [--before "FLAGS"] [--before-global "FLAGS"] [--both "FLAGS"] [--before-revision COMMIT]
# Defaults: 30 minutes, seed 6400, 1 job each, DIR /tmp/campaign-throughput (replaced), BEFORE
# "--no-shared-builds" (every build runs its compiler, as before builds were shared), BOTH none
# (--both "--no-feedback": every case generated, so that both arms run the same cases: with
# feedback the share of mutated cases follows each one's time, and the arms' cases part).
# BEFORE_GLOBAL goes before the command, for the options that belong there (--before ""
# --before-global --no-confine: what confining the workers costs).
# COMMIT (--before-revision): the before arm runs that commit's build (bench/build_revision.sh
# makes it once) with BEFORE's flags (give --before "" for its defaults): this checkout's
# change against the code before it. With --no-feedback and shared builds in both arms, the
# arms run the same cases at the same time and each compile one makes serves the other: they
# go in lockstep, and only the stages' seconds tell them apart (measured: 280 cases each, 422 of
# the before arm's 504 builds from the after arm's compiles).
# INDUCTOR_FUZZ_BUILD picks the build folder (default build); its binaries are copied into DIR
# first, so a rebuild meanwhile cannot break the run. Exit 0 when after runs at least as many
# cases a minute as before, 1 otherwise, 2 when a campaign failed.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=30 seed=6400 jobs=1 out=/tmp/campaign-throughput before="--no-shared-builds" both=
before_global="" revision=""
source bench/side_by_side.sh
source bench/build_revision.sh
own_option() {
  case $1 in
  --before-revision) revision=$2 ;;
  --before) before=$2 ;;
  --before-global) before_global=$2 ;;
  --both) both=$2 ;;
  *) return 1 ;;
  esac
}
parse_options "$@"

copy_tool campaign_throughput "$out"
if [[ -n $revision ]]; then
  build_revision "$revision" campaign_throughput
  copy_revision campaign_throughput "$out" "$REVISION_BUILD"
fi
read -r -a both_flags <<<"$both"
common=(fuzz --time "${minutes}m" --seed "$seed" --jobs "$jobs" --reduce none "${both_flags[@]}")
read -r -a before_flags <<<"$before"
read -r -a before_global_flags <<<"$before_global"
first_args=("${before_global_flags[@]}" "${common[@]}" "${before_flags[@]}" --corpus "$out/before")
second_args=("${common[@]}" --corpus "$out/after")
run_side_by_side campaign_throughput "$out" before after
echo "campaign_throughput: before ran ${revision:+the build of $revision }with ${before_global:+$before_global before the command and }${before:-the defaults}, both with ${both:-the defaults}" >&2

python3 - "$out" "$minutes" "$jobs" <<'PY'
import json, sys
out, minutes, jobs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
stages = ["generate", "eager", "dynamo_inductor", "cpp_compile", "compare", "probe", "matrix",
          "sanitizer_reruns", "worker_start", "analysis"]
rows = {}
for arm in ("before", "after"):
    summary = json.load(open(f"{out}/{arm}/report/summary.json"))
    campaign = summary["campaign"]
    total = {}
    for times in campaign.get("time_by_family", {}).values():
        for key, value in times.items():
            total[key] = total.get(key, 0) + value
    bugs = summary.get("bugs", [])
    rows[arm] = {
        "cases": campaign["cases"], "features": campaign["coverage"]["features"],
        "bugs": len(bugs), "new_bugs": sum(1 for bug in bugs if bug.get("new")),
        "builds": int(total.get("builds", 0)), "shared": int(total.get("shared_builds", 0)),
        "prefixed": int(total.get("prefixed_builds", 0)),
        "total": total,
    }
print(f"{minutes} min each, --jobs {jobs} each, side by side on one machine")
print("| arm | cases | cases/min | features | features/min | bugs (new) | builds (shared, prefixed) |")
print("|---|---|---|---|---|---|---|")
for arm, row in rows.items():
    print(f"| {arm} | {row['cases']} | {row['cases'] / minutes:.1f} | {row['features']} | "
          f"{row['features'] / minutes:.1f} | {row['bugs']} ({row['new_bugs']}) | "
          f"{row['builds']} ({row['shared']}, {row['prefixed']}) |")
print()
print("| stage | " + " | ".join(f"{arm} s (share)" for arm in rows) + " |")
print("|---|" + "---|" * len(rows))
for stage in ["wall"] + stages:
    cells = []
    for row in rows.values():
        wall = row["total"].get("wall", 0) or 1
        seconds = row["total"].get(stage, 0)
        cells.append(f"{seconds:.0f} ({100 * seconds / wall:.0f}%)")
    print(f"| {stage} | " + " | ".join(cells) + " |")
ratio = rows["after"]["cases"] / max(rows["before"]["cases"], 1)
print(f"campaign_throughput: after/before cases a minute = {ratio:.2f} "
      f"({rows['after']['cases'] / minutes:.1f} against {rows['before']['cases'] / minutes:.1f}; "
      f"alone with --jobs {2 * jobs}: about {2 * rows['after']['cases'] / minutes:.1f})")
sys.exit(0 if ratio >= 1 else 1)
PY
