#!/usr/bin/env bash
# The nightly job on a real one-node Slurm (second tier: `scripts/test --full`, which installs
# Slurm and munge with `scripts/setup --with-slurm`). deploy/slurm/submit-night submits a 3-task
# array of short campaigns (`--shard auto` reads each task's SLURM_ARRAY_TASK_*) and the merge
# after it (--dependency=afterany); the merged corpus must hold the same bugs, with the same hit
# counts, as one unsharded run of the same cases. Then a second night starts from the first.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tool=$root/build/inductor-fuzz
work=$(mktemp -d /tmp/slurm-night-XXXXXX)
chmod 711 "$work" # munged wants every folder above its socket searchable
cluster=$work/cluster
fail() {
  echo "slurm night test: FAILED: $*" >&2
  exit 1
}
trap '"$root/tests/slurm/cluster" stop "$cluster"; rm -rf "$work"' EXIT
exports=$("$root/tests/slurm/cluster" start "$cluster")
eval "$exports"

# Fast create_block_mask cases, three of them made to fail: the segfaults of cases 1 and 4 are
# one bug in two tasks, the memory blow-up of case 5 another.
echo '{"weights": {"api": {"create_block_mask": 1, "create_mask": 0, "flex_attention": 0}}}' \
  >"$work/policy.json"
options="--cases 6 --policy $work/policy.json --matrix-every 0 --reduce none --no-feedback"
options+=" --inject-fault 1:segfault,4:segfault,5:allocate --worker-memory 4000 --case-timeout 300"

# wait_jobs IDS: until squeue lists none of them (30 minutes at most).
wait_jobs() {
  for _ in $(seq 1 900); do
    [[ -z $(squeue -h -j"$1") ]] && return
    sleep 2
  done
  fail "jobs $1 still queued after 30 minutes: $(squeue -j"$1")"
}

night() { # NIGHT: submit it, wait for it, check its logs
  local ids
  start=$SECONDS
  ids=$(FUZZ_OPTIONS=$options SBATCH_OPTIONS="--cpus-per-task=1 --mem=1G" \
    "$root/deploy/slurm/submit-night" "$work/state" 3 15m "$1" | tail -1)
  read -r shards merge <<<"$ids"
  wait_jobs "$shards,$merge"
  local logs=$work/state/nights/$1
  for task in 0 1 2; do
    grep -q "fuzz: --shard auto: $task/3 from the Slurm array (SLURM_ARRAY_TASK_ID=$task," \
      "$logs/inductor-fuzz-shard-${shards}_$task.log" ||
      fail "task $task did not take shard $task/3: $(cat "$logs/inductor-fuzz-shard-${shards}_$task.log")"
  done
  grep -q "nightly: night $1 merged" "$logs/inductor-fuzz-merge-$merge.log" ||
    fail "the merge did not finish: $(cat "$logs/inductor-fuzz-merge-$merge.log")"
  echo "slurm night test: night $1: 3 tasks and the merge in $((SECONDS - start)) s"
}

night 903
# shellcheck disable=SC2086 # options is a list of options
"$tool" fuzz --seed 903 $options --jobs 1 --corpus "$work/single" >"$work/single.log" 2>&1 ||
  (($? == 1)) || fail "the unsharded run failed: $(tail -5 "$work/single.log")"
bugs() { "$tool" corpus list --json --corpus "$1" | "$root/.venv/bin/python" -c '
import json, sys
print(sorted((bug["id"], bug["hit_count"]) for bug in json.load(sys.stdin)))'; }
merged=$(bugs "$work/state/nights/903/corpus")
single=$(bugs "$work/single")
[[ $merged == "$single" ]] || fail "the merge holds $merged, one run $single"
[[ $merged == *", 2)"* ]] || fail "no bug with the two segfault hits in $merged"
[[ $(bugs "$work/state/latest") == "$merged" ]] || fail "latest/ is not the merged corpus"
echo "slurm night test: merged = one run: $merged"

# Night 2 starts from night 1: the segfault bug is seen again, not new.
night 904
since=$("$root/.venv/bin/python" -c '
import json, sys
print(json.load(open(sys.argv[1]))["since"])' "$work/state/nights/904/report/summary.json")
[[ $since == *"'campaigns_before': ['seed-903-shard-0of3', 'seed-903-shard-1of3', 'seed-903-shard-2of3']"* ]] ||
  fail "night 2 did not start from night 1: $since"
[[ $since == *"'new_bugs': []"* ]] || fail "night 2 calls a bug of night 1 new: $since"
echo "slurm night test: night 2 against night 1: $since"
echo "slurm night test: passed"
