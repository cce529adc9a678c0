# Sourced by the inputs' interestingness scripts (bash). A precompiled header for the torch
# header a candidate includes on its first line, built once per compiler and flags and kept in
# ~/.cache/inductor-fuzz-bench-pch: parsing torch's headers is most of a test's cost (g++-12
# -fsyntax-only: 3.3 s without, 0.8 s with). The verdict is the same with and without: the
# header is used only where the candidate itself includes it first, and it has `#pragma once`.
#
# prefix_pch COMPILER FILE FLAGS...: sets the array prefix_pch_args to the flags that go before
# FLAGS (none when FILE does not start with such an #include or the header cannot be built).
# g++ finds `HEADER.gch` in an include folder searched before torch's; clang is given
# `-include-pch`.
prefix_pch() {
  local compiler=$1 file=$2
  shift 2
  prefix_pch_args=()
  local first
  IFS= read -r first <"$file" || [[ -n $first ]] || return 0
  [[ $first =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\<(torch/csrc/inductor/(cpp_prefix\.h|cpp_wrapper/cpu\.h))\>[[:space:]]*$ ]] ||
    return 0
  local header=${BASH_REMATCH[1]} source_header= flag
  for flag in "$@"; do
    if [[ $flag == -I* && -f ${flag#-I}/$header ]]; then
      source_header=${flag#-I}/$header
      break
    fi
  done
  [[ -n $source_header ]] || return 0
  local key dir
  key=$(printf '%s\n' "$compiler" "$source_header" "$(stat -c %Y "$source_header")" "$@" |
    sha256sum | cut -c1-16)
  dir=${XDG_CACHE_HOME:-$HOME/.cache}/inductor-fuzz-bench-pch/$key
  local pch args
  if [[ $compiler == *clang* ]]; then
    pch=$dir/prefix.pch
    args=(-include-pch "$pch")
  else
    pch=$dir/include/$header.gch
    args=(-I"$dir/include")
  fi
  if [[ ! -f $pch ]]; then
    # Built beside its final name and moved there: parallel tests never see half a file.
    mkdir -p "$(dirname "$pch")" || return 0
    local partial=$pch.$$.partial
    timeout 300 "$compiler" "$@" -x c++-header "$source_header" -o "$partial" >/dev/null 2>&1 &&
      mv -f "$partial" "$pch" || {
      rm -f "$partial"
      return 0
    }
  fi
  prefix_pch_args=("${args[@]}")
}
