#!/bin/sh
# The C++ pattern alone, without torch: g++ rejects an always_inline extern function called in
# the shared object that defines it (interposable under -fPIC); clang++ builds it.
cd "$(dirname "$0")"
for cxx in g++-12 clang++-19; do
  if $cxx -O3 -shared -fPIC always_inline.cpp -o /dev/null; then echo "$cxx: builds"; else echo "$cxx: rejects"; fi
done
