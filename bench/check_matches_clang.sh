#!/usr/bin/env bash
# Whether `check` sees exactly the Clang errors a plain `clang++-19 -fsyntax-only` reports, on the
# TUs of N generated cases (default 50, from seed 1): the precompiled prefix must change no
# diagnostic. Each case goes through `run-case` (a failing or invalid case is fine: its captured
# TUs count; a case that captured none is skipped). For every captured TU the set of
# (file, line, column, message) of Clang's errors is compared: `check --format json --commands`
# against plain clang++-19 with the TU's own flags, translated as check translates them
# (build/bench_plain_clang_command).
# Usage: bench/check_matches_clang.sh [N] [SEED]
#   INDUCTOR_FUZZ_BUILD=DIR: the build folder (default build); OUT=DIR keeps every output there.
# Exit 0: every TU agrees; 1: a TU differs; 2: nothing to compare or a tool is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-50}
seed=${2:-1}
build=${INDUCTOR_FUZZ_BUILD:-build}
for tool in inductor-fuzz inductor-fuzz-worker bench_plain_clang_command; do
  if [[ ! -x $build/$tool ]]; then
    echo "check_matches_clang: $build/$tool is missing; cmake --build $build --target $tool" >&2
    exit 2
  fi
done
if [[ -n ${OUT:-} ]]; then
  work=$(mkdir -p "$OUT" && cd "$OUT" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
results="$work/results.jsonl" # one line per compared TU
: >"$results"
"$build/inductor-fuzz" gen --seed "$seed" --count "$count" >"$work/cases.jsonl"

# Compares one TU: check's JSON against plain Clang's text; appends a line to results.jsonl.
compare() {
  python3 - "$@" <<'PY'
import json, os, re, sys

label, source, check_json, check_stderr, clang_text, results = sys.argv[1:]
line_re = re.compile(r"^(.+?):(\d+):(\d+): (error|fatal error|warning): (.*)$")

def key(file, line, column, severity, message):
    return (os.path.realpath(file), int(line), int(column), severity, message.strip())

clang, clang_warnings = set(), set()
with open(clang_text, errors="replace") as text:
    for line in text:
        m = line_re.match(line.rstrip("\n"))
        if m:
            k = key(m[1], m[2], m[3], "fatal error" if m[4] == "fatal error" else "error", m[5])
            (clang_warnings if m[4] == "warning" else clang).add(k)

check, problem = set(), None
try:
    with open(check_json) as f:
        document = json.load(f)
    for finding in document["findings"]:
        if finding["severity"] != "error" or finding["reported_by"] != "clang":
            continue
        if not finding["clang_diagnostic"]:
            continue  # the tool's own cross-TU comparison, not a Clang diagnostic
        where = finding["location"]
        k = key(where["file"], where["line"], where["column"], "error", finding["message"])
        # A diagnostic Clang only warns about that a check reports at error level on purpose
        # (a macro redefined differently) is what Clang saw too.
        if not finding["clang_diagnostic"].startswith("err_") and any(
            w[:3] == k[:3] and w[4] == k[4] for w in clang_warnings
        ):
            continue
        check.add(k)
    for unit in document["files"]:
        for fatal in unit["fatal_errors"]:
            m = re.match(r"^(.*?):(\d+):(\d+): (.*)$", fatal)
            if m:
                check.add(key(m[1], m[2], m[3], "fatal error", m[4]))
            else:
                check.add(("", 0, 0, "fatal error", fatal))
except (OSError, ValueError, KeyError, TypeError) as error:
    with open(check_stderr, errors="replace") as f:
        problem = "check gave no JSON report (%s): %s" % (error, f.read().strip()[:500])

def show(k):
    file = k[0]
    if file == os.path.realpath(source):
        file = os.path.basename(file)
    return "%s:%d:%d: %s: %s" % (file, k[1], k[2], k[3], k[4])

record = {
    "case": label,
    "tu": os.path.basename(source),
    "clang_errors": len(clang),
    "check_errors": len(check),
    "only_check": sorted(show(k) for k in check - clang),
    "only_clang": sorted(show(k) for k in clang - check),
    "problem": problem,
}
record["equal"] = problem is None and not record["only_check"] and not record["only_clang"]
with open(results, "a") as out:
    out.write(json.dumps(record) + "\n")
print("    %s: %s (%d Clang error(s))" % (record["tu"], "equal" if record["equal"] else "DIFFERENT",
                                        len(clang)))
PY
}

cases=0
skipped=0
i=0
while IFS= read -r line <&3; do
  label="case $i"
  dir="$work/case-$i"
  mkdir -p "$dir"
  printf '%s\n' "$line" >"$dir/case.json"
  set +e
  "$build/inductor-fuzz" run-case "$dir/case.json" --out "$dir/out" --timeout 300 \
    >"$dir/run-case.log" 2>&1
  code=$?
  set -e
  cases=$((cases + 1))
  name=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$dir/case.json")
  status=$(grep -m1 'result:' "$dir/run-case.log" | sed 's/^ *result: //' || true)
  label="$label ($name)"
  commands="$dir/out/commands.json"
  tus=0
  if [[ -f $commands ]]; then
    "$build/bench_plain_clang_command" "$commands" >"$dir/plain.jsonl"
    tus=$(wc -l <"$dir/plain.jsonl")
  fi
  printf 'case %2d %-8s run-case exit %d, %s; %d TU(s)\n' "$i" "$name" "$code" \
    "${status:-no result}" "$tus"
  if ((tus == 0)); then
    skipped=$((skipped + 1))
  else
    t=0
    while IFS= read -r plain <&4; do
      source=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["source"])' "$plain")
      set +e
      "$build/inductor-fuzz" check --format json --commands "$commands" \
        --cache-dir "$work/prefixes" "$source" >"$dir/check-$t.json" 2>"$dir/check-$t.err"
      python3 -c 'import json,subprocess,sys; sys.exit(subprocess.run(json.loads(sys.argv[1])["argv"]).returncode)' \
        "$plain" >"$dir/clang-$t.txt" 2>&1
      set -e
      compare "$label" "$source" "$dir/check-$t.json" "$dir/check-$t.err" "$dir/clang-$t.txt" \
        "$results"
      t=$((t + 1))
    done 4<"$dir/plain.jsonl"
  fi
  if [[ -z ${OUT:-} ]]; then
    rm -rf "$dir/out"
  fi
  i=$((i + 1))
done 3<"$work/cases.jsonl"

python3 - "$results" "$cases" "$skipped" <<'PY'
import json, sys

results, cases, skipped = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
records = [json.loads(line) for line in open(results)]
equal = sum(r["equal"] for r in records)
print("cases run: %d (%d captured no TU and were skipped)" % (cases, skipped))
print("TUs compared: %d; TUs where check and clang++-19 see the same errors: %d; "
      "Clang errors in all: %d" % (len(records), equal, sum(r["clang_errors"] for r in records)))
for r in records:
    if r["equal"]:
        continue
    print("difference in %s, %s:" % (r["case"], r["tu"]))
    if r["problem"]:
        print("  " + r["problem"])
    for d in r["only_check"]:
        print("  only check:     " + d)
    for d in r["only_clang"]:
        print("  only clang++-19: " + d)
sys.exit(2 if not records else 0 if equal == len(records) else 1)
PY
