#!/usr/bin/env bash
# The portable capture (issue 49), measured side by side on this machine:
#   1. its overhead: a program (tests/fixtures/capture/two_functions.py) run bare and under
#      `python -m inductor_fuzz_capture`, alternately, REPEAT times each, from a fresh venv that
#      has the wheel and the torch of .venv, each run with a fresh Inductor cache;
#   2. the size of a capture folder per case, and the round trip: N generated cases (with the
#      planted codegen bug of tests/fixtures/plant, so that some fail) through `run-case` here and
#      through the package and `corpus import`, and whether the findings are the same: the same
#      signatures and the same bugs.
# Usage: bench/portable_capture.sh [N] [SEED] [REPEAT]   (default 20, 1, 3)
# INDUCTOR_FUZZ_BUILD picks the build folder (default build); the wheel is its dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-20}
seed=${2:-1}
repeat=${3:-3}
build=${INDUCTOR_FUZZ_BUILD:-build}
binary="$build/inductor-fuzz"
root=$(pwd)
work=$(mktemp -d /tmp/inductor-fuzz-portable-XXXXXX)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3.11 -m venv "$work/venv"
site=$(echo "$root"/.venv/lib/python3*/site-packages)
echo "$site" >"$work/venv/lib/python3.11/site-packages/torch-of-the-machine.pth"
"$work/venv/bin/pip" install -q --no-index --disable-pip-version-check "$build"/dist/inductor_fuzz_capture-*.whl
python="$work/venv/bin/python"
package() { env PATH=/usr/bin:/bin PYTHONPATH="${PLANT:-}" "$python" -m inductor_fuzz_capture "$@"; }

echo "== overhead: tests/fixtures/capture/two_functions.py, $repeat run(s) each, alternating"
bare_total=0
captured_total=0
for i in $(seq "$repeat"); do
  start=$(date +%s.%N)
  TORCHINDUCTOR_CACHE_DIR="$work/bare-cache-$i" PATH=/usr/bin:/bin "$python" \
    tests/fixtures/capture/two_functions.py >/dev/null 2>&1
  bare=$(echo "$(date +%s.%N) - $start" | bc)
  start=$(date +%s.%N)
  package --out "$work/program-$i" -- tests/fixtures/capture/two_functions.py >/dev/null 2>&1
  captured=$(echo "$(date +%s.%N) - $start" | bc)
  printf '  run %d: bare %.1f s, captured %.1f s\n' "$i" "$bare" "$captured"
  bare_total=$(echo "$bare_total + $bare" | bc)
  captured_total=$(echo "$captured_total + $captured" | bc)
done
printf '  mean: bare %.1f s, captured %.1f s, ratio %.2f\n' "$(echo "$bare_total / $repeat" | bc -l)" \
  "$(echo "$captured_total / $repeat" | bc -l)" "$(echo "$captured_total / $bare_total" | bc -l)"
printf '  program capture folder: %s\n' "$(du -sh --exclude=inductor-cache "$work/program-1" | cut -f1)"

echo "== round trip: $count generated cases from seed $seed, planted codegen bug"
export PLANT="$root/tests/fixtures/plant"
"$binary" gen --seed "$seed" --count "$count" --requests >"$work/requests.jsonl"
"$binary" gen --seed "$seed" --count "$count" >"$work/cases.jsonl"
start=$(date +%s.%N)
package --out "$work/night" --cases "$work/requests.jsonl" >"$work/package.log" 2>&1 || true
package_seconds=$(echo "$(date +%s.%N) - $start" | bc)
start=$(date +%s.%N)
"$binary" corpus import "$work/night" --corpus "$work/corpus" >"$work/import.log" 2>&1 || true
import_seconds=$(echo "$(date +%s.%N) - $start" | bc)
mkdir -p "$work/run-case"
start=$(date +%s.%N)
index=0
while IFS= read -r line; do
  echo "$line" >"$work/run-case/case-$index.json"
  PYTHONPATH="$PLANT" "$binary" run-case "$work/run-case/case-$index.json" \
    --out "$work/run-case/out-$index" --probe-runs 0 >/dev/null 2>&1 || true
  index=$((index + 1))
done <"$work/cases.jsonl"
run_case_seconds=$(echo "$(date +%s.%N) - $start" | bc)

"$root/.venv/bin/python" - "$work" "$count" "$package_seconds" "$import_seconds" "$run_case_seconds" <<'EOF'
import glob, json, os, subprocess, sys

work, count = sys.argv[1], int(sys.argv[2])
package_s, import_s, run_case_s = map(float, sys.argv[3:6])
sizes = []
for folder in glob.glob(os.path.join(work, "night", "cases", "*")):
    total = 0
    for base, _, files in os.walk(folder):
        total += sum(os.path.getsize(os.path.join(base, name)) for name in files)
    sizes.append(total)
sizes.sort()
print(f"  package: {package_s:.1f} s for {count} cases; corpus import {import_s:.1f} s; "
      f"run-case here {run_case_s:.1f} s")
print(f"  folder per case: median {sizes[len(sizes) // 2] / 1024:.0f} KiB, largest "
      f"{sizes[-1] / 1024:.0f} KiB, all {sum(sizes) / 1024 / 1024:.1f} MiB")
imported = set()
for path in glob.glob(os.path.join(work, "corpus", "findings", "*", "finding.json")):
    imported.add(json.load(open(path))["signature"])
here, keys = set(), set()
for path in glob.glob(os.path.join(work, "run-case", "out-*", "result.json")):
    result = json.load(open(path))
    if "signature" in result:
        here.add(result["signature"])
statuses = {}
for line in open(os.path.join(work, "package.log")):
    if line.startswith("  ["):
        ended = line.split(": ", 1)[1].rsplit(";", 1)[0]
        statuses[ended] = statuses.get(ended, 0) + 1
print(f"  package outcomes: {statuses}")
print(f"  signatures: run-case {len(here)}, imported {len(imported)}, equal: {here == imported}")
for only in sorted(here - imported):
    print(f"    only run-case: {only}")
for only in sorted(imported - here):
    print(f"    only imported: {only}")
bugs = [line for line in open(os.path.join(work, "import.log")) if "now holds" in line]
print(f"  {bugs[-1].strip() if bugs else 'no import summary'}")
EOF
