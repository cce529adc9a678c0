#!/usr/bin/env bash
# Interestingness test for redecl_s1_10.cpp (see README.md): interesting (exit 0) when
# g++-12 reports that `tmp24` is declared twice in one scope ("conflicting declaration
# 'auto tmp24'" or "redeclaration of 'T tmp24'"); exit 1 otherwise. Run in a folder
# holding redecl_s1_10.cpp.
set -u
export LC_ALL=C # ASCII quotes in g++'s messages
root=${INDUCTOR_FUZZ_ROOT:-/work/main} # the project's checkout (the bench sets it)
torch=$root/.venv/lib/python3.11/site-packages/torch
source "$root/bench/source_reduce_inputs/prefix_pch.sh"
flags=(
  -std=c++20 -fopenmp -march=native
  -D TORCH_INDUCTOR_CPP_WRAPPER -D STANDALONE_TORCH_HEADER -D C10_USING_CUSTOM_GENERATED_MACROS
  -DNDEBUG
  -D CPU_CAPABILITY_AVX512 -mavx512f -mavx512dq -mavx512vl -mavx512bw -mfma -mavx512vnni
  -I/usr/include/python3.11 -I"$torch/include" -I"$torch/include/torch/csrc/api/include"
)
prefix_pch g++-12 redecl_s1_10.cpp "${flags[@]}"
gcc_pch=("${prefix_pch_args[@]}")
out=$(timeout 120 g++-12 -fsyntax-only "${gcc_pch[@]}" "${flags[@]}" redecl_s1_10.cpp 2>&1)
grep -Eq "error: (conflicting declaration|redeclaration of) '([^']* )?tmp24'" <<<"$out" || exit 1
exit 0
