#!/usr/bin/env bash
# Interestingness test for gcc_constexpr_causal_1.cpp (see README.md): interesting (exit 0) when
# clang++-19 rejects the TU with "constexpr variable 'tmp25' must be initialized by a
# constant expression" while g++-12 accepts it (gcc folds std::exp in constant expressions
# as an extension); exit 1 otherwise. Both get the same flags. Run in a folder holding
# gcc_constexpr_causal_1.cpp.
set -u
export LC_ALL=C
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
# Clang needs an omp.h: Debian ships libomp's headers for one LLVM version only (as the
# project's own CMake does, point Clang at a folder holding just that omp.h).
omp_dir=${XDG_CACHE_HOME:-$HOME/.cache}/inductor-fuzz-bench-omp-include
if [[ ! -e $omp_dir/omp.h ]]; then
  omp_h=$(compgen -G '/usr/lib/llvm-*/lib/clang/*/include/omp.h' | head -n 1)
  [[ -n $omp_h ]] || exit 1
  mkdir -p "$omp_dir" && ln -sf "$omp_h" "$omp_dir/omp.h.$$" &&
    mv -f "$omp_dir/omp.h.$$" "$omp_dir/omp.h" || exit 1
fi
prefix_pch clang++-19 gcc_constexpr_causal_1.cpp "${flags[@]}" -isystem "$omp_dir"
clang_pch=("${prefix_pch_args[@]}")
clang_out=$(timeout 120 clang++-19 -fsyntax-only "${clang_pch[@]}" "${flags[@]}" -isystem "$omp_dir" \
  gcc_constexpr_causal_1.cpp 2>&1) && exit 1
grep -Fq "error: constexpr variable 'tmp25' must be initialized by a constant expression" \
  <<<"$clang_out" || exit 1
prefix_pch g++-12 gcc_constexpr_causal_1.cpp "${flags[@]}"
gcc_pch=("${prefix_pch_args[@]}")
timeout 120 g++-12 -fsyntax-only "${gcc_pch[@]}" "${flags[@]}" gcc_constexpr_causal_1.cpp >/dev/null 2>&1 || exit 1
exit 0
