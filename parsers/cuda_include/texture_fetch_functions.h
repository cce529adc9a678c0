// Written for inductor-fuzz; not a CUDA header. Clang 19's CUDA wrapper
// (__clang_cuda_runtime_wrapper.h) includes texture_fetch_functions.h, which CUDA 13 no longer
// ships. Clang's analysis of a .cu file finds this empty one after every real include folder
// (-idirafter), so it stands in only where the CUDA installation has none. Texture objects
// (tex1Dfetch<T>(cudaTextureObject_t, ...)) are still declared: by texture_indirect_functions.h
// and Clang's own texture intrinsics.
#pragma once
