#include <torch/csrc/inductor/cpp_wrapper/cpu.h>
extern "C"
void cpp_fused_flex_attention_0(const at::BFloat16* query, const at::BFloat16* key, const at::BFloat16* value, const int32_t* kv_num_blocks, const int32_t* kv_indices, const int32_t* full_kv_num_blocks, const int32_t* full_kv_indices, at::BFloat16* output);
CACHE_TORCH_DTYPE(bfloat16);
CACHE_TORCH_DEVICE(cpu);

void inductor_entry_impl(
    AtenTensorHandle*
        input_handles, // array of input AtenTensorHandle; handles
                        // are stolen; the array itself is borrowed
    AtenTensorHandle*
        output_handles  // array for writing output AtenTensorHandle; handles
                        // will be stolen by the caller; the array itself is
                        // borrowed)
) {
    py::gil_scoped_release_simple release;
    auto inputs = steal_from_raw_handles_to_raii_handles(input_handles, 11);
    auto arg0_1 = std::move(inputs[0]);
    auto arg1_1 = std::move(inputs[1]);
    auto arg2_1 = std::move(inputs[2]);
    auto arg3_1 = std::move(inputs[3]);
    auto arg4_1 = std::move(inputs[4]);
    auto arg5_1 = std::move(inputs[5]);
    auto arg6_1 = std::move(inputs[6]);
    auto arg7_1 = std::move(inputs[7]);
    auto arg8_1 = std::move(inputs[8]);
    auto arg9_1 = std::move(inputs[9]);
    auto arg10_1 = std::move(inputs[10]);
    assert_size_stride(arg0_1, {1L, 8L, 256L, 32L}, {65536L, 8192L, 32L, 1L}, "input");
    assert_size_stride(arg1_1, {1L, 2L, 256L, 32L}, {16384L, 8192L, 32L, 1L}, "input");
    assert_size_stride(arg2_1, {1L, 2L, 256L, 32L}, {16384L, 8192L, 32L, 1L}, "input");
    assert_size_stride(arg4_1, {1L, 8L, 2L}, {16L, 2L, 1L}, "input");
    assert_size_stride(arg3_1, {1L, 8L, 2L, 2L}, {32L, 4L, 2L, 1L}, "input");
    assert_size_stride(arg5_1, {1L, 8L, 2L}, {16L, 2L, 1L}, "input");
    assert_size_stride(arg6_1, {1L, 8L, 2L, 2L}, {32L, 4L, 2L, 1L}, "input");
    static constexpr int64_t int_array_0[] = {1L, 8L, 256L, 32L};
    static constexpr int64_t int_array_1[] = {65536L, 8192L, 32L, 1L};
    AtenTensorHandle buf2_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(4, int_array_0, int_array_1, cached_torch_dtype_bfloat16, cached_torch_device_type_cpu,  0, &buf2_handle));
    RAIIAtenTensorHandle buf2(buf2_handle);
    cpp_fused_flex_attention_0((const at::BFloat16*)(arg0_1.data_ptr()), (const at::BFloat16*)(arg1_1.data_ptr()), (const at::BFloat16*)(arg2_1.data_ptr()), (const int32_t*)(arg4_1.data_ptr()), (const int32_t*)(arg3_1.data_ptr()), (const int32_t*)(arg5_1.data_ptr()), (const int32_t*)(arg6_1.data_ptr()), (at::BFloat16*)(buf2.data_ptr()));
    arg0_1.reset();
    arg1_1.reset();
    arg2_1.reset();
    arg3_1.reset();
    arg4_1.reset();
    arg5_1.reset();
    arg6_1.reset();
    output_handles[0] = buf2.release();
} // inductor_entry_impl

#include <torch/csrc/inductor/cpp_prefix.h>
#include <c10/util/Unroll.h>
#include <torch/csrc/inductor/aoti_torch/c/shim.h>

#include <ATen/native/cpu/utils.h>
#include <ATen/native/CPUBlas.h>
#include <ATen/Context.h>
#include <ATen/cpu/Utils.h>



template <int64_t BLOCK_M, int64_t BLOCK_N, bool accum, bool prefetch=false>
inline void cpp_fused_flex_attention_0_kernel_micro_gemm_kernel(
    const at::BFloat16* __restrict__ A,
    const at::BFloat16* __restrict__ B,
    float* __restrict__ C,
    int64_t K,
    int64_t lda,
    int64_t ldb,
    int64_t ldc
) {
    using Vectorized = at::vec::Vectorized<float>;
    using VectorizedIn = at::vec::Vectorized<at::BFloat16>;
    constexpr auto VLEN = Vectorized::size();
    constexpr auto ROWS = BLOCK_M;
    constexpr auto COLS = BLOCK_N / VLEN;

    Vectorized va;
    at::vec::VectorizedN<float, COLS> vb;
    at::vec::VectorizedN<float, ROWS*COLS> vc;
    auto loadc = [&](auto i) {
        if constexpr (accum) {
            constexpr int row = i / COLS;
            constexpr int col = i % COLS;
            vc[i] = Vectorized::loadu(C + row * ldc + col * VLEN);
        } else {
            vc[i] = Vectorized(0.0f);
        }
    };
    c10::ForcedUnroll<ROWS * COLS>{}(loadc);

    auto compute = [&, COLS](auto i, int k) {
        constexpr int row = i / COLS;
        constexpr int col = i % COLS;
        if constexpr (col == 0) {
            va = Vectorized(static_cast<float>(A[row * lda + k]));
        }

        if constexpr (row == 0) {
            auto b = VectorizedIn::loadu(B + k * ldb + col * VLEN, VLEN);
            vb[col] = at::vec::convert<float>(b);

        }

        constexpr int idx = row * COLS + col;
        vc[idx] = at::vec::fmadd(va, vb[col], vc[idx]);
    };

    for (int k = 0; k < K; ++k) {
        c10::ForcedUnroll<ROWS * COLS>{}(compute, k);
    }

    // store to C
    auto storec = [&](auto i) {
        constexpr int row = i / COLS;
        constexpr int col = i % COLS;
        vc[i].store(C + row * ldc + col * VLEN);
    };
    c10::ForcedUnroll<ROWS * COLS>{}(storec);
}

template <int64_t BLOCK_M, int64_t BLOCK_N, bool accum, bool prefetch=false>
inline void cpp_fused_flex_attention_0_kernel_micro_gemm_ntail_kernel(
    const at::BFloat16* __restrict__ A,
    const at::BFloat16* __restrict__ B,
    float* __restrict__ C,
    int64_t N,
    int64_t K,
    int64_t lda,
    int64_t ldb,
    int64_t ldc
) {
    using Vectorized = at::vec::Vectorized<float>;
    using VectorizedIn = at::vec::Vectorized<at::BFloat16>;
    constexpr auto VLEN = Vectorized::size();
    constexpr auto ROWS = BLOCK_M;
    constexpr auto COLS = BLOCK_N / VLEN;

    Vectorized va;
    at::vec::VectorizedN<float, COLS> vb;
    at::vec::VectorizedN<float, ROWS*COLS> vc;
    int64_t rCOLS = (N + VLEN - 1) / VLEN;
    int ntail = N % VLEN;
    auto loadc = [&](auto i) {
        if constexpr (accum) {
            constexpr int row = i / COLS;
            constexpr int col = i % COLS;
            int load_size = (col == rCOLS - 1 && ntail != 0) ? ntail : VLEN;
            if (col < rCOLS) {
                vc[i] = Vectorized::loadu(C + row * ldc + col * VLEN, load_size);
            }
        } else {
            vc[i] = Vectorized(0.0f);
        }
    };
    c10::ForcedUnroll<ROWS * COLS>{}(loadc);

    auto compute = [&, COLS](auto i, int k) {
        constexpr int row = i / COLS;
        constexpr int col = i % COLS;
        int load_size = (col == rCOLS - 1 && ntail != 0) ? ntail : VLEN;
        if constexpr (col == 0) {
            va = Vectorized(static_cast<float>(A[row * lda + k]));
        }

        if constexpr (row == 0) {
            if (col < rCOLS) {
                auto b = VectorizedIn::loadu(B + k * ldb + col * VLEN, load_size);
                vb[col] = at::vec::convert<float>(b);
            } else {
                vb[col] = Vectorized(0.0f);
            }

        }

        constexpr int idx = row * COLS + col;
        if (col < rCOLS) {
            vc[idx] = at::vec::fmadd(va, vb[col], vc[idx]);
        }
    };

    for (int k = 0; k < K; ++k) {
        c10::ForcedUnroll<ROWS * COLS>{}(compute, k);
    }

    // store to C
    auto storec = [&](auto i) {
        constexpr int row = i / COLS;
        constexpr int col = i % COLS;
        int store_size = (col == rCOLS - 1 && ntail != 0) ? ntail : VLEN;
        if (col < rCOLS) {
            vc[i].store(C + row * ldc + col * VLEN, store_size);
        }
    };
    c10::ForcedUnroll<ROWS * COLS>{}(storec);
}

