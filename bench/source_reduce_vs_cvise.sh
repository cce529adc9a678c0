#!/usr/bin/env bash
# Source reducer against C-Vise: reduces each input of bench/source_reduce_inputs/ (a folder NAME
# holding the TU NAME.cpp and its C-Vise-style interestingness script interesting.sh, see the
# README there) once with `inductor-fuzz reduce` and once with C-Vise (default passes), with the
# same script and the same number of parallel jobs, one tool after the other (or both at once,
# --concurrent), each in a fresh copy of the folder. Measures each tool's wall time, checks its
# final file is still interesting, and measures that file's size in bytes and in tokens (one
# tokenizer for both: identifiers, numbers, literals and punctuators; comments and whitespace
# skipped). Prints both side by side with the ratios ours / C-Vise. Goals: our final size in
# tokens no larger than C-Vise's, and our wall time at most 1/3 of C-Vise's, on every input.
# The scripts precompile the torch header a candidate starts with, once per compiler and flags
# (prefix_pch.sh, cached in ~/.cache/inductor-fuzz-bench-pch); the untouched input is tested
# before either tool starts, so both start with the same warm headers.
# Usage: bench/source_reduce_vs_cvise.sh [--jobs J] [--only NAME[,NAME...]] [--timeout SECONDS]
#   [--concurrent]
#   (default 2 jobs, every input, 3600 s per tool and input). --concurrent runs both tools on an
#   input at the same time instead of one after the other (it needs 2*J cores; each tool then
#   shares the machine's load with the other for as long as both run).
#   Builds nothing: INDUCTOR_FUZZ picks the binary (default build/inductor-fuzz), CVISE C-Vise
#   (default cvise), OUT the results folder (default /tmp/source-reduce-bench): results.json, and
#   per input both final files and both tools' logs. Ours runs with a copy of
#   reducers/source/passes.json taken at the start.
# A tool stopped by the timeout counts with its best file so far (C-Vise keeps it in place; ours
# must have written OUTDIR/reduced.cpp). Exit 0 when both goals hold, 1 when not, 2 when a run
# failed (a tool's error, a final file missing or no longer interesting, an input not interesting
# to begin with).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: bench/source_reduce_vs_cvise.sh [--jobs J] [--only NAME[,NAME...]] [--timeout SECONDS] [--concurrent]" >&2
  exit 2
}
jobs=2
only=
tool_timeout=3600
concurrent=false
while (($#)); do
  case $1 in
    --jobs) (($# >= 2)) || usage; jobs=$2; shift 2 ;;
    --only) (($# >= 2)) || usage; only=$2; shift 2 ;;
    --timeout) (($# >= 2)) || usage; tool_timeout=$2; shift 2 ;;
    --concurrent) concurrent=true; shift ;;
    -h | --help) usage ;;
    *) usage ;;
  esac
done
[[ $jobs =~ ^[1-9][0-9]*$ && $tool_timeout =~ ^[1-9][0-9]*$ ]] || usage

inputs_dir=bench/source_reduce_inputs
binary=${INDUCTOR_FUZZ:-build/inductor-fuzz}
cvise=${CVISE:-cvise}
out=${OUT:-/tmp/source-reduce-bench}
[[ -x $binary ]] || {
  echo "source_reduce_vs_cvise: $binary is missing (build it first)" >&2
  exit 2
}
command -v "$cvise" >/dev/null || { echo "source_reduce_vs_cvise: $cvise is missing" >&2; exit 2; }
binary=$(realpath "$binary")
# The inputs' scripts find torch and prefix_pch.sh through it.
export INDUCTOR_FUZZ_ROOT=$PWD
cvise=$(command -v "$cvise")

torch_dir=$PWD/.venv/lib/python3.11/site-packages/torch
# An input's compile flags: its script's `flags=(...)` block, the CPU capability included (Clang
# parses the TU with them: without its -D CPU_CAPABILITY_*, at::vec is missing).
input_flags() {
  local torch=$torch_dir flags=()
  eval "$(sed -n '/^flags=(/,/^)/p' "$inputs_dir/$1/interesting.sh")"
  printf '%s\n' "${flags[@]}"
}

names=()
for dir in "$inputs_dir"/*/; do
  name=$(basename "$dir")
  [[ -z $only || ",$only," == *",$name,"* ]] || continue
  [[ -f $dir/$name.cpp && -x $dir/interesting.sh ]] || {
    echo "source_reduce_vs_cvise: $dir lacks $name.cpp or an executable interesting.sh" >&2
    exit 2
  }
  names+=("$name")
done
((${#names[@]})) || { echo "source_reduce_vs_cvise: no input named '$only'" >&2; exit 2; }

mkdir -p "$out"
work=$(mktemp -d /tmp/inductor-fuzz-reduce-bench-XXXXXX)
# The binary reads the pass order from the checkout: a copy taken now keeps a long run on the
# order it started with, whatever the checkout becomes meanwhile.
cp reducers/source/passes.json "$work/source-passes.json"
trap 'rm -rf "$work"' EXIT
rows=$work/rows.tsv
: >"$rows"

now() { date +%s.%N; }
seconds_between() { python3 -c "print(f'{$2 - $1:.2f}')"; }

# Bytes and tokens of a file, as "BYTES TOKENS".
measure() {
  python3 - "$1" <<'EOF'
import re, sys
data = open(sys.argv[1], 'rb').read()
text = data.decode('utf-8', 'replace')
token = re.compile(r'''
    (?P<skip> \s+ | \\\n | //[^\n]* | /\*.*?\*/ )
  | (?:u8|u|U|L)?R"(?P<delim>[^()\\\s]{0,16})\(.*?\)(?P=delim)"    # raw string
  | (?:u8|u|U|L)?"(?:\\.|[^"\\\n])*"                                  # string
  | (?:u8|u|U|L)?'(?:\\.|[^'\\\n])+'                                  # character
  | \.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.]|'(?=[0-9A-Za-z]))*          # pp-number
  | [A-Za-z_$][A-Za-z0-9_$]*                                          # identifier
  | <=> | >>= | <<= | ->\* | \.\.\.
  | :: | -> | \+\+ | -- | << | >> | <= | >= | == | != | && | \|\| | \.\*
  | \+= | -= | \*= | /= | %= | &= | \|= | \^= | \#\#
  | .                                                                 # any other character
