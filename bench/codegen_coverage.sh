#!/usr/bin/env bash
# Inductor's CPU C++ code generation reached by two generators side by side: the share of the
# lines of torch/_inductor/codegen/cpp*.py that the cases of each execute, per module, measured
# with coverage.py on the installed release (bench/codegen_coverage.py) over the same seeds.
#
# usage: bench/codegen_coverage.sh [--seed N] [--count N] [--before POLICY] [--after POLICY]
#   --before: the policy of the generator before tensor programs (default: the default policy
#             with p_tensor_program 0, today's generator but for programs); --after: the default.
# Prints a table (module, executed/statements before, after, the ratio) and the totals.
# Modules no case of either side imports are not listed (coverage.py sees only imported files).
set -euo pipefail
cd "$(dirname "$0")/.."

seed=1
count=40
before=""
after=""
while (($#)); do
  case $1 in
    --seed) seed=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --before) before=$2; shift 2 ;;
    --after) after=$2; shift 2 ;;
    -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "codegen_coverage: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -z $before ]]; then
  before=$work/before-policy.json
  echo '{"numbers": {"p_tensor_program": 0}}' >"$before"
fi
policy_args() { [[ -z $1 ]] || printf -- '--policy\n%s\n' "$1"; }
for side in before after; do
  policy=${!side}
  mapfile -t extra < <(policy_args "$policy")
  build/inductor-fuzz gen --seed "$seed" --count "$count" --requests "${extra[@]}" >"$work/$side.jsonl"
  echo "codegen_coverage: $side: $count cases from seed $seed${policy:+ ($policy)}" >&2
  PYTHONPATH=fuzzer/worker/python TORCHINDUCTOR_CACHE_DIR=$work/inductor-$side \
    .venv/bin/python bench/codegen_coverage.py "$work/$side.jsonl" "$work/$side.coverage" >"$work/$side.json"
done
.venv/bin/python - "$work/before.json" "$work/after.json" <<'PY'
import json, sys
before, after = (json.load(open(p)) for p in sys.argv[1:])
names = sorted(set(before["modules"]) | set(after["modules"]))
print(f"{'module':48} {'before':>14} {'after':>14} {'ratio':>6}")
totals = [[0, 0], [0, 0]]
for name in names:
    cells = []
    for i, side in enumerate((before, after)):
        executed, statements = side["modules"].get(name, [0, 0])
        if statements == 0:  # not imported on this side: its size from the other
            statements = (after if side is before else before)["modules"][name][1]
        totals[i][0] += executed
        totals[i][1] += statements
        cells.append((executed, statements))
    share = [e / s if s else 0 for e, s in cells]
    ratio = f"{share[1] / share[0]:.2f}" if share[0] else "new"
    print(f"{name:48} {cells[0][0]:>5}/{cells[0][1]:<5} {share[0]:4.0%} {cells[1][0]:>5}/{cells[1][1]:<5} {share[1]:4.0%} {ratio:>6}")
share = [e / s for e, s in totals]
print(f"{'all cpp*.py':48} {share[0]:>14.1%} {share[1]:>14.1%} {share[1] / share[0]:6.2f}")
print(f"statuses before: {before['statuses']}; after: {after['statuses']}")
PY