template <bool accum, bool prefetch=false>
inline void cpp_fused_flex_attention_0_kernel_micro_gemm(
    const at::BFloat16* __restrict__ A,
    const at::BFloat16* __restrict__ B,
    float* __restrict__ C,
    int64_t M,
    int64_t N,
    int64_t K,
    int64_t lda,
    int64_t ldb,
    int64_t ldc
) {
    using Vectorized = at::vec::Vectorized<float>;
    constexpr auto VLEN = Vectorized::size();
    TORCH_CHECK(16 % VLEN == 0, "block_n dimension must be multiple of Vector size");
    TORCH_CHECK(K % 1 == 0, "K dimension must be multiple of 1");
    // TODO(jgong5): loop unroll for M and N
    for (int64_t m = 0; m < M; m += 1) {
        int64_t block_m = std::min<int64_t>(M - m, 1);
        for (int64_t n = 0; n < N; n += 16) {
            int64_t block_n = std::min<int64_t>(N - n, 16);
            if (block_m == 1 && block_n == 16) {
                cpp_fused_flex_attention_0_kernel_micro_gemm_kernel<1, 16, accum, prefetch>(
                    A + m * lda,
                    B + n,
                    C + m * ldc + n,
                    K,
                    lda,
                    ldb,
                    ldc
                );
            } else if (block_n == 16){
                switch (block_m) {
                default:
                    TORCH_CHECK(false, "Unsupported block_m: 1");
                }
            } else {
                switch (block_m) {
                case 1:
                    cpp_fused_flex_attention_0_kernel_micro_gemm_ntail_kernel<1, 16, accum, prefetch>(
                        A + m * lda,
                        B + n,
                        C + m * ldc + n,
                        block_n,
                        K,
                        lda,
                        ldb,
                        ldc
                    );
                    break;
                default:
                    TORCH_CHECK(false, "Unsupported block_m: 1");
                }
            }
        }
    }
}

template <int64_t BLOCK_M, int64_t BLOCK_N, bool accum, bool prefetch=false>
inline void cpp_fused_flex_attention_0_kernel_micro_gemm_transpose_b_transpose_b_kernel(
    const at::BFloat16* __restrict__ A,
    const at::BFloat16* __restrict__ B,
    float* __restrict__ C,
    int64_t K,
    int64_t lda,
    int64_t ldb,
    int64_t ldc
) {
    using Vectorized = at::vec::Vectorized<float>;
    using VectorizedIn = at::vec::Vectorized<at::BFloat16>;
    // Use 2 implementations for the transposed B:
    // First implementation:
    //   Transpose first and then perform outer product calculation in sub-blocks,
    //   which introduces an additional transpose overhead of [K, N] compared to the non-transpose version.
    // Second implementation:
    //   Directly perform inner product calculation in sub-blocks,
    //   which introduces an additional vector reduction of [M, N] compared to the non-transpose version.
    // Therefore, when M * N / (K * N) is large, the first implementation has better performance.
    if (K % Vectorized::size() == 0 && 24 * BLOCK_M > K) {
        // First implementation:
        constexpr auto VLEN = Vectorized::size();
        constexpr auto ROWS = BLOCK_M;
        constexpr auto COLS = BLOCK_N / VLEN;
        int _K = K / VLEN;
        Vectorized va;
        at::vec::VectorizedN<float, VLEN> vb;
        at::vec::VectorizedN<float, ROWS*COLS> vc;
        auto loadc = [&](auto i) {
            if constexpr (accum) {
                constexpr int row = i / COLS;
                constexpr int col = i % COLS;
                vc[i] = Vectorized::loadu(C + row * ldc + col * VLEN);
            } else {
                vc[i] = Vectorized(0.0f);
            }
        };
        c10::ForcedUnroll<ROWS * COLS>{}(loadc);
        auto unroll_loadB = [&](auto i, const at::BFloat16* __restrict__ src_ptr) {
            auto b = VectorizedIn::loadu(src_ptr + i * ldb, VLEN);
            vb[i] = at::vec::convert<float>(b);
        };
        auto compute_trans = [&, COLS](auto i, int k) {
            constexpr int row = i % ROWS;
            constexpr int col = i / ROWS;
            constexpr int e_col = col * VLEN;
            int idk = k * VLEN;
            if constexpr (row == 0) {
                c10::ForcedUnroll<VLEN>{}(unroll_loadB, B + e_col * ldb + idk);
                at::vec::transpose_block(vb);
            }
            constexpr int idx = row * COLS + col;
            #pragma GCC unroll 16
            for (int j = 0; j < VLEN; j++) {
                va = Vectorized(static_cast<float>(A[row * lda + idk + j]));
                vc[idx] = at::vec::fmadd(va, vb[j], vc[idx]);
            }
        };
        for (int k = 0; k < _K; ++k) {
            c10::ForcedUnroll<ROWS * COLS>{}(compute_trans, k);
        }
        // store to C
        auto storec = [&](auto i) {
            constexpr int row = i / COLS;
            constexpr int col = i % COLS;
            vc[i].store(C + row * ldc + col * VLEN);
        };
        c10::ForcedUnroll<ROWS * COLS>{}(storec);
    } else {
        // Second implementation
        constexpr auto VLEN = VectorizedIn::size();
        int _K = (K + VLEN - 1) / VLEN;
        // sub-block size of BLOCK_N and BLOCK_M
        constexpr int sM = 1;
        constexpr int sN = 4;
        constexpr int bN = (BLOCK_N + sN - 1) / sN;
        constexpr int bM = (BLOCK_M + sM - 1) / sM;
        at::vec::VectorizedN<float, 2> va;
        at::vec::VectorizedN<float, 2 * sN> vb;
        at::vec::VectorizedN<float, sN * sM> vmid;
        constexpr int ntail = BLOCK_N % sN;
        constexpr int mtail = BLOCK_M % sM;
        int ktail = K % VLEN;

        auto compute_trans = [&](int m, int n, int k) {
            int e_n = (n == bN - 1 && ntail != 0) ? (BLOCK_N - n * sN) : sN;
            int e_m = (m == bM - 1 && mtail != 0) ? (BLOCK_M - m * sM) : sM;
            int e_k = (k == _K - 1 && ktail != 0) ? (K - k * VLEN) : VLEN;
            #pragma GCC unroll 4
            for (int i = 0; i < e_n; i++) {
                auto b = VectorizedIn::loadu(B + (sN * n + i) * ldb + k * VLEN, e_k);
                std::tie(vb[2 * i], vb[2 * i + 1]) = at::vec::convert_to_float<at::BFloat16>(b);
            }

            #pragma GCC unroll 1
            for (int s = 0; s < e_m; s++) {
                auto a = VectorizedIn::loadu(A + (sM * m + s) * lda + k * VLEN, e_k);
                std::tie(va[0], va[1]) = at::vec::convert_to_float<at::BFloat16>(a);
                if (k == 0) {
                    #pragma GCC unroll 4
                    for (int i = 0; i < e_n; i++) {
                        vmid[sN * s + i] = at::vec::fmadd(va[0], vb[2 * i], Vectorized(0.0f));
                        vmid[sN * s + i] = at::vec::fmadd(va[1], vb[2 * i + 1], vmid[sN * s + i]);
                    }
                } else {
                    #pragma GCC unroll 4
                    for (int i = 0; i < e_n; i++) {
                        vmid[sN * s + i] = at::vec::fmadd(va[0], vb[2 * i], vmid[sN * s + i]);
                        vmid[sN * s + i] = at::vec::fmadd(va[1], vb[2 * i + 1], vmid[sN * s + i]);
                    }
                }
            }

            // store to C
            if (k == _K - 1) {
                #pragma GCC unroll 1
                for (int s = 0; s < e_m; s++) {
                    #pragma GCC unroll 4
                    for (int i = 0; i < e_n; i++) {
                        auto v = at::vec::vec_reduce_all([](Vectorized& x, Vectorized& y) { return x + y; }, vmid[sN * s + i]);
                        if constexpr (accum) {
                            auto c = *(C + (sM * m + s) * ldc + sN * n + i);
                            *(C + (sM * m + s) * ldc + sN * n + i) = c + v;
                        } else {
                            *(C + (sM * m + s) * ldc + sN * n + i) = v;
                        }
                    }
                }
            }
        };

        for (int n = 0; n < bN; ++n) {
            for (int m = 0; m < bM; ++m) {
                for (int k = 0; k < _K; ++k) {
                    compute_trans(m, n, k);
                }
            }
        }
    }
}