''', re.VERBOSE | re.DOTALL)
count = sum(1 for m in token.finditer(text) if m.group('skip') is None)
print(len(data), count)
EOF
}

# Runs NAME's interesting.sh on FILE in a fresh folder; prints its wall time, returns its status.
check_interesting() {
  local name=$1 file=$2 dir start end code=0
  dir=$(mktemp -d "$work/check-XXXXXX")
  cp "$inputs_dir/$name/interesting.sh" "$dir/"
  cp "$file" "$dir/$name.cpp"
  start=$(now)
  (cd "$dir" && ./interesting.sh) >/dev/null 2>&1 </dev/null || code=$?
  end=$(now)
  rm -rf "$dir"
  seconds_between "$start" "$end"
  return "$code"
}

# Runs one tool on a fresh copy of NAME's folder; sets tool_status, tool_seconds, tool_bytes and
# tool_tokens, and keeps the final file and the log as $out/NAME/TOOL.cpp and TOOL.log.
run_tool() {
  local tool=$1 name=$2 dir final start end code=0
  dir=$work/$name-$tool
  rm -rf "$dir"
  cp -r "$inputs_dir/$name" "$dir"
  local log=$out/$name/$tool.log
  # Scratch files of the tool and of the scripts it runs (C-Vise leaves its own behind when
  # stopped) stay in the work folder.
  local tmp=$work/$name-$tool.tmp
  mkdir -p "$tmp"
  start=$(now)
  if [[ $tool == ours ]]; then
    final=$work/$name-ours-out/reduced.cpp
    rm -rf "$work/$name-ours-out"
    # Ours also gets the TU's compile command, which the pipeline always knows: its Clang parses
    # with the real headers. The interestingness script alone decides what is kept.
    local tu_flags
    mapfile -t tu_flags < <(input_flags "$name")
    (cd "$dir" && TMPDIR=$tmp timeout -k 30 "$tool_timeout" "$binary" reduce --cpp "$name.cpp" \
      --interesting ./interesting.sh --jobs "$jobs" --out "$work/$name-ours-out" \
      --source-passes "$work/source-passes.json" \
      -- g++-12 "${tu_flags[@]}" -c "$name.cpp") >"$log" 2>&1 </dev/null || code=$?
  else
    # C-Vise reduces the file in place, keeping the best variant so far on a timeout too.
    final=$dir/$name.cpp
    (cd "$dir" && TMPDIR=$tmp timeout -k 30 "$tool_timeout" "$cvise" --n "$jobs" --timeout 300 \
      --tidy "$dir/interesting.sh" "$name.cpp") >"$log" 2>&1 </dev/null || code=$?
  fi
  end=$(now)
  tool_seconds=$(seconds_between "$start" "$end")
  tool_bytes=-1
  tool_tokens=-1
  case $code in
    0) tool_status=ok ;;
    124 | 137) tool_status=timeout ;;
    *) tool_status="exit-$code" ;;
  esac
  if [[ ! -f $final ]]; then
    tool_status=$tool_status,no-output
    return
  fi
  cp "$final" "$out/$name/$tool.cpp"
  read -r tool_bytes tool_tokens < <(measure "$final")
  if ! check_interesting "$name" "$final" >/dev/null; then
    tool_status=$tool_status,not-interesting
  fi
}

at_once=
$concurrent && at_once=", both tools at once"
echo "source reducer vs C-Vise: ${#names[@]} inputs, --jobs $jobs, ${tool_timeout} s per tool$at_once"
echo "ours: $binary reduce; C-Vise: $cvise ($("$cvise" --version 2>&1 | head -n 1))"
for name in "${names[@]}"; do
  mkdir -p "$out/$name"
  rm -f "$out/$name"/{ours,cvise}.{cpp,log}
  read -r orig_bytes orig_tokens < <(measure "$inputs_dir/$name/$name.cpp")
  if ! test_seconds=$(check_interesting "$name" "$inputs_dir/$name/$name.cpp"); then
    echo "$name: the original is not interesting to its own script: skipped" >&2
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$orig_bytes" "$orig_tokens" "$test_seconds" \
      "original-not-interesting" >>"$rows"
    continue
  fi
  echo "$name: $orig_bytes bytes, $orig_tokens tokens, interesting.sh takes $test_seconds s"
  fields=()
  for tool in ours cvise; do
    if $concurrent; then
      (
        run_tool "$tool" "$name"
        echo "$tool_status $tool_bytes $tool_tokens $tool_seconds" >"$work/$name-$tool.result"
      ) &
    else
      run_tool "$tool" "$name"
      echo "$tool_status $tool_bytes $tool_tokens $tool_seconds" >"$work/$name-$tool.result"
    fi
  done
  wait
  for tool in ours cvise; do
    read -r tool_status tool_bytes tool_tokens tool_seconds <"$work/$name-$tool.result"
    echo "  $tool: $tool_status, $tool_bytes bytes, $tool_tokens tokens, $tool_seconds s"
    fields+=("$tool_status" "$tool_bytes" "$tool_tokens" "$tool_seconds")
  done
  printf '%s\t%s\t%s\t%s\tok\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$orig_bytes" \
    "$orig_tokens" "$test_seconds" "${fields[@]}" >>"$rows"
done

python3 - "$rows" "$out/results.json" "$jobs" "$tool_timeout" "$binary" "$cvise" "$concurrent" <<'EOF'
import json, math, sys
rows_path, json_path, jobs, timeout, binary, cvise, concurrent = sys.argv[1:]
results, failed = [], False
for line in open(rows_path):
    f = line.rstrip('\n').split('\t')
    row = {'input': f[0], 'original': {'bytes': int(f[1]), 'tokens': int(f[2])},
           'interesting_seconds': float(f[3]), 'status': f[4]}
    if f[4] == 'ok':
        for tool, at in (('ours', 5), ('cvise', 9)):
            row[tool] = {'status': f[at], 'bytes': int(f[at + 1]), 'tokens': int(f[at + 2]),
                         'seconds': float(f[at + 3])}
        o, c = row['ours'], row['cvise']
        usable = o['tokens'] >= 0 and c['tokens'] >= 0
        row['size_ratio_tokens'] = (o['tokens'] / c['tokens'] if c['tokens'] > 0 else
                                    (1.0 if o['tokens'] == 0 else math.inf)) if usable else None
        row['time_ratio'] = o['seconds'] / c['seconds'] if c['seconds'] > 0 else None
        # A timeout is a result (its best file so far is measured); anything else is a failure.
        if o['status'] not in ('ok', 'timeout') or c['status'] not in ('ok', 'timeout'):
            failed = True
    else:
        failed = True
    results.append(row)

def cell(tool_row):
    if tool_row is None:
        return '-'
    text = f"{tool_row['bytes']}/{tool_row['tokens']}/{tool_row['seconds']:.0f}s"
    return text if tool_row['status'] == 'ok' else f"{text} ({tool_row['status']})"

def ratio(value):
    return '-' if value is None else f'{value:.2f}'

header = ('input', 'original B/tok', 'ours B/tok/s', 'C-Vise B/tok/s', 'tok ours/C-Vise',
          'time ours/C-Vise')
table = [header] + [(r['input'], f"{r['original']['bytes']}/{r['original']['tokens']}",
                     cell(r.get('ours')), cell(r.get('cvise')),
                     ratio(r.get('size_ratio_tokens')), ratio(r.get('time_ratio')))
                    for r in results]
widths = [max(len(row[i]) for row in table) for i in range(len(header))]
print()
for i, row in enumerate(table):
    print(' | '.join(value.ljust(width) for value, width in zip(row, widths)).rstrip())
    if i == 0:
        print('-+-'.join('-' * width for width in widths))

compared = [r for r in results if r['status'] == 'ok']
def geomean(values):
    values = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None
def total(tool, key):
    return sum(r[tool][key] for r in compared if r[tool][key] >= 0)
summary = {
    'inputs': len(results),
    'ours_tokens': total('ours', 'tokens'), 'cvise_tokens': total('cvise', 'tokens'),
    'ours_seconds': total('ours', 'seconds'), 'cvise_seconds': total('cvise', 'seconds'),
    'geomean_size_ratio_tokens': geomean([r['size_ratio_tokens'] for r in compared]),
    'geomean_time_ratio': geomean([r['time_ratio'] for r in compared]),
}
size_ok = bool(compared) and all(
    r['size_ratio_tokens'] is not None and r['ours']['tokens'] <= r['cvise']['tokens']
    for r in compared)
time_ok = bool(compared) and all(
    r['time_ratio'] is not None and r['time_ratio'] <= 1 / 3 for r in compared)
summary['total_time_ratio'] = (summary['ours_seconds'] / summary['cvise_seconds']
                               if summary['cvise_seconds'] > 0 else None)
summary.update(size_goal_met=size_ok, time_goal_met=time_ok, run_failed=failed)
print()
print(f"total tokens ours {summary['ours_tokens']} / C-Vise {summary['cvise_tokens']}; "
      f"total time ours {summary['ours_seconds']:.0f} s / C-Vise {summary['cvise_seconds']:.0f} s "
      f"({ratio(summary['total_time_ratio'])}); "
      f"geomean ratios: tokens {ratio(summary['geomean_size_ratio_tokens'])}, "
      f"time {ratio(summary['geomean_time_ratio'])}")
print(f"goal size (ours tokens <= C-Vise's on every input): {'PASS' if size_ok else 'FAIL'}; "
      f"goal time (ours <= 1/3 of C-Vise's on every input): {'PASS' if time_ok else 'FAIL'}"
      f"{'; a run FAILED' if failed else ''}")
with open(json_path, 'w') as out:
    json.dump({'jobs': int(jobs), 'timeout_seconds': int(timeout),
               'tools_at_once': concurrent == 'true', 'inductor_fuzz': binary,
               'cvise': cvise, 'cvise_invocation': f'cvise --n {jobs} --timeout 300 --tidy '
               'DIR/interesting.sh NAME.cpp', 'results': results, 'summary': summary}, out,
              indent=2)
print(f'results: {json_path}')
sys.exit(2 if failed else 0 if size_ok and time_ok else 1)
EOF
