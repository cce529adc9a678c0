#!/usr/bin/env bash
# Coverage growth: does feedback reach more of Inductor's C++ than the generator alone?
# Two campaigns of the same length, seed and jobs run side by side (so that the shared machine's
# load falls on both alike): one generates every case (--no-feedback), the other mutates the
# cases of its queue (CORPUS/queue/: the cases that first reached a codegen feature) for a share
# of its cases (policy p_mutate). Both count the codegen features of every captured TU (the
# Clang analysis: at::vec calls and types, loop shapes, pragmas, ATen/AOTI calls, buffer types;
# `inductor-fuzz check --features FILE` lists a TU's). Prints, for each, the features reached at
# 10, 30 and 60 minutes (or the fractions of --minutes), cases run, cases that brought a new
# feature, and bugs (distinct, grouped as the campaign groups signatures), then
#   coverage_growth: feedback/generator features at M min = R (goal >= 1.5)
# With --baseline-policy BASE both arms use feedback and the comparison is between generators:
# "baseline" runs with BASE (bench/policies/before-issue-47.json turns issue 47's families off,
# which gives exactly the cases the generator of 5a3cad7 drew: tests/generator_test.cpp), "widened"
# with FILE or the default policy, and the ratio is widened/baseline (goal > 1).
# Usage: bench/coverage_growth.sh [--minutes M] [--seed S] [--jobs J] [--out DIR] [--policy FILE] [--baseline-policy BASE]
# Defaults: 60 minutes, seed 1, 2 jobs each, DIR /tmp/coverage-growth (replaced), the default
# policy (FILE: overrides for both arms, as `fuzz --policy` takes them). The compiler
# matrix is off and no bug is reduced (--matrix-every 0 --reduce none): the time goes to cases.
# Known issues are off, so every bug counts. INDUCTOR_FUZZ_BUILD picks the build folder (default
# build); its binaries are copied into DIR first, so a rebuild meanwhile cannot break the run.
# Exit 0 when the ratio is at least 1.5, 1 otherwise, 2 when a campaign failed.
# Measured 2026-11-25 (60 min, loaded machine): generator 266/442/450 features at 10/30/60 min,
# 268 cases, 12 bugs; feedback 244/443/449, 230 cases (168 mutated), 7 bugs: ratio 1.00.
# Measured 2026-11-25 with the wrap and table_dtype mutations (60 min, the first 25 shared with a
# case reduction): generator 404/448/461, 344 cases, 11 bugs; feedback 417/482/541, 365 cases
# (196 mutated), 12 bugs: ratio 1.17 (19 of feedback's 81 own features are the flex template's
# helpers under a kernel name with `_to_copy` in it).
# Measured 2026-11-25 with the detour mutation and 71 wrap forms, p_mutate 0.5, mutation_stack 3
# (60 min; the first-tier tests shared the last 25): generator 422/448/450, 272 cases, 10 bugs;
# feedback 418/523/566, 266 cases (144 mutated), 12 bugs: ratio 1.26.
# Measured 2026-11-25 with stacked wraps and detours, call: features, p_mutate 0.7 and
# mutation_stack 4 (now the defaults; 60 min, the first-tier tests shared 50 of them):
# generator 425/457/464, 247 cases, 11 bugs; feedback 287/525/621, 214 cases (155 mutated),
# 6 bugs: ratio 1.34.
# Measured 2026-11-25 with the share of mutated cases following each origin's features per
# second (decay 0.97) and parents weighed by their mutants' yield, findings and run time
# (stopped at 32 min, idle machine): generator 446/464 at 10/30 min; feedback 515/592: 1.28.
# Measured 2026-11-25 at 8bad97c (decay 0.9, mutation weights by measured yield, detours of
# 1-4 steps; 60 min, idle machine but a build at nice 10 for 25 of them): generator
# 446/464/477, 425 cases, 10 bugs; feedback 489/667/821, 391 cases (289 mutated), 12 bugs:
# ratio 1.72.
# Measured 2026-11-25 at 7f8fafb (the emulate_precision_casts knob; the first-tier tests shared
# all of it, stopped at 35 min): generator 431/458 at 10/30 min, 462 at 35, 142 cases;
# feedback 482/607, 621 at 35, 138 cases (87 mutated): 1.34 at 35 min. By case count it is
# ahead of the 1.72 run: 621 features after 138 cases there, 517 in that run.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=60 seed=1 jobs=2 out=/tmp/coverage-growth policy= baseline=
source bench/side_by_side.sh
own_option() {
  case $1 in
  --policy) policy=$(realpath "$2") ;;
  --baseline-policy) baseline=$(realpath "$2") ;;
  *) return 1 ;;
  esac
}
parse_options "$@"