template <int64_t BLOCK_M, int64_t BLOCK_N, bool accum, bool prefetch=false>
inline void cpp_fused_flex_attention_0_kernel_micro_gemm_transpose_b_ntail_transpose_b_kernel(
    const at::BFloat16* __restrict__ A,
    const at::BFloat16* __restrict__ B,
    float* __restrict__ C,
    int64_t N,
    int64_t K,
    int64_t lda,
    int64_t ldb,
    int64_t ldc
) {
    using Vectorized = at::vec::Vectorized<float>;
    using VectorizedIn = at::vec::Vectorized<at::BFloat16>;
    // Use 2 implementations for the transposed B:
    // First implementation:
    //   Transpose first and then perform outer product calculation in sub-blocks,
    //   which introduces an additional transpose overhead of [K, N] compared to the non-transpose version.
    // Second implementation:
    //   Directly perform inner product calculation in sub-blocks,
    //   which introduces an additional vector reduction of [M, N] compared to the non-transpose version.
    // Therefore, when M * N / (K * N) is large, the first implementation has better performance.
    if (K % Vectorized::size() == 0 && N % Vectorized::size() == 0 && 24 * BLOCK_M > K) {
        // First implementation:
        constexpr auto VLEN = Vectorized::size();
        constexpr auto ROWS = BLOCK_M;
        constexpr auto COLS = BLOCK_N / VLEN;
        int _K = K / VLEN;
        Vectorized va;
        at::vec::VectorizedN<float, VLEN> vb;
        at::vec::VectorizedN<float, ROWS*COLS> vc;
        auto loadc = [&](auto i) {
            if constexpr (accum) {
                constexpr int row = i / COLS;
                constexpr int col = i % COLS;
                vc[i] = Vectorized::loadu(C + row * ldc + col * VLEN);
            } else {
                vc[i] = Vectorized(0.0f);
            }
        };
        c10::ForcedUnroll<ROWS * COLS>{}(loadc);
        auto unroll_loadB = [&](auto i, const at::BFloat16* __restrict__ src_ptr) {
            auto b = VectorizedIn::loadu(src_ptr + i * ldb, VLEN);
            vb[i] = at::vec::convert<float>(b);
        };
        auto compute_trans = [&, COLS](auto i, int k) {
            constexpr int row = i % ROWS;
            constexpr int col = i / ROWS;
            constexpr int e_col = col * VLEN;
            int idk = k * VLEN;
            if constexpr (row == 0) {
                c10::ForcedUnroll<VLEN>{}(unroll_loadB, B + e_col * ldb + idk);
                at::vec::transpose_block(vb);
            }
            constexpr int idx = row * COLS + col;
            #pragma GCC unroll 16
            for (int j = 0; j < VLEN; j++) {
                va = Vectorized(static_cast<float>(A[row * lda + idk + j]));
                vc[idx] = at::vec::fmadd(va, vb[j], vc[idx]);
            }
        };
        for (int k = 0; k < _K; ++k) {
            c10::ForcedUnroll<ROWS * COLS>{}(compute_trans, k);
        }
        // store to C
        auto storec = [&](auto i) {
            constexpr int row = i / COLS;
            constexpr int col = i % COLS;
            vc[i].store(C + row * ldc + col * VLEN);
        };
        c10::ForcedUnroll<ROWS * COLS>{}(storec);
    } else {
        // Second implementation
        constexpr auto VLEN = VectorizedIn::size();
        int _K = (K + VLEN - 1) / VLEN;
        // sub-block size of BLOCK_N and BLOCK_M
        constexpr int sM = 1;
        constexpr int sN = 4;
        int bN = (N + sN - 1) / sN;
        constexpr int bM = (BLOCK_M + sM - 1) / sM;
        at::vec::VectorizedN<float, 2> va;
        at::vec::VectorizedN<float, 2 * sN> vb;
        at::vec::VectorizedN<float, sN * sM> vmid;
        int ntail = N % sN;
        constexpr int mtail = BLOCK_M % sM;
        int ktail = K % VLEN;

        auto compute_trans = [&](int m, int n, int k) {
            int e_n = (n == bN - 1 && ntail != 0) ? (N - n * sN) : sN;
            int e_m = (m == bM - 1 && mtail != 0) ? (BLOCK_M - m * sM) : sM;
            int e_k = (k == _K - 1 && ktail != 0) ? (K - k * VLEN) : VLEN;
            #pragma GCC unroll 4
            for (int i = 0; i < e_n; i++) {
                auto b = VectorizedIn::loadu(B + (sN * n + i) * ldb + k * VLEN, e_k);
                std::tie(vb[2 * i], vb[2 * i + 1]) = at::vec::convert_to_float<at::BFloat16>(b);
            }

            #pragma GCC unroll 1
            for (int s = 0; s < e_m; s++) {
                auto a = VectorizedIn::loadu(A + (sM * m + s) * lda + k * VLEN, e_k);
                std::tie(va[0], va[1]) = at::vec::convert_to_float<at::BFloat16>(a);
                if (k == 0) {
                    #pragma GCC unroll 4
                    for (int i = 0; i < e_n; i++) {
                        vmid[sN * s + i] = at::vec::fmadd(va[0], vb[2 * i], Vectorized(0.0f));
                        vmid[sN * s + i] = at::vec::fmadd(va[1], vb[2 * i + 1], vmid[sN * s + i]);
                    }
                } else {
                    #pragma GCC unroll 4
                    for (int i = 0; i < e_n; i++) {
                        vmid[sN * s + i] = at::vec::fmadd(va[0], vb[2 * i], vmid[sN * s + i]);
                        vmid[sN * s + i] = at::vec::fmadd(va[1], vb[2 * i + 1], vmid[sN * s + i]);
                    }
                }
            }

            // store to C
            if (k == _K - 1) {
                #pragma GCC unroll 1
                for (int s = 0; s < e_m; s++) {
                    #pragma GCC unroll 4
                    for (int i = 0; i < e_n; i++) {
                        auto v = at::vec::vec_reduce_all([](Vectorized& x, Vectorized& y) { return x + y; }, vmid[sN * s + i]);
                        if constexpr (accum) {
                            auto c = *(C + (sM * m + s) * ldc + sN * n + i);
                            *(C + (sM * m + s) * ldc + sN * n + i) = c + v;
                        } else {
                            *(C + (sM * m + s) * ldc + sN * n + i) = v;
                        }
                    }
                }
            }
        };

        for (int n = 0; n < bN; ++n) {
            for (int m = 0; m < bM; ++m) {
                for (int k = 0; k < _K; ++k) {
                    compute_trans(m, n, k);
                }
            }
        }
    }
}

template <bool accum, bool prefetch=false>
inline void cpp_fused_flex_attention_0_kernel_micro_gemm_transpose_b(
    const at::BFloat16* __restrict__ A,
    const at::BFloat16* __restrict__ B,
    float* __restrict__ C,
    int64_t M,
    int64_t N,
    int64_t K,
    int64_t lda,
    int64_t ldb,
    int64_t ldc
) {
    using Vectorized = at::vec::Vectorized<float>;
    constexpr auto VLEN = Vectorized::size();
    TORCH_CHECK(16 % VLEN == 0, "block_n dimension must be multiple of Vector size");
    TORCH_CHECK(K % 1 == 0, "K dimension must be multiple of 1");
    // TODO(jgong5): loop unroll for M and N
    for (int64_t m = 0; m < M; m += 1) {
        int64_t block_m = std::min<int64_t>(M - m, 1);
        for (int64_t n = 0; n < N; n += 16) {
            int64_t block_n = std::min<int64_t>(N - n, 16);
            if (block_m == 1 && block_n == 16) {
                cpp_fused_flex_attention_0_kernel_micro_gemm_transpose_b_transpose_b_kernel<1, 16, accum, prefetch>(
                    A + m * lda,
                    B + n * ldb,
                    C + m * ldc + n,
                    K,
                    lda,
                    ldb,
                    ldc
                );
            } else if (block_n == 16){
                switch (block_m) {
                default:
                    TORCH_CHECK(false, "Unsupported block_m: 1");
                }
            } else {
                switch (block_m) {
                case 1:
                    cpp_fused_flex_attention_0_kernel_micro_gemm_transpose_b_ntail_transpose_b_kernel<1, 16, accum, prefetch>(
                        A + m * lda,
                        B + n * ldb,
                        C + m * ldc + n,
                        block_n,
                        K,
                        lda,
                        ldb,
                        ldc
                    );
                    break;
                default:
                    TORCH_CHECK(false, "Unsupported block_m: 1");
                }
            }
        }
    }
}

