# shellcheck shell=bash
# Sourced by the bench scripts that compare this checkout with an older commit: builds the tool
# and its worker at a commit once, from a worktree, into
# ~/.cache/inductor-fuzz/bench-revisions/<commit>/build (about 4 minutes on 2 cores), and sets
# REVISION_BUILD to that folder. $1 the commit (any name git knows), $2 the caller's name for
# its messages. Exits 2 when it is no commit or its build fails.
build_revision() {
  local before=$1 name=$2 commit revisions source_dir
  commit=$(git rev-parse --verify -q "$before^{commit}") ||
    { echo "$name: $before is not a commit of this repository" >&2; exit 2; }
  revisions=${XDG_CACHE_HOME:-$HOME/.cache}/inductor-fuzz/bench-revisions
  source_dir=$revisions/$commit
  REVISION_BUILD=$source_dir/build
  [[ -x $REVISION_BUILD/inductor-fuzz && -x $REVISION_BUILD/inductor-fuzz-worker ]] && return 0
  mkdir -p "$revisions"
  [[ -d $source_dir ]] || git worktree add --detach "$source_dir" "$commit" >/dev/null
  echo "$name: building ${commit:0:12} in $REVISION_BUILD" >&2
  if ! (cd "$source_dir" &&
    cmake -S . -B build -G Ninja -DPython3_EXECUTABLE=/usr/bin/python3.11 >/dev/null &&
    cmake --build build --target inductor-fuzz inductor-fuzz-worker -- -j"$(nproc)" \
      >build/bench-build.log 2>&1); then
    echo "$name: building $before failed; see $REVISION_BUILD/bench-build.log" >&2
    exit 2
  fi
}