copy_tool coverage_growth "$out"
echo '{"format_version": 1, "issues": []}' >"$out/no-known-issues.json"

common=(fuzz --time "${minutes}m" --seed "$seed" --jobs "$jobs" --matrix-every 0 --reduce none
  --known-issues "$out/no-known-issues.json")
if [[ -n $policy ]]; then
  cp "$policy" "$out/policy.json"
  common+=(--policy "$out/policy.json")
fi
first=(--no-feedback) arms="generator feedback"
if [[ -n $baseline ]]; then
  cp "$baseline" "$out/baseline-policy.json"
  first=(--policy "$out/baseline-policy.json") arms="baseline widened"
fi
read -r first_arm second_arm <<<"$arms"
first_args=("${common[@]}" "${first[@]}" --corpus "$out/$first_arm")
second_args=("${common[@]}" --corpus "$out/$second_arm")
run_side_by_side coverage_growth "$out" "$first_arm" "$second_arm"

python3 - "$out" "$minutes" "$first_arm" "$second_arm" <<'PY'
import json, sys
out, minutes, first, second = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
marks = sorted({m for m in (10, 30, 60) if m <= minutes} | {minutes})
rows = {}
for arm in (first, second):
    summary = json.load(open(f"{out}/{arm}/report/summary.json"))
    campaign, coverage = summary["campaign"], summary["campaign"]["coverage"]
    timeline = coverage["feature_timeline"]
    def at(minute):
        if minute == minutes:  # every case started within the time counts, also one ending after
            return coverage["features"]
        reached = [count for seconds, count in timeline if seconds <= minute * 60]
        return reached[-1] if reached else 0
    rows[arm] = {"marks": [at(m) for m in marks], "cases": campaign["cases"],
                 "mutated": coverage["mutated_cases"], "queue": coverage["queue"],
                 "new_feature_cases": coverage["new_feature_cases"],
                 "bugs": len(summary.get("bugs", [])), "features": set(coverage["feature_list"])}
print("| arm | " + " | ".join(f"features at {m} min" for m in marks) +
      " | cases | mutated | queue | cases with a new feature | bugs |")
print("|---|" + "---|" * (len(marks) + 5))
for arm, row in rows.items():
    new = ", ".join(f"{k} {v}" for k, v in sorted(row["new_feature_cases"].items())) or "0"
    print(f"| {arm} | " + " | ".join(map(str, row["marks"])) +
          f" | {row['cases']} | {row['mutated']} | {row['queue']} | {new} | {row['bugs']} |")
only_second = sorted(rows[second]["features"] - rows[first]["features"])
only_first = sorted(rows[first]["features"] - rows[second]["features"])
print(f"features only {second} reached ({len(only_second)}): {', '.join(only_second[:40])}")
print(f"features only {first} reached ({len(only_first)}): {', '.join(only_first[:40])}")
low, high = rows[first]["marks"][-1], rows[second]["marks"][-1]
ratio = high / low if low else float("inf")
goal = 1.0 if first == "baseline" else 1.5
print(f"coverage_growth: {second}/{first} features at {marks[-1]} min = {ratio:.2f} "
      f"(goal {'>' if goal == 1.0 else '>='} {goal})")
sys.exit(0 if ratio > goal or (goal == 1.5 and ratio >= goal) else 1)
PY