// 1) out = exp(a - val)
// 2) val = sum(out)
template <typename T1, typename T2>
inline void cpp_fused_flex_attention_0_exp_reduce_sum_fusion_kernel(
    T1* a,
    const int& size,
    T2* out,
    T1& val) {
  auto vec_size = at::vec::Vectorized<T1>::size();
  auto vec_max = at::vec::Vectorized<T1>(val);
  T1 tmp_sum = 0;
  auto vec_tmp_sum = at::vec::Vectorized<T1>(tmp_sum);
  for (long i = 0; i < vec_size * (size / vec_size); i += vec_size) {
    auto tmp0 = at::vec::Vectorized<T1>::loadu(a + i);
    auto tmp1 = tmp0 - vec_max;
    auto tmp2 = tmp1.exp_u20();
    vec_tmp_sum += tmp2;
    at::native::_store(out + i, tmp2);
  }
  tmp_sum = at::vec::vec_reduce_all<T1>(
      [](at::vec::Vectorized<T1>& x, at::vec::Vectorized<T1>& y) {
        return x + y;
      },
      vec_tmp_sum);
  for (long i = vec_size * (size / vec_size); i < size; i++) {
    auto tmp0 = a[i];
    auto tmp1 = tmp0 - val;
    auto tmp2 = exp(tmp1);
    tmp_sum += tmp2;
    out[i] = tmp2;
  }
  val = tmp_sum;
}

// 1) out = a * scale
// 2) max = max(out)
template <typename scalar_t>
inline void cpp_fused_flex_attention_0_mul_reduce_max_fusion_kernel(
    const scalar_t* a,
    const scalar_t& scale,
    const int& size,
    scalar_t* out,
    scalar_t& max) {
  auto vec_size = at::vec::Vectorized<scalar_t>::size();
  auto vec_scale = at::vec::Vectorized<scalar_t>(scale);
  scalar_t tmp_max = -std::numeric_limits<scalar_t>::infinity();
  auto vec_tmp_max = at::vec::Vectorized<scalar_t>(tmp_max);
  for (long i = 0; i < vec_size * (size / vec_size); i += vec_size) {
    auto tmp0 = at::vec::Vectorized<scalar_t>::loadu(a + i);
    auto tmp1 = tmp0 * vec_scale;
    vec_tmp_max = at::vec::maximum(vec_tmp_max, tmp1);
    at::native::_store(out + i, tmp1);
  }
  for (long i = vec_size * (size / vec_size); i < size; i++) {
    auto tmp0 = a[i];
    auto tmp1 = tmp0 * scale;
    tmp_max = std::max(tmp_max, tmp1);
    out[i] = tmp1;
  }
  max = std::max(
      tmp_max,
      at::vec::vec_reduce_all<scalar_t>(
          [](at::vec::Vectorized<scalar_t>& x, at::vec::Vectorized<scalar_t>& y) {
            return at::vec::maximum(x, y);
          },
          vec_tmp_max));
}

template <typename scalar_t>
static inline scalar_t* cpp_fused_flex_attention_0_conditional_data_ptr(scalar_t* ptr, scalar_t* ptr2) {
  TORCH_CHECK(ptr2 == nullptr);
  return ptr;
}

template <typename scalar_t,
          typename std::enable_if_t<c10::is_reduced_floating_point_v<scalar_t>, int> = 0>
static inline scalar_t* cpp_fused_flex_attention_0_conditional_data_ptr(float* ptr, scalar_t* ptr2) {
  return ptr2;
}

template <typename scalar_t>
inline void cpp_fused_flex_attention_0_fill_stub(scalar_t* data, scalar_t val, int64_t size) {
  using Vec = at::vec::Vectorized<scalar_t>;
  Vec data_vec = Vec(val);
  int64_t d = 0;
  for (; d < size - (size % Vec::size()); d += Vec::size()) {
    data_vec.store(data + d);
  }
  #if !defined(_MSC_VER) && !defined(COMPILING_FOR_MIN_SIZE)
  # pragma unroll
  #endif
  for (; d < size; d++) {
    data[d] = val;
  }
}

// out = a * scale
template <typename scalar_t>
inline void cpp_fused_flex_attention_0_mul_scale_kernel(
    scalar_t* a,
    scalar_t scale,
    int64_t size) {
  auto vec_size = at::vec::Vectorized<scalar_t>::size();
  auto vec_scale = at::vec::Vectorized<scalar_t>(scale);
  for (int64_t i = 0; i < vec_size * (size / vec_size); i += vec_size) {
    auto tmp0 = at::vec::Vectorized<scalar_t>::loadu(a + i);
    auto tmp1 = tmp0 * vec_scale;
    at::native::_store(a + i, tmp1);
  }
  for (int64_t i = vec_size * (size / vec_size); i < size; i++) {
    auto tmp0 = a[i];
    auto tmp1 = tmp0 * scale;
    a[i] = tmp1;
  }
}

// One row of flash-attention online softmax, shared by the AMX and non-AMX paths.
// This only tracks the running max/sum.
//   qk_row     -> this kv block's raw scores (overwritten in place)
//   p_row      -> output probabilities, the A operand of the following P@V gemm
//   row_max/row_sum -> running softmax statistics carried across kv blocks
//   dst_row    -> running P@V accumulator that must be rescaled when row_max grows
template <typename scalar_t, typename accum_t>
inline void cpp_fused_flex_attention_0_online_softmax_row(
    accum_t* qk_row,
    scalar_t* p_row,
    int64_t cur_kvSplitSize,
    accum_t& row_max,
    accum_t& row_sum,
    accum_t* dst_row,
    int64_t headSize_v,
    bool first_block,
    bool need_pack) {
  using Vec = at::vec::Vectorized<accum_t>;
  accum_t block_max = -std::numeric_limits<accum_t>::infinity();
  cpp_fused_flex_attention_0_mul_reduce_max_fusion_kernel(
      qk_row, static_cast<accum_t>(1), cur_kvSplitSize, qk_row, block_max);
  accum_t new_max = row_max > block_max ? row_max : block_max;
  if (new_max == -std::numeric_limits<accum_t>::infinity()) {
    // Whole row masked out: emit zero probabilities and leave the stats
    // untouched, which also avoids `nan = exp2f(-inf - (-inf))`.
    cpp_fused_flex_attention_0_fill_stub(p_row, static_cast<scalar_t>(0), cur_kvSplitSize);
  } else {
    // exp_reduce_sum seeds val with new_max, so it computes exp(qk - new_max)
    // and returns sum() in block_sum.
    accum_t block_sum = new_max;
    cpp_fused_flex_attention_0_exp_reduce_sum_fusion_kernel(
        qk_row, cur_kvSplitSize, p_row, block_sum);
    // Rescale the previous running sum/accumulator from row_max to new_max.
    accum_t exp_tmp = std::exp(row_max - new_max);
    row_sum = block_sum + exp_tmp * row_sum;
    if (!first_block) {
      at::vec::map<accum_t>(
          [exp_tmp](Vec x) { return x * Vec(exp_tmp); },
          dst_row, dst_row, headSize_v);
    }
  }
  row_max = new_max;
  // P is the VNNI2 A operand of P@V; VNNI2 packs K in pairs, so an odd
  // cur_kvSplitSize needs one zero-padded column to complete the last pair.
  if (need_pack && cur_kvSplitSize % 2 != 0) {
    p_row[cur_kvSplitSize] = static_cast<scalar_t>(0);
  }
}


template <typename scalar_t>
inline void cpp_fused_flex_attention_0_copy_value_with_pad(
    const scalar_t* value_ptr,
    scalar_t* dst_ptr,
    int64_t rows,
    int64_t cols,
    int64_t prows,
    int64_t pcols,
    int64_t ldi) {
  auto vec_size = at::vec::Vectorized<scalar_t>::size();
  int64_t i = 0;
  for (; i < rows; i++) {
    int64_t j = 0;
    for (; j < cols - (cols % vec_size); j += vec_size) {
      auto vec_v =
          at::vec::Vectorized<scalar_t>::loadu(value_ptr + i * ldi + j);
      vec_v.store(dst_ptr + i * pcols + j);
    }

    if (j < cols) {
      auto vec_v = at::vec::Vectorized<scalar_t>::loadu(
          value_ptr + i * ldi + j, cols - j);
      vec_v.store(dst_ptr + i * pcols + j, cols - j);
    }

    // col padding
    auto psize = pcols - cols;
    if (psize > 0) {
      auto zero_vec = at::vec::Vectorized<scalar_t>(0);
      int64_t pj = 0;
      for (; pj < psize - (psize % vec_size); pj += vec_size) {
        zero_vec.store(dst_ptr + i * pcols + cols + pj);
      }
      if (pj < psize) {
        zero_vec.store(dst_ptr + i * pcols + cols + pj, psize - pj);
      }
    }
  }
  // row padding
  for (; i < prows; i++) {
    auto zero_vec = at::vec::Vectorized<scalar_t>(0);
    int64_t j = 0;
    for (; j < pcols - (pcols % vec_size); j += vec_size) {
      zero_vec.store(dst_ptr + i * pcols + j);
    }
    if (j < pcols) {
      zero_vec.store(dst_ptr + i * pcols + j, pcols - j);
    }

  }
}


