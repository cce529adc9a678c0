#!/usr/bin/env bash
# Op-surface coverage: the share of Inductor's supported (op, dtype, path) C++ cells a campaign
# reaches (summary.json's "surface": the overrides the worker saw Inductor emit, by the dtype they
# received and scalar/vector path, against the universe the installed release has), before
# issue 63's op programs and after. Two campaigns of the same length, seed and jobs run side by
# side, so that the shared machine's load falls on both alike: "before" with
# bench/policies/before-issue-63.json (p_op_program 0: exactly the cases the generator drew
# before op programs, by their own random stream), "after" with the default policy. Prints, for
# each, the cells reached, the share, the cases per minute, the bugs, and per family of case
# (op programs, each API) the seconds a case takes and where they go (eager, Dynamo and Inductor,
# the C++ compiles, the Clang analysis: summary.json's campaign.time_by_family), then
#   op_surface: after reaches P% of C supported cells (before B%); goal >= 80%
# Usage: bench/op_surface.sh [--minutes M] [--seed S] [--jobs J] [--out DIR] [--policy FILE]
# Defaults: 60 minutes, seed 63, 1 job each (2 cores: one per arm), DIR /tmp/op-surface
# (replaced), the default policy for "after" (--policy bench/policies/op-surface.json: a
# campaign aimed at the surface, nine cases in ten op programs). No matrix, no reduction, no
# known issues: the time goes to cases.
# Exit 0 when the goal is met, 1 when not, 2 when a campaign failed.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=60 seed=63 jobs=1 out=/tmp/op-surface policy=
source bench/side_by_side.sh
own_option() {
  case $1 in
  --policy) policy=$2 ;;
  *) return 1 ;;
  esac
}
parse_options "$@"

copy_tool op_surface "$out"
echo '{"format_version": 1, "issues": []}' >"$out/no-known-issues.json"
cp bench/policies/before-issue-63.json "$out/before-policy.json"
after_policy=()
if [[ -n $policy ]]; then
  [[ -f $policy ]] || { echo "op_surface: --policy $policy is not a file" >&2; exit 2; }
  cp "$policy" "$out/after-policy.json"
  after_policy=(--policy "$out/after-policy.json")
fi
common=(fuzz --time "${minutes}m" --seed "$seed" --jobs "$jobs" --matrix-every 0 --reduce none
  --known-issues "$out/no-known-issues.json")
first_args=("${common[@]}" --policy "$out/before-policy.json" --corpus "$out/before")
second_args=("${common[@]}" "${after_policy[@]}" --corpus "$out/after")
run_side_by_side op_surface "$out" before after

python3 - "$out" "$minutes" <<'PY'
import json, sys
out, minutes = sys.argv[1], int(sys.argv[2])
rows = {}
for arm in ("before", "after"):
    summary = json.load(open(f"{out}/{arm}/report/summary.json"))
    surface, campaign = summary["surface"], summary["campaign"]
    rows[arm] = surface

    print(f"| {arm} | cells {surface['reached']} of {surface['cells']} | "
          f"{100 * surface['share']:.1f}% | {campaign['cases']} cases "
          f"({campaign['cases'] / minutes:.1f}/min) | {len(summary['bugs'])} bugs | "
          f"casts {len(surface['casts'])} |")
    for family, time in sorted(campaign.get("time_by_family", {}).items()):
        cases, wall = time.get("cases", 0), time.get("wall", 0) or 1e-9
        parts = ", ".join(f"{key} {100 * time.get(key, 0) / wall:.0f}%"
                          for key in ("eager", "dynamo_inductor", "cpp_compile", "analysis"))
        print(f"|   {family} | {cases:.0f} cases, {wall / max(cases, 1):.1f} s each "
              f"({60 * cases / wall:.1f} per worker-minute) | {parts} |")
before, after = rows["before"], rows["after"]
print(f"op_surface: after reaches {100 * after['share']:.1f}% of {after['cells']} supported "
      f"cells (before {100 * before['share']:.1f}%); goal >= 80%")
sys.exit(0 if after["share"] >= 0.8 else 1)
PY
