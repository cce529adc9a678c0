#!/usr/bin/env bash
# Interestingness test for argorder_s1_1.cpp (see README.md): interesting (exit 0) when the TU
# builds with both g++-12 -O2 and clang++-19 -O2 (same flags), both programs exit 0 printing one
# "checksum N" line, each prints the same line again on a second run (no nondeterminism), and
# the two checksums differ; exit 1 otherwise. Run in a folder holding argorder_s1_1.cpp.
set -u
export LC_ALL=C
root=${INDUCTOR_FUZZ_ROOT:-/work/main} # the project's checkout (the bench sets it)
torch=$root/.venv/lib/python3.11/site-packages/torch
source "$root/bench/source_reduce_inputs/prefix_pch.sh"
flags=(
  -std=c++20 -fopenmp -march=native
  -D TORCH_INDUCTOR_CPP_WRAPPER -D STANDALONE_TORCH_HEADER -D C10_USING_CUSTOM_GENERATED_MACROS
  -DNDEBUG
  -I/usr/include/python3.11 -I"$torch/include" -I"$torch/include/torch/csrc/api/include"
)
flags+=(-O2 -ffp-contract=off)
libs=(-L"$torch/lib" "-Wl,-rpath,$torch/lib" -lc10 -lpython3.11)
# Clang needs an omp.h: Debian ships libomp's headers for one LLVM version only (as the
# project's own CMake does, point Clang at a folder holding just that omp.h).
omp_dir=${XDG_CACHE_HOME:-$HOME/.cache}/inductor-fuzz-bench-omp-include
if [[ ! -e $omp_dir/omp.h ]]; then
  omp_h=$(compgen -G '/usr/lib/llvm-*/lib/clang/*/include/omp.h' | head -n 1)
  [[ -n $omp_h ]] || exit 1
  mkdir -p "$omp_dir" && ln -sf "$omp_h" "$omp_dir/omp.h.$$" &&
    mv -f "$omp_dir/omp.h.$$" "$omp_dir/omp.h" || exit 1
fi
omp_lib=$(compgen -G '/usr/lib/llvm-*/lib/libomp.so' | head -n 1)
[[ -n $omp_lib ]] || exit 1
omp_lib=${omp_lib%/libomp.so}
prefix_pch g++-12 argorder_s1_1.cpp "${flags[@]}"
gcc_pch=("${prefix_pch_args[@]}")
timeout 120 g++-12 "${gcc_pch[@]}" "${flags[@]}" argorder_s1_1.cpp -o gcc.bin "${libs[@]}" >/dev/null 2>&1 || exit 1
prefix_pch clang++-19 argorder_s1_1.cpp "${flags[@]}" -isystem "$omp_dir"
clang_pch=("${prefix_pch_args[@]}")
timeout 120 clang++-19 "${clang_pch[@]}" "${flags[@]}" -isystem "$omp_dir" argorder_s1_1.cpp -o clang.bin \
  -L"$omp_lib" "-Wl,-rpath,$omp_lib" "${libs[@]}" >/dev/null 2>&1 || exit 1
gcc_out=$(timeout 10 ./gcc.bin 2>/dev/null) || exit 1
clang_out=$(timeout 10 ./clang.bin 2>/dev/null) || exit 1
[[ $gcc_out =~ ^checksum\ [0-9]+$ && $clang_out =~ ^checksum\ [0-9]+$ ]] || exit 1
[[ $gcc_out != "$clang_out" ]] || exit 1
[[ $(timeout 10 ./gcc.bin 2>/dev/null) == "$gcc_out" ]] || exit 1
[[ $(timeout 10 ./clang.bin 2>/dev/null) == "$clang_out" ]] || exit 1
exit 0