extern "C"
void cpp_fused_flex_attention_0(const at::BFloat16* query, const at::BFloat16* key, const at::BFloat16* value, const int32_t* kv_num_blocks, const int32_t* kv_indices, const int32_t* full_kv_num_blocks, const int32_t* full_kv_indices, at::BFloat16* output)
{


  // dtypes
  using scalar_t = at::BFloat16;
  constexpr bool is_reduced_type = c10::is_reduced_floating_point_v<scalar_t>;
  using accum_t = at::opmath_type<at::BFloat16>;
  using Vec = at::vec::Vectorized<accum_t>;
  accum_t scaling_factor = 0.17677669529663687;

  // sizes
  int64_t qBlockSize = 128;
  int64_t kvBlockSize = 128;
  int64_t num_thread = 4;
  int64_t batchSize = static_cast<int64_t>(1L);
  int64_t qSize = static_cast<int64_t>(256L);
  int64_t num_head = static_cast<int64_t>(8L);
  int64_t headSize = static_cast<int64_t>(32L);
  int64_t batchSize_k = static_cast<int64_t>(1L);
  int64_t num_head_k = static_cast<int64_t>(2L);
  int64_t headSize_v = static_cast<int64_t>(32L);
  bool is_broadcast_bs_kv = batchSize != batchSize_k;
  bool is_broadcast_head_kv = num_head != num_head_k;
  int64_t gqa_shards = num_head / num_head_k;
  int64_t bs_shards = batchSize / batchSize_k;

  int64_t batchSize_kvi = static_cast<int64_t>(1L);
  int64_t num_head_kvi = static_cast<int64_t>(8L);
  int64_t block_num_kvi = static_cast<int64_t>(2L);
  bool is_broadcast_bs_kvi = batchSize != batchSize_kvi;
  bool is_broadcast_head_kvi = num_head != num_head_kvi;
  int64_t gqa_shards_kvi = num_head / num_head_kvi;
  int64_t bs_shards_kvi = batchSize / batchSize_kvi;

  int64_t kvSize = static_cast<int64_t>(256L);

  int64_t qSplitSize = qBlockSize;
  int64_t kvSplitSize = kvBlockSize;

  qSplitSize = qSplitSize > qSize ? qSize : qSplitSize;
  kvSplitSize = kvSplitSize > kvSize ? kvSize : kvSplitSize;
  int64_t qSlice = (qSize + qSplitSize - 1) / qSplitSize;
  int64_t kvSlice = (kvSize + kvSplitSize - 1) / kvSplitSize;
  int64_t kvTail = (kvSize - 1) % kvSplitSize + 1;

  // Strides
  int64_t kviStrideB = static_cast<int64_t>(32L);
  int64_t kviStrideH = static_cast<int64_t>(4L);
  int64_t kviStrideQ = static_cast<int64_t>(2L);

  int64_t num_kviStrideB = static_cast<int64_t>(16L);
  int64_t num_kviStrideH = static_cast<int64_t>(2L);
  int64_t full_kviStrideB = static_cast<int64_t>(32L);
  int64_t full_kviStrideH = static_cast<int64_t>(4L);
  int64_t full_kviStrideQ = static_cast<int64_t>(2L);

  int64_t full_num_kviStrideB = static_cast<int64_t>(16L);
  int64_t full_num_kviStrideH = static_cast<int64_t>(2L);
  auto full_kv_indices_data = full_kv_indices;
  auto full_kv_num_blocks_data = full_kv_num_blocks;

  auto kv_num_blocks_data = kv_num_blocks;
  auto kv_indices_data = kv_indices;

  int64_t qStrideB = static_cast<int64_t>(65536L);
  int64_t qStrideM = static_cast<int64_t>(32L);
  int64_t qStrideH = static_cast<int64_t>(8192L);
  int64_t kStrideB = static_cast<int64_t>(16384L);
  int64_t kStrideN = static_cast<int64_t>(32L);
  int64_t kStrideH = static_cast<int64_t>(8192L);
  int64_t vStrideB = static_cast<int64_t>(16384L);
  int64_t vStrideN = static_cast<int64_t>(32L);
  int64_t vStrideH = static_cast<int64_t>(8192L);
  int64_t oStrideB = static_cast<int64_t>(65536L);
  int64_t oStrideM = static_cast<int64_t>(32L);
  int64_t oStrideH = static_cast<int64_t>(8192L);

  // Inputs/outputs buffers
  const scalar_t* q_data = query;
  const scalar_t* k_data = key;
  const scalar_t* v_data = value;
  scalar_t* out_data = output;


  bool need_pack = false;
  // Whether pack is needed for BFloat16/Half
  if (is_reduced_type) {
    // check platform ability
    need_pack = std::is_same_v<scalar_t, at::BFloat16> ? at::native::cpublas::could_pack(at::kBFloat16)
                                                       : at::native::cpublas::could_pack(at::kHalf);
  }
  if (need_pack) {
    // When the number of gemm is greater than the number of pack,
    // the pack overhead can be overlapped.
    int64_t thresh_size = 64;
    need_pack = kvSize >= thresh_size && qSize >= thresh_size;
    if (need_pack) {
      double pack_size = batchSize * num_head * kvSize * headSize;
      double qs_per_thread = (batchSize * num_head * qSlice + num_thread - 1) / num_thread;
      double gemm_size_per_thread = qs_per_thread * qSplitSize * kvSize * headSize;
      need_pack = gemm_size_per_thread / pack_size >= 4;
    }
  }
  // Pad is needed for packing when K is not even
  bool headSize_even = headSize % 2 == 0;
  int64_t eheadSize = need_pack && !headSize_even ? headSize + 1: headSize;
  int64_t ekvSplitSize = need_pack && (kvSplitSize % 2 != 0) ? kvSplitSize + 1 : kvSplitSize;
  int64_t ekvTail = need_pack && (kvTail % 2 != 0) ? kvTail + 1 : kvTail;
  int64_t kv_padding_size = (kvSize - 1) / kvSplitSize * ekvSplitSize + ekvTail;

  // Check criteria for enabling AMX + AVX512 interleave in QK and Softmax
  // Not compiled with -mamx-*, so no AMX code was emitted below.
  constexpr bool use_amx_overlap = false;

  // AMX tiles always store in 16-row units, so a round up is applied
  int64_t eqSplitSize = use_amx_overlap ? (qSplitSize + 15) / 16 * 16 : qSplitSize;

  // Allocate per thread temp buf (accumulate type)
  int64_t _size_per_thread =
      /* qk     */ eqSplitSize * kvSplitSize +
      /* qk_max */ qSplitSize +
      /* qk_sum */ qSplitSize +
      /* dst    */ eqSplitSize * headSize_v;

  // Buffers to store accum results, padding query and transpose/packing key/value

  int64_t buf_data_dtype_itemsize = c10::is_reduced_floating_point_v<accum_t> ? 2 : 4;
  auto& buf_data_allocator = *at::getCPUAllocator();
  auto buf_data_work_data = buf_data_allocator.allocate(num_thread*_size_per_thread*buf_data_dtype_itemsize);
  void* buf_data_data_ptr = buf_data_work_data.get();
  accum_t* buf_data = (accum_t*)buf_data_data_ptr;

  int64_t buf_reduced_data_dtype_itemsize = c10::is_reduced_floating_point_v<scalar_t> ? 2 : 4;
  auto& buf_reduced_data_allocator = *at::getCPUAllocator();
  auto buf_reduced_data_work_data = buf_reduced_data_allocator.allocate(num_thread*eqSplitSize*ekvSplitSize*buf_reduced_data_dtype_itemsize);
  void* buf_reduced_data_data_ptr = buf_reduced_data_work_data.get();
  scalar_t* buf_reduced_data = (scalar_t*)buf_reduced_data_data_ptr;

  int64_t key_reorder_ptr_dtype_itemsize = c10::is_reduced_floating_point_v<scalar_t> ? 2 : 4;
  auto& key_reorder_ptr_allocator = *at::getCPUAllocator();
  auto key_reorder_ptr_work_data = key_reorder_ptr_allocator.allocate(batchSize_k*num_head_k*eheadSize*kvSize*key_reorder_ptr_dtype_itemsize);
  void* key_reorder_ptr_data_ptr = key_reorder_ptr_work_data.get();
  scalar_t* key_reorder_ptr = (scalar_t*)key_reorder_ptr_data_ptr;

  int64_t value_reorder_ptr_dtype_itemsize = c10::is_reduced_floating_point_v<scalar_t> ? 2 : 4;
  auto& value_reorder_ptr_allocator = *at::getCPUAllocator();
  auto value_reorder_ptr_work_data = value_reorder_ptr_allocator.allocate(batchSize_k*num_head_k*kv_padding_size*headSize_v*value_reorder_ptr_dtype_itemsize);
  void* value_reorder_ptr_data_ptr = value_reorder_ptr_work_data.get();
  scalar_t* value_reorder_ptr = (scalar_t*)value_reorder_ptr_data_ptr;

  int64_t transpose_buffer_ptr_dtype_itemsize = c10::is_reduced_floating_point_v<scalar_t> ? 2 : 4;
  auto& transpose_buffer_ptr_allocator = *at::getCPUAllocator();
  auto transpose_buffer_ptr_work_data = transpose_buffer_ptr_allocator.allocate(num_thread*kvSplitSize*headSize*transpose_buffer_ptr_dtype_itemsize);
  void* transpose_buffer_ptr_data_ptr = transpose_buffer_ptr_work_data.get();
  scalar_t* transpose_buffer_ptr = (scalar_t*)transpose_buffer_ptr_data_ptr;

  int64_t query_padding_ptr_dtype_itemsize = c10::is_reduced_floating_point_v<scalar_t> ? 2 : 4;
  auto& query_padding_ptr_allocator = *at::getCPUAllocator();
  auto query_padding_ptr_work_data = query_padding_ptr_allocator.allocate(num_thread*eqSplitSize*eheadSize*query_padding_ptr_dtype_itemsize);
  void* query_padding_ptr_data_ptr = query_padding_ptr_work_data.get();
  scalar_t* query_padding_ptr = (scalar_t*)query_padding_ptr_data_ptr;
  if (need_pack) {
    // Pack K, V
    at::parallel_for(0, batchSize_k * num_head_k * kvSlice, 1, [&](int64_t begin, int64_t end) {
      int ompIdx = at::get_thread_num();
      int64_t i = 0, j = 0, l = 0, n = 0;
      scalar_t* transpose_ptr = need_pack? transpose_buffer_ptr + ompIdx * kvSplitSize * headSize : nullptr;
      at::native::data_index_init(begin, i, batchSize_k, j, num_head_k, l, kvSlice);
      for ([[maybe_unused]] auto z : c10::irange(begin, end)) {
        n = l * kvSplitSize;
        int64_t cur_kvSplitSize = std::min(kvSplitSize, kvSize - n);
        auto k_addr =
              k_data + i * kStrideB + j * kStrideH + n * kStrideN;
        auto v_addr =
              v_data + i * vStrideB + j * vStrideH + n * vStrideN;
        // transpose [cur_kvSplitSize, headSize] -> [headSize, cur_kvSplitSize]
        at::native::utils::transpose<uint16_t>(
          cur_kvSplitSize,
          headSize,
          /* src_ptr */
          reinterpret_cast<const uint16_t*>(k_addr),
          /* ld_src */ kStrideN,
          /* dst */ reinterpret_cast<uint16_t*>(transpose_ptr),
          /* ld_dst */ cur_kvSplitSize);

        // Pack [headSize, cur_kvSplitSize]
        at::vec::pack_vnni2(
          /* src */ reinterpret_cast<const uint16_t*>(transpose_ptr),
          /* dst */ reinterpret_cast<uint16_t*>(key_reorder_ptr + i * num_head_k * eheadSize * kvSize +
                  j * eheadSize * kvSize + n * eheadSize),
          /* ld_src */ cur_kvSplitSize,
          /* K */ headSize,
          /* N */ cur_kvSplitSize);

        // Pack [cur_kvSplitSize, headSize_v]
        at::vec::pack_vnni2(
          /* src */ reinterpret_cast<const uint16_t*>(v_addr),
          /* dst */ reinterpret_cast<uint16_t*>(value_reorder_ptr +
                  i * num_head_k * kv_padding_size * headSize_v +
                  j * kv_padding_size * headSize_v + n * headSize_v),
          /* ld_src */ vStrideN,
          /* K */ cur_kvSplitSize,
          /* N */ headSize_v);
      // Move to the next query
      at::native::data_index_step(i, batchSize_k, j, num_head_k, l, kvSlice);
      }
    });
  }
  // Attention loop below
  at::parallel_for(0, batchSize * num_head * qSlice, 1, [&](int64_t begin, int64_t end) {
    int64_t i = 0, j = 0, k = 0;
    at::native::data_index_init(begin, i, batchSize, j, num_head, k, qSlice);
    int ompIdx = at::get_thread_num();
    accum_t* buf_ptr = buf_data + ompIdx * _size_per_thread;
    accum_t* qk_data_buf = buf_ptr;
    accum_t* qk_max_data = qk_data_buf + eqSplitSize * kvSplitSize;
    accum_t* qk_sum_data = qk_max_data + qSplitSize;
    accum_t* dst_data = qk_sum_data + qSplitSize;
    scalar_t *qk_reduced_data =
        is_reduced_type
            ? buf_reduced_data + ompIdx * eqSplitSize * ekvSplitSize
            : nullptr;
    scalar_t* query_t_padding_ptr = (!headSize_even && need_pack)
            ? query_padding_ptr + ompIdx * eqSplitSize * eheadSize
            : nullptr;

    for ([[maybe_unused]] auto z : c10::irange(begin, end)) {
      auto i_kvi = is_broadcast_bs_kvi ? i/bs_shards_kvi : i;
      auto j_kvi = is_broadcast_head_kvi ? j/gqa_shards_kvi : j;
      auto kv_logical_num_data = kv_num_blocks_data + i_kvi * num_kviStrideB +
                              j_kvi * num_kviStrideH + k;
      int kv_indice_num = *kv_logical_num_data;
      std::vector<int> kv_indice_list(kv_indice_num);
      for(int kv_i = 0; kv_i < kv_indice_num; kv_i++){
        auto kv_logical_data = kv_indices_data + i_kvi * kviStrideB +
                                  j_kvi * kviStrideH + k*kviStrideQ + kv_i;
        kv_indice_list[kv_i] = *kv_logical_data;
      }
      bool is_skip_kv = kv_indice_num > 0 ? false : true;
      auto full_kv_logical_num_data = full_kv_num_blocks_data + i_kvi * num_kviStrideB +
                              j_kvi * num_kviStrideH + k;
      int full_kv_indice_num = *full_kv_logical_num_data;
      std::vector<int> full_kv_indice_list(full_kv_indice_num);
      for(int kv_i = 0; kv_i < full_kv_indice_num; kv_i++){
        auto full_kv_logical_data = full_kv_indices_data + i_kvi * full_kviStrideB +
                                  j_kvi * full_kviStrideH + k*full_kviStrideQ + kv_i;
        full_kv_indice_list[kv_i] = *full_kv_logical_data;
      }
      is_skip_kv = kv_indice_num + full_kv_indice_num > 0 ? false : true;
      int64_t m = k * qSplitSize;
      int64_t cur_qSplitSize = std::min(qSplitSize, qSize - m);
      if (!is_skip_kv){
        // Initialize max and sum
        cpp_fused_flex_attention_0_fill_stub(qk_max_data,
            -std::numeric_limits<accum_t>::infinity(), cur_qSplitSize);
        cpp_fused_flex_attention_0_fill_stub(qk_sum_data,
            static_cast<accum_t>(0), cur_qSplitSize);

        auto q_block_ptr = q_data + i * qStrideB + j * qStrideH + m * qStrideM;
        if (use_amx_overlap) {
        } else if (!headSize_even && need_pack) {
          // Pad query if headSize is not even
          cpp_fused_flex_attention_0_copy_value_with_pad<scalar_t>(
            q_block_ptr,
            query_t_padding_ptr,
            cur_qSplitSize,
            headSize,
            cur_qSplitSize,
            eheadSize,
            qStrideM);
        }
      }
      for (int64_t n_idx = 0; n_idx < kv_indice_num + full_kv_indice_num ; n_idx += 1) {
        auto n = n_idx < kv_indice_num ? kv_indice_list[n_idx]*kvSplitSize : full_kv_indice_list[n_idx - kv_indice_num]*kvSplitSize;

        auto cur_n = n/kvSplitSize;
        int64_t cur_kvSplitSize = std::min(kvSplitSize, kvSize - n);
        int64_t cur_ekvSplitSize = (need_pack && cur_kvSplitSize % 2 != 0) ? cur_kvSplitSize + 1 : cur_kvSplitSize;

        // Calculate scale * q @ k.T
        auto i_kv = is_broadcast_bs_kv ? i/bs_shards : i;
        auto j_kv = is_broadcast_head_kv ? j/gqa_shards : j;

        // AMX overlap
        bool amx_this_block = use_amx_overlap && (cur_kvSplitSize % 32 == 0);
        accum_t* qk_data = qk_data_buf;

        // Interleave the QK[t] and Softmax(score[t - 1]) within this KV loop
        if (amx_this_block) {
        } else if (!need_pack) {
          auto k_addr =
              k_data + i_kv * kStrideB + j_kv * kStrideH + n * kStrideN;

          cpp_fused_flex_attention_0_kernel_micro_gemm_transpose_b<static_cast<bool>(false)>(
              q_data + i * qStrideB + j * qStrideH +
                  m * qStrideM,
              k_addr,
              qk_data,
              cur_qSplitSize,
              cur_kvSplitSize,
              headSize,
              qStrideM,
              kStrideN,
              cur_kvSplitSize);

        } else {
          at::native::cpublas::brgemm(
              cur_qSplitSize,
              cur_kvSplitSize,
              eheadSize,
              headSize_even ? qStrideM : eheadSize,
              cur_kvSplitSize,
              cur_kvSplitSize,
              false,
              !headSize_even
                  ? query_t_padding_ptr
                  : q_data + i * qStrideB + j * qStrideH + m * qStrideM,
              key_reorder_ptr + i_kv * num_head_k * eheadSize * kvSize +
                  j_kv * eheadSize * kvSize + n * eheadSize,
              qk_data,
              need_pack);
        }

        cpp_fused_flex_attention_0_mul_scale_kernel<accum_t>(qk_data, scaling_factor, cur_qSplitSize*cur_kvSplitSize);
        // TODO: reduce the number of calls of q_idx and kv_idx initialization
        std::vector<int64_t> q_idx(cur_qSplitSize);
        for (int64_t i = 0; i < cur_qSplitSize; ++i) {
          q_idx[i] = m + i;
        }

        std::vector<int64_t> kv_idx(cur_kvSplitSize);
        for (int64_t i = 0; i < cur_kvSplitSize; ++i) {
          kv_idx[i] = n + i;
        }

        std::vector<int64_t> b_idx = {i};
        std::vector<int64_t> h_idx = {j};

        accum_t* in_ptr0 = qk_data;

        auto in_ptr1 = b_idx.data();
        auto in_ptr2 = h_idx.data();
        auto in_ptr3 = q_idx.data();
        auto in_ptr4 = kv_idx.data();

        // apply score mod function
        {

            accum_t* out_ptr0 = in_ptr0;
            {
                #pragma GCC ivdep
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(cur_qSplitSize); x0+=static_cast<int64_t>(1L))
                {
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(cur_kvSplitSize); x1+=static_cast<int64_t>(8L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(8L*(c10::div_floor_integer(static_cast<int64_t>(cur_kvSplitSize), static_cast<int64_t>(8L))))))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + cur_kvSplitSize*x0), static_cast<int64_t>(8));
                                auto tmp1 = static_cast<float>(50.0);
                                auto tmp2 = at::vec::Vectorized<float>(tmp1);
                                auto tmp3 = tmp0 / tmp2;
                                auto tmp4 = tmp3.tanh();
                                auto tmp4 = tmp3.exp();
                                auto tmp5 = tmp4 * tmp2;
                                tmp5.store(out_ptr0 + static_cast<int64_t>(x1 + cur_kvSplitSize*x0));
                            }
                            if(C10_UNLIKELY(x1 >= static_cast<int64_t>(8L*(c10::div_floor_integer(static_cast<int64_t>(cur_kvSplitSize), static_cast<int64_t>(8L)))) && x1 < static_cast<int64_t>(cur_kvSplitSize)))
                            {
                                for (int64_t x1_tail = static_cast<int64_t>(8L*(c10::div_floor_integer(static_cast<int64_t>(cur_kvSplitSize), static_cast<int64_t>(8L))));x1_tail < static_cast<int64_t>(cur_kvSplitSize); x1_tail++)
                                {
                                    auto tmp0 = in_ptr0[static_cast<int64_t>(x1_tail + cur_kvSplitSize*x0)];
                                    auto tmp1 = static_cast<float>(50.0);
                                    auto tmp2 = tmp0 / tmp1;
                                    auto tmp3 = std::tanh(tmp2);
                                    auto tmp4 = float(tmp3 * tmp1);
                                    out_ptr0[static_cast<int64_t>(x1_tail + cur_kvSplitSize*x0)] = tmp4;
                                }
                            }
                        }
                    }
                }
            }

        }

        if ((std::find(kv_indice_list.begin(), kv_indice_list.end(), cur_n) != kv_indice_list.end()) ){
          // Apply block mask, fill unused with -inf
          {

              accum_t* out_ptr1 = in_ptr0;
              {
                #pragma GCC ivdep
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(cur_qSplitSize); x0+=static_cast<int64_t>(1L))
                {
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(cur_kvSplitSize); x1+=static_cast<int64_t>(8L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(8L*(c10::div_floor_integer(static_cast<int64_t>(cur_kvSplitSize), static_cast<int64_t>(8L))))))
                            {
                                auto tmp0 = in_ptr3[static_cast<int64_t>(x0)];
                                auto tmp3 = at::vec::VectorizedN<int64_t,2>::loadu(in_ptr4 + static_cast<int64_t>(x1), static_cast<int64_t>(8));
                                auto tmp8 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + cur_kvSplitSize*x0), static_cast<int64_t>(8));
                                auto tmp1 = static_cast<int64_t>(128);
                                auto tmp2 = floor_divide_integral(tmp0, tmp1);
                                auto tmp4 = at::vec::VectorizedN<int64_t,2>(tmp1);
                                auto tmp5 = floor_divide_integral(tmp3, decltype(tmp4)::set(decltype(tmp4)(1), tmp4, static_cast<int64_t>(8)));
                                auto tmp6 = at::vec::VectorizedN<int64_t,2>(tmp2);
                                auto tmp7 = at::vec::VecMask<int64_t,2>(tmp6 == tmp5);
                                auto tmp9 = -std::numeric_limits<float>::infinity();
                                auto tmp10 = at::vec::Vectorized<float>(tmp9);
                                auto tmp11 = decltype(tmp8)::blendv(tmp10, tmp8, inductor_vec_mask_cast<float,1>(tmp7));
                                tmp11.store(out_ptr1 + static_cast<int64_t>(x1 + cur_kvSplitSize*x0));
                            }
                            if(C10_UNLIKELY(x1 >= static_cast<int64_t>(8L*(c10::div_floor_integer(static_cast<int64_t>(cur_kvSplitSize), static_cast<int64_t>(8L)))) && x1 < static_cast<int64_t>(cur_kvSplitSize)))
                            {
                                for (int64_t x1_tail = static_cast<int64_t>(8L*(c10::div_floor_integer(static_cast<int64_t>(cur_kvSplitSize), static_cast<int64_t>(8L))));x1_tail < static_cast<int64_t>(cur_kvSplitSize); x1_tail++)
                                {
                                    auto tmp0 = in_ptr3[static_cast<int64_t>(x0)];
                                    auto tmp3 = in_ptr4[static_cast<int64_t>(x1_tail)];
                                    auto tmp6 = in_ptr0[static_cast<int64_t>(x1_tail + cur_kvSplitSize*x0)];
                                    auto tmp1 = static_cast<int64_t>(128);
                                    auto tmp2 = floor_divide_integral(tmp0, tmp1);
                                    auto tmp4 = floor_divide_integral(tmp3, tmp1);
                                    auto tmp5 = tmp2 == tmp4;
                                    auto tmp7 = -std::numeric_limits<float>::infinity();
                                    auto tmp8 = tmp5 ? tmp6 : tmp7;
                                    out_ptr1[static_cast<int64_t>(x1_tail + cur_kvSplitSize*x0)] = tmp8;
                                }
                            }
                        }
                    }
                }
            }

          }
        }
        if (amx_this_block) {
        } else {
          // Update coefficients with Softmax
          for (int64_t row = 0; row < cur_qSplitSize; ++row) {
            cpp_fused_flex_attention_0_online_softmax_row<scalar_t>(
                qk_data + row * cur_kvSplitSize,
                cpp_fused_flex_attention_0_conditional_data_ptr(qk_data, qk_reduced_data) + row * cur_ekvSplitSize,
                cur_kvSplitSize,
                qk_max_data[row], qk_sum_data[row],
                dst_data + row * headSize_v, headSize_v,
                n_idx == 0, need_pack);
          }
          // Calculate Softmax(q @ k.T) @ v (non-AMX paths; the AMX path defers P@V)
          if (!need_pack) {
            auto v_addr =
                v_data + i_kv * vStrideB + j_kv * vStrideH + n * vStrideN;
            // Fallback Half brgemm is slower than micro gemm
            if (!std::is_same_v<scalar_t, at::Half>) {
              at::native::cpublas::brgemm(
                    cur_qSplitSize,
                    headSize_v,
                    cur_ekvSplitSize,
                    cur_ekvSplitSize,
                    vStrideN,
                    headSize_v,
                    n_idx > 0,
                    cpp_fused_flex_attention_0_conditional_data_ptr(qk_data, qk_reduced_data),
                    v_addr,
                    dst_data,
                    need_pack);
            } else {
              if (n_idx > 0) {
                cpp_fused_flex_attention_0_kernel_micro_gemm<static_cast<bool>(true)>(
                  cpp_fused_flex_attention_0_conditional_data_ptr(qk_data, qk_reduced_data),
                  v_addr,
                  dst_data,
                  cur_qSplitSize,
                  headSize_v,
                  cur_ekvSplitSize,
                  cur_ekvSplitSize,
                  vStrideN,
                  headSize_v);
              } else {
                cpp_fused_flex_attention_0_kernel_micro_gemm<static_cast<bool>(false)>(
                  cpp_fused_flex_attention_0_conditional_data_ptr(qk_data, qk_reduced_data),
                  v_addr,
                  dst_data,
                  cur_qSplitSize,
                  headSize_v,
                  cur_ekvSplitSize,
                  cur_ekvSplitSize,
                  vStrideN,
                  headSize_v);
              }
            }
          } else {
            int64_t psize = n / kvSplitSize * ekvSplitSize;
            at::native::cpublas::brgemm(
                cur_qSplitSize,
                headSize_v,
                cur_ekvSplitSize,
                cur_ekvSplitSize,
                headSize_v,
                headSize_v,
                n_idx > 0,
                qk_reduced_data,
                value_reorder_ptr +
                    i_kv * num_head_k * kv_padding_size * headSize_v +
                    j_kv * kv_padding_size * headSize_v + psize * headSize_v,
                dst_data,
                need_pack);
          }
        }  // end else (non-AMX softmax + P@V)
      }  // end for n_idx (KV blocks)

      // dst <- dst / sum[row]
      // reorder MHA output with strides
      for (int64_t row = 0; row < cur_qSplitSize; ++row) {
        // Row sums for full masked out rows are 0, we set them to 1
        // in order to avoid NaNs in the output and instead set fully
        // masked out rows to 0
        qk_max_data[row] = qk_max_data[row] == -std::numeric_limits<accum_t>::infinity() ? 0 : qk_max_data[row];
        qk_sum_data[row] = qk_sum_data[row] == 0 ? 1 : qk_sum_data[row];
        accum_t sum_reciprocal = 1 / qk_sum_data[row];
        at::vec::map<scalar_t>(
            [sum_reciprocal, is_skip_kv](Vec x) { return  is_skip_kv ? Vec(0.0) : x * Vec(sum_reciprocal); },
            out_data + i * oStrideB + j * oStrideH + m * oStrideM + row * oStrideM,
            dst_data + row * headSize_v,
            headSize_v);
      }

      // Move to the next query
      at::native::data_index_step(i, batchSize, j, num_head, k, qSlice);
    }

    at::native::cpublas::brgemm_release(need_pack);

  });
}

