#include <torch/csrc/inductor/cpp_wrapper/cpu.h>
extern "C"  void  cpp_fused__to_copy_arange_bitwise_and_constant_pad_nd_eq_ge_gt_lt_permute_sum_unsqueeze_view_0(int64_t* out_ptr0,
                       int32_t* out_ptr1,
                       int32_t* out_ptr2);
extern "C"  void  cpp_fused__to_copy_arange_index_put_lt_new_zeros_scalar_tensor_slice_sum_transpose_unsqueeze_view_where_1(int32_t* in_out_ptr0,
                       const int64_t* in_ptr0,
                       int32_t* out_ptr0,
                       int32_t* out_ptr1,
                       int32_t* out_ptr2);
extern "C"  void  cpp_fused__to_copy_arange_index_put_lt_new_zeros_scalar_tensor_slice_sum_transpose_unsqueeze_view_where_2(int32_t* in_out_ptr0,
                       const int64_t* in_ptr0,
                       const int64_t* in_ptr1,
                       int32_t* out_ptr0,
                       int32_t* out_ptr1,
                       int32_t* out_ptr2,
                       int32_t* out_ptr3);
extern "C"  void  cpp_fused__to_copy_3(const int64_t* in_ptr0,
                       int32_t* out_ptr0);
CACHE_TORCH_DTYPE(int64);
CACHE_TORCH_DTYPE(int32);
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
    auto inputs = steal_from_raw_handles_to_raii_handles(input_handles, 0);
    static constexpr int64_t int_array_0[] = {1L, 1L, 1L, 1L};
    AtenTensorHandle buf0_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(4, int_array_0, int_array_0, cached_torch_dtype_int64, cached_torch_device_type_cpu,  0, &buf0_handle));
    RAIIAtenTensorHandle buf0(buf0_handle);
    AtenTensorHandle buf1_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(4, int_array_0, int_array_0, cached_torch_dtype_int32, cached_torch_device_type_cpu,  0, &buf1_handle));
    RAIIAtenTensorHandle buf1(buf1_handle);
    AtenTensorHandle buf5_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(4, int_array_0, int_array_0, cached_torch_dtype_int32, cached_torch_device_type_cpu,  0, &buf5_handle));
    RAIIAtenTensorHandle buf5(buf5_handle);
    cpp_fused__to_copy_arange_bitwise_and_constant_pad_nd_eq_ge_gt_lt_permute_sum_unsqueeze_view_0((int64_t*)(buf0.data_ptr()), (int32_t*)(buf1.data_ptr()), (int32_t*)(buf5.data_ptr()));
    buf0.reset();
    // Topologically Sorted Source Nodes: [gt, lt, partial_blocks, partial_blocks_1, dense_mask, col_indices], Original ATen: [aten.gt, aten.lt, aten.bitwise_and, aten._to_copy, aten.sort]
    int32_t var_0 = 1;
    AtenTensorHandle buf3_handle;
    AtenTensorHandle buf4_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_sort_stable(buf1, &var_0, -1L, 1, &buf3_handle, &buf4_handle));
    RAIIAtenTensorHandle buf3(buf3_handle);
    RAIIAtenTensorHandle buf4(buf4_handle);
    assert_size_stride(buf4, {1L, 1L, 1L, 1L}, {1L, 1L, 1L, 1L}, "torch.ops.aten.sort.stable", cached_torch_dtype_int64, "torch.int64");
    assert_alignment(buf4, 16, "torch.ops.aten.sort.stable");

    // Topologically Sorted Source Nodes: [full_blocks, full_blocks_1, dense_mask_1, col_indices_1], Original ATen: [aten.eq, aten._to_copy, aten.sort]
    int32_t var_1 = 1;
    AtenTensorHandle buf7_handle;
    AtenTensorHandle buf8_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_sort_stable(buf5, &var_1, -1L, 1, &buf7_handle, &buf8_handle));
    RAIIAtenTensorHandle buf7(buf7_handle);
    RAIIAtenTensorHandle buf8(buf8_handle);
    assert_size_stride(buf8, {1L, 1L, 1L, 1L}, {1L, 1L, 1L, 1L}, "torch.ops.aten.sort.stable", cached_torch_dtype_int64, "torch.int64");
    assert_alignment(buf8, 16, "torch.ops.aten.sort.stable");

    static constexpr int64_t int_array_1[] = {1L, 1L, 1L, 2L};
    static constexpr int64_t int_array_2[] = {2L, 2L, 2L, 1L};
    AtenTensorHandle buf11_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(4, int_array_1, int_array_2, cached_torch_dtype_int32, cached_torch_device_type_cpu,  0, &buf11_handle));
    RAIIAtenTensorHandle buf11(buf11_handle);
    static constexpr int64_t int_array_3[] = {1L, 1L, 1L};
    auto buf9 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf1, 3, int_array_3, int_array_3, 0L)); buf1.reset();  // reuse
    AtenTensorHandle buf10_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(4, int_array_0, int_array_0, cached_torch_dtype_int32, cached_torch_device_type_cpu,  0, &buf10_handle));
    RAIIAtenTensorHandle buf10(buf10_handle);
    AtenTensorHandle buf26_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_3, int_array_3, cached_torch_dtype_int32, cached_torch_device_type_cpu,  0, &buf26_handle));
    RAIIAtenTensorHandle buf26(buf26_handle);
    cpp_fused__to_copy_arange_index_put_lt_new_zeros_scalar_tensor_slice_sum_transpose_unsqueeze_view_where_1((int32_t*)(buf9.data_ptr()), (const int64_t*)(buf4.data_ptr()), (int32_t*)(buf11.data_ptr()), (int32_t*)(buf10.data_ptr()), (int32_t*)(buf26.data_ptr()));
    buf4.reset();
    // Topologically Sorted Source Nodes: [num_blocks_in_row_2, col_indices_2], Original ATen: [aten.slice, aten.transpose, aten.sort]
    static constexpr int64_t int_array_4[] = {1L, 1L, 1L, 1L};
    static constexpr int64_t int_array_5[] = {2L, 2L, 1L, 2L};
    int32_t var_2 = 1;
    AtenTensorHandle buf14_handle;
    AtenTensorHandle buf15_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_sort_stable(wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf11, 4, int_array_4, int_array_5, 0L)), &var_2, -1L, 1, &buf14_handle, &buf15_handle));
    RAIIAtenTensorHandle buf14(buf14_handle);
    RAIIAtenTensorHandle buf15(buf15_handle);
    assert_size_stride(buf15, {1L, 1L, 1L, 1L}, {1L, 1L, 1L, 1L}, "torch.ops.aten.sort.stable", cached_torch_dtype_int64, "torch.int64");
    assert_alignment(buf15, 16, "torch.ops.aten.sort.stable");

    AtenTensorHandle buf25_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(4, int_array_0, int_array_0, cached_torch_dtype_int32, cached_torch_device_type_cpu,  0, &buf25_handle));
    RAIIAtenTensorHandle buf25(buf25_handle);
    auto buf18 = std::move(buf11);  // reuse
    auto buf16 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf5, 3, int_array_3, int_array_3, 0L)); buf5.reset();  // reuse
    AtenTensorHandle buf17_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(4, int_array_0, int_array_0, cached_torch_dtype_int32, cached_torch_device_type_cpu,  0, &buf17_handle));
    RAIIAtenTensorHandle buf17(buf17_handle);
    AtenTensorHandle buf24_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_3, int_array_3, cached_torch_dtype_int32, cached_torch_device_type_cpu,  0, &buf24_handle));
    RAIIAtenTensorHandle buf24(buf24_handle);
    cpp_fused__to_copy_arange_index_put_lt_new_zeros_scalar_tensor_slice_sum_transpose_unsqueeze_view_where_2((int32_t*)(buf16.data_ptr()), (const int64_t*)(buf15.data_ptr()), (const int64_t*)(buf8.data_ptr()), (int32_t*)(buf25.data_ptr()), (int32_t*)(buf18.data_ptr()), (int32_t*)(buf17.data_ptr()), (int32_t*)(buf24.data_ptr()));
    buf15.reset();
    buf8.reset();
    // Topologically Sorted Source Nodes: [num_blocks_in_row_3, col_indices_3], Original ATen: [aten.slice, aten.transpose, aten.sort]
    int32_t var_3 = 1;
    AtenTensorHandle buf21_handle;
    AtenTensorHandle buf22_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_sort_stable(wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf18, 4, int_array_4, int_array_5, 0L)), &var_3, -1L, 1, &buf21_handle, &buf22_handle));
    RAIIAtenTensorHandle buf21(buf21_handle);
    RAIIAtenTensorHandle buf22(buf22_handle);
    buf18.reset();
    assert_size_stride(buf22, {1L, 1L, 1L, 1L}, {1L, 1L, 1L, 1L}, "torch.ops.aten.sort.stable", cached_torch_dtype_int64, "torch.int64");
    assert_alignment(buf22, 16, "torch.ops.aten.sort.stable");

    AtenTensorHandle buf23_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(4, int_array_0, int_array_0, cached_torch_dtype_int32, cached_torch_device_type_cpu,  0, &buf23_handle));
    RAIIAtenTensorHandle buf23(buf23_handle);
    cpp_fused__to_copy_3((const int64_t*)(buf22.data_ptr()), (int32_t*)(buf23.data_ptr()));
    output_handles[0] = buf23.release();
    output_handles[1] = buf24.release();
    output_handles[2] = buf25.release();
    output_handles[3] = buf26.release();
    output_handles[4] = buf17.release();
    output_handles[5] = buf16.release();
    output_handles[6] = buf10.release();
    output_handles[7] = buf9.release();
} // inductor_entry_impl

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused__to_copy_arange_bitwise_and_constant_pad_nd_eq_ge_gt_lt_permute_sum_unsqueeze_view_0(int64_t* out_ptr0,
                       int32_t* out_ptr1,
                       int32_t* out_ptr2)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        {
            int64_t tmp_acc0 = 0;
            at::vec::VectorizedN<int64_t,2> tmp_acc0_vec = at::vec::VectorizedN<int64_t,2>(0);
            at::vec::VectorizedN<int64_t,2> tmp_acc0_vec_arr[4];
            for (int i = 0; i < 4; i++)
            {
                tmp_acc0_vec_arr[i] = at::vec::VectorizedN<int64_t,2>(0);
            }
            int64_t tmp_acc0_arr[4];
            for (int i = 0; i < 4; i++)
            {
                tmp_acc0_arr[i] = 0;
            }
            #pragma omp parallel num_threads(4)
            {
                int tid = omp_get_thread_num();
                at::vec::VectorizedN<int64_t,2> tmp_acc0_vec_local = at::vec::VectorizedN<int64_t,2>(0);
                int64_t tmp_acc0_local = 0;
                #pragma omp for
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(128L); x0+=static_cast<int64_t>(1L))
                {
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(128L); x1+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(128L)))
                            {
                                auto tmp0 = x0;
                                auto tmp0 = x1;
                                auto tmp1 = c10::convert<int64_t>(tmp0);
                                auto tmp2 = static_cast<int64_t>(1);
                                auto tmp3 = tmp1 < tmp2;
                                auto tmp4 = [&]
                                {
                                    auto tmp5 = static_cast<int64_t>(0);
                                    auto tmp6 = x1;
                                    auto tmp7 = c10::convert<int64_t>(tmp6);
                                    auto tmp8 = at::vec::VectorizedN<int64_t,2>::arange(tmp7, 1);
                                    auto tmp9 = at::vec::VectorizedN<int64_t,2>(tmp5);
                                    auto tmp10 = at::vec::VecMask<int64_t,2>(tmp9 >= tmp8);
                                    return tmp10;
                                }
                                ;
                                auto tmp11 = tmp3 ? inductor_vec_mask_cast<float,1>(tmp4()) : at::vec::VecMask<float,1>::from(static_cast<bool>(false));
                                auto tmp12 = tmp11.to<int64_t,2>();
                                tmp_acc0_vec_local = tmp_acc0_vec_local + tmp12;
                            }
                        }
                    }
                }
                tmp_acc0_vec_arr[tid] = tmp_acc0_vec_local;
                tmp_acc0_arr[tid] = tmp_acc0_local;
            }
            for (int tid = 0; tid < 4; tid++)
            {
                tmp_acc0_vec = tmp_acc0_vec + tmp_acc0_vec_arr[tid];
            }
            for (int tid = 0; tid < 4; tid++)
            {
                tmp_acc0 = tmp_acc0 + tmp_acc0_arr[tid];
            }
            tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<int64_t, 2>([](at::vec::Vectorized<int64_t>& x, at::vec::Vectorized<int64_t>& y) { return x + y; }, tmp_acc0_vec);
            out_ptr0[static_cast<int64_t>(0L)] = static_cast<int64_t>(tmp_acc0);
        }
    }
    {
        {
            {
                auto tmp0 = out_ptr0[static_cast<int64_t>(0L)];
                auto tmp1 = static_cast<int64_t>(0);
                auto tmp2 = tmp0 > tmp1;
                auto tmp3 = static_cast<int64_t>(16384);
                auto tmp4 = tmp0 < tmp3;
                auto tmp5 = decltype(tmp2)(tmp2 & tmp4);
                auto tmp6 = c10::convert<int8_t>(tmp5);
                auto tmp7 = c10::convert<int32_t>(tmp6);
                out_ptr1[static_cast<int64_t>(0L)] = tmp7;
            }
        }
    }
    {
        {
            {
                auto tmp0 = out_ptr0[static_cast<int64_t>(0L)];
                auto tmp1 = static_cast<int64_t>(16384);
                auto tmp2 = tmp0 == tmp1;
                auto tmp3 = c10::convert<int8_t>(tmp2);
                auto tmp4 = c10::convert<int32_t>(tmp3);
                out_ptr2[static_cast<int64_t>(0L)] = tmp4;
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused__to_copy_arange_index_put_lt_new_zeros_scalar_tensor_slice_sum_transpose_unsqueeze_view_where_1(int32_t* in_out_ptr0,
                       const int64_t* in_ptr0,
                       int32_t* out_ptr0,
                       int32_t* out_ptr1,
                       int32_t* out_ptr2)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
        {
            {
                {
                    auto tmp0 = static_cast<int32_t>(0);
                    out_ptr0[static_cast<int64_t>(x0)] = tmp0;
                }
            }
        }
    }
    {
        {
            {
                auto tmp0 = in_out_ptr0[static_cast<int64_t>(0L)];
                auto tmp3 = in_ptr0[static_cast<int64_t>(0L)];
                auto tmp1 = c10::convert<int64_t>(tmp0);
                auto tmp2 = c10::convert<int32_t>(tmp1);
                auto tmp4 = c10::convert<int32_t>(tmp3);
                auto tmp5 = static_cast<int32_t>(0);
                auto tmp6 = tmp5 < tmp2;
                auto tmp7 = static_cast<int32_t>(1);
                auto tmp8 = tmp6 ? tmp4 : tmp7;
                auto tmp9 = 2L;
                auto tmp10 = c10::convert<int64_t>(tmp9);
                auto tmp11 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp8) + static_cast<std::make_unsigned_t<int64_t>>(tmp10));
                auto tmp12 = tmp8 < 0;
                auto tmp13 = tmp12 ? tmp11 : tmp8;
                auto tmp14 = tmp13;
                auto tmp15 = c10::convert<int64_t>(tmp14);
                TORCH_CHECK((0 <= tmp15) & (tmp15 < 2L), "index out of bounds: 0 <= tmp15 < 2L");
                in_out_ptr0[static_cast<int64_t>(0L)] = tmp2;
                out_ptr1[static_cast<int64_t>(0L)] = tmp4;
                out_ptr0[static_cast<int64_t>(tmp13)] = tmp7;
            }
        }
    }
    {
        {
            {
                auto tmp0 = out_ptr0[static_cast<int64_t>(0L)];
                auto tmp1 = c10::convert<int64_t>(tmp0);
                auto tmp2 = c10::convert<int32_t>(tmp1);
                out_ptr2[static_cast<int64_t>(0L)] = tmp2;
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused__to_copy_arange_index_put_lt_new_zeros_scalar_tensor_slice_sum_transpose_unsqueeze_view_where_2(int32_t* in_out_ptr0,
                       const int64_t* in_ptr0,
                       const int64_t* in_ptr1,
                       int32_t* out_ptr0,
                       int32_t* out_ptr1,
                       int32_t* out_ptr2,
                       int32_t* out_ptr3)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        {
            {
                auto tmp0 = in_ptr0[static_cast<int64_t>(0L)];
                auto tmp1 = c10::convert<int32_t>(tmp0);
                out_ptr0[static_cast<int64_t>(0L)] = tmp1;
            }
        }
    }
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
        {
            {
                {
                    auto tmp0 = static_cast<int32_t>(0);
                    out_ptr1[static_cast<int64_t>(x0)] = tmp0;
                }
            }
        }
    }
    {
        {
            {
                auto tmp0 = in_out_ptr0[static_cast<int64_t>(0L)];
                auto tmp3 = in_ptr1[static_cast<int64_t>(0L)];
                auto tmp1 = c10::convert<int64_t>(tmp0);
                auto tmp2 = c10::convert<int32_t>(tmp1);
                auto tmp4 = c10::convert<int32_t>(tmp3);
                auto tmp5 = static_cast<int32_t>(0);
                auto tmp6 = tmp5 < tmp2;
                auto tmp7 = static_cast<int32_t>(1);
                auto tmp8 = tmp6 ? tmp4 : tmp7;
                auto tmp9 = 2L;
                auto tmp10 = c10::convert<int64_t>(tmp9);
                auto tmp11 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp8) + static_cast<std::make_unsigned_t<int64_t>>(tmp10));
                auto tmp12 = tmp8 < 0;
                auto tmp13 = tmp12 ? tmp11 : tmp8;
                auto tmp14 = tmp13;
                auto tmp15 = c10::convert<int64_t>(tmp14);
                TORCH_CHECK((0 <= tmp15) & (tmp15 < 2L), "index out of bounds: 0 <= tmp15 < 2L");
                in_out_ptr0[static_cast<int64_t>(0L)] = tmp2;
                out_ptr2[static_cast<int64_t>(0L)] = tmp4;
                out_ptr1[static_cast<int64_t>(tmp13)] = tmp7;
            }
        }
    }
    {
        {
            {
                auto tmp0 = out_ptr1[static_cast<int64_t>(0L)];
                auto tmp1 = c10::convert<int64_t>(tmp0);
                auto tmp2 = c10::convert<int32_t>(tmp1);
                out_ptr3[static_cast<int64_t>(0L)] = tmp2;
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused__to_copy_3(const int64_t* in_ptr0,
                       int32_t* out_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        {
            {
                auto tmp0 = in_ptr0[static_cast<int64_t>(0L)];
                auto tmp1 = c10::convert<int32_t>(tmp0);
                out_ptr0[static_cast<int64_t>(0L)] = tmp1;
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
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

static inline PyObject* pack_tensor_handle_list(const std::array<AtenTensorHandle, 8>& arr) {
    PyObject* result = PyList_New(8);
    for (size_t i = 0; i < 8; i++) {
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
    std::array<AtenTensorHandle, 8> output_handles{};
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