// Python bindings to call inductor_entry_cpp():
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <sstream>
#include <cstdlib>
#include <cerrno>

// This is defined in guards.cpp so we don't need to import PyTorch headers that are slooow.
// We manually link it below to workaround issues with fbcode build.
static void* (*_torchinductor_pyobject_tensor_data_ptr)(PyObject* obj);

template <typename T> static inline T parse_arg(PyObject* const* args, size_t n) {
    static_assert(std::is_pointer_v<T>, "arg type must be pointer or long");
    return static_cast<T>(_torchinductor_pyobject_tensor_data_ptr(args[n]));
}
template <> inline int64_t parse_arg<int64_t>(PyObject* const* args, size_t n) {
    auto result = PyLong_AsSsize_t(args[n]);
    if(result == -1 && PyErr_Occurred()) [[unlikely]]
        throw std::runtime_error("expected int arg");
    return result;
}
template <> inline uintptr_t parse_arg<uintptr_t>(PyObject* const* args, size_t n) {
    auto result = PyLong_AsVoidPtr(args[n]);
    if(result == reinterpret_cast<void*>(-1) && PyErr_Occurred()) [[unlikely]]
        throw std::runtime_error("expected int arg");
    return reinterpret_cast<uintptr_t>(result);
}
template <> inline float parse_arg<float>(PyObject* const* args, size_t n) {
    auto result = PyFloat_AsDouble(args[n]);
    if(result == -1.0 && PyErr_Occurred()) [[unlikely]]
        throw std::runtime_error("expected float arg");
    return static_cast<float>(result);
}


#include <torch/csrc/inductor/aoti_torch/c/shim.h>

static inline std::vector<AtenTensorHandle> unpack_tensor_handle_list(PyObject* pyvec) {
    std::vector<AtenTensorHandle> result;
    size_t result_len = PyList_GET_SIZE(pyvec);
    result.reserve(result_len);
    for (size_t i = 0; i < result_len; i++) {
        PyObject* item = PyList_GET_ITEM(pyvec, i);
        if (item == Py_None) {
            result.push_back(nullptr);
            continue;
        }
        // AtenTensorHandle is essentially a pointer
        void* elem = PyCapsule_GetPointer(item, NULL);
        if (elem == nullptr && PyErr_Occurred()) {
            PyErr_Clear();
            throw std::runtime_error(
                "expected input handle to be a PyCapsule or None"
            );
        }
        result.push_back(reinterpret_cast<AtenTensorHandle>(elem));
    }
    return result;
}

static inline PyObject* pack_tensor_handle_list(const std::array<AtenTensorHandle, 1>& arr) {
    PyObject* result = PyList_New(1);
    for (size_t i = 0; i < 1; i++) {
        PyObject *elem =
            arr[i] == nullptr
                ? Py_NewRef(Py_None)
                // Store AtenTensorHandle as PyCapsulate
                : PyCapsule_New(reinterpret_cast<void*>(arr[i]), NULL, NULL);
        PyList_SET_ITEM(result, i, elem);
    }
    return result;
}

template <>
inline std::vector<AtenTensorHandle> parse_arg<std::vector<AtenTensorHandle>>(PyObject* const* args, size_t n) {
    return unpack_tensor_handle_list(args[n]);
}

PyObject* inductor_entry_cpp(std::vector<AtenTensorHandle>&& input_handles) {
    // For outputs, we only allocate an array to hold returned tensor handles,
    // not the actual output tensor storage.
    std::array<AtenTensorHandle, 1> output_handles{};
    try {
        inductor_entry_impl(input_handles.data(), output_handles.data());
        if (PyErr_Occurred()) {
            return nullptr;
        }
        return pack_tensor_handle_list(output_handles);
    } catch(std::exception const& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return nullptr;
    } catch(...) {
        PyErr_SetString(PyExc_RuntimeError, "unhandled error");
        return nullptr;
    }
}


static PyObject* inductor_entry_cpp_py(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    try {
        if(nargs != 1) [[unlikely]]
            throw std::runtime_error("requires 1 args");
        return inductor_entry_cpp(parse_arg<std::vector<AtenTensorHandle>>(args, 0));
    } catch(std::exception const& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return nullptr;
    } catch(...) {
        PyErr_SetString(PyExc_RuntimeError, "unhandled error");
        return nullptr;
    }
}

static PyMethodDef py_methods[] = {
    {
        "inductor_entry_cpp",
        reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(inductor_entry_cpp_py)),
        METH_FASTCALL,
        ""
    },
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef py_module =
    {PyModuleDef_HEAD_INIT, "inductor_entry_cpp", NULL, -1, py_methods};

PyMODINIT_FUNC PyInit_inductor_entry_cpp(void) {
    const char* str_addr = std::getenv("_TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR");
    if(!str_addr) {
        PyErr_SetString(PyExc_RuntimeError, "_TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR must be set");
        return nullptr;
    }

    char* endptr = nullptr;
    errno = 0;
    uintptr_t addr = std::strtoull(str_addr, &endptr, 10);
    if(errno != 0 || endptr == str_addr || addr == 0) {
        PyErr_SetString(PyExc_RuntimeError, "Failed to parse _TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR");
        return nullptr;
    }
    _torchinductor_pyobject_tensor_data_ptr =
        reinterpret_cast<decltype(_torchinductor_pyobject_tensor_data_ptr)>(addr);
    PyObject* module = PyModule_Create(&py_module);
    if (module == NULL) {
        return NULL;
    }
    #ifdef Py_GIL_DISABLED
        PyUnstable_Module_SetGIL(module, Py_MOD_GIL_NOT_USED);
    #endif
    return module;
}
