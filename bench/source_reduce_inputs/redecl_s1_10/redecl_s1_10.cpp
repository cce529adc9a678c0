#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const int64_t* in_ptr0,
                       int32_t* out_ptr0,
                       int32_t* out_ptr1,
                       int64_t* out_ptr2,
                       int32_t* out_ptr3,
                       int32_t* out_ptr4,
                       int32_t* out_ptr5,
                       int32_t* out_ptr6)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(12L); x0+=static_cast<int64_t>(16L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0L) && x0 < static_cast<int64_t>(12L)))
                {
                    auto tmp0 = static_cast<int32_t>(0);
                    auto tmp1 = at::vec::Vectorized<int32_t>(tmp0);
                    tmp1.store(out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(12L));
                }
            }
        }
    }
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(12L); x0+=static_cast<int64_t>(16L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0L) && x0 < static_cast<int64_t>(12L)))
                {
                    auto tmp0 = static_cast<int32_t>(0);
                    auto tmp1 = at::vec::Vectorized<int32_t>(tmp0);
                    tmp1.store(out_ptr1 + static_cast<int64_t>(x0), static_cast<int64_t>(12L));
                }
            }
        }
    }
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
        {
            #pragma GCC ivdep
            for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(2L); x1+=static_cast<int64_t>(1L))
            {
                for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(2L); x2+=static_cast<int64_t>(16L))
                {
                    {
                        int64_t tmp_acc0 = 0;
                        at::vec::VectorizedN<int64_t,2> tmp_acc0_vec = at::vec::VectorizedN<int64_t,2>(0);
                        for(int64_t x3=static_cast<int64_t>(0L); x3<static_cast<int64_t>(128L); x3+=static_cast<int64_t>(1L))
                        {
                            for(int64_t x4=static_cast<int64_t>(0L); x4<static_cast<int64_t>(128L); x4+=static_cast<int64_t>(1L))
                            {
                                {
                                    if(C10_LIKELY(x2 >= static_cast<int64_t>(0L) && x2 < static_cast<int64_t>(2L)))
                                    {
                                        auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];
                                        auto tmp1 = x4 + 128L*x2;
                                        auto tmp2 = c10::convert<int64_t>(tmp1);
                                        auto tmp3 = at::vec::VectorizedN<int64_t,2>::arange(tmp2, 128);
                                        auto tmp4 = at::vec::VectorizedN<int64_t,2>(tmp0);
                                        auto tmp5 = at::vec::VecMask<int64_t,2>(tmp3 < tmp4);
                                        auto tmp6 = x3 + 128L*x1;
                                        auto tmp7 = c10::convert<int64_t>(tmp6);
                                        auto tmp8 = tmp7 < tmp0;
                                        auto tmp9 = at::vec::VecMask<float,1>::from(tmp8);
                                        auto tmp10 = inductor_vec_mask_cast<int32_t,1>(tmp5);
                                        auto tmp11 = inductor_vec_mask_cast<int32_t,1>(tmp9);
                                        auto tmp12 = tmp10 & tmp11;
                                        auto tmp13 = static_cast<bool>(true);
                                        auto tmp14 = at::vec::VecMask<float,1>::from(tmp13);
                                        auto tmp15 = inductor_vec_mask_cast<int32_t,1>(tmp14);
                                        auto tmp16 = inductor_vec_mask_cast<int32_t,1>(tmp12);
                                        auto tmp17 = tmp15 & tmp16;
                                        auto tmp18 = at::vec::VectorizedN<int64_t,2>(tmp7);
                                        auto tmp19 = at::vec::VecMask<int64_t,2>(tmp18 >= tmp3);
                                        auto tmp20 = inductor_vec_mask_cast<int32_t,1>(tmp17);
                                        auto tmp21 = inductor_vec_mask_cast<int32_t,1>(tmp19);
                                        auto tmp22 = tmp20 & tmp21;
                                        auto tmp23 = static_cast<int64_t>(23);
                                        auto tmp24 = at::vec::VectorizedN<int64_t,2>(tmp23);
                                        auto tmp24 = at::vec::VecMask<int64_t,2>(tmp3 < tmp4);
                                        auto tmp25 = at::vec::VecMask<int64_t,2>(tmp3 < tmp24);
                                        auto tmp26 = inductor_vec_mask_cast<int32_t,1>(tmp25);
                                        auto tmp27 = tmp26 | tmp21;
                                        auto tmp28 = inductor_vec_mask_cast<int32_t,1>(tmp22);
                                        auto tmp29 = inductor_vec_mask_cast<int32_t,1>(tmp27);
                                        auto tmp30 = tmp28 & tmp29;
                                        auto tmp31 = tmp30.to<int64_t,2>();
                                        tmp_acc0_vec = sum_masked_reduce(tmp_acc0_vec, tmp31, static_cast<int64_t>(2L));
                                    }
                                }
                            }
                        }
                        if(C10_UNLIKELY(x2 >= static_cast<int64_t>(0L) && x2 < static_cast<int64_t>(2L)))
                        {
                            tmp_acc0_vec.store(out_ptr2 + static_cast<int64_t>(x2 + 2L*x1 + 4L*x0), static_cast<int64_t>(2L));
                        }
                    }
                }
            }
        }
    }
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(8L); x0+=static_cast<int64_t>(16L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0L) && x0 < static_cast<int64_t>(8L)))
                {
                    auto tmp0 = at::vec::VectorizedN<int64_t,2>::loadu(out_ptr2 + static_cast<int64_t>(x0), static_cast<int64_t>(8L));
                    auto tmp1 = static_cast<int64_t>(0);
                    auto tmp2 = at::vec::VectorizedN<int64_t,2>(tmp1);
                    auto tmp3 = at::vec::VecMask<int64_t,2>(tmp0 > tmp2);
                    auto tmp4 = static_cast<int64_t>(16384);
                    auto tmp5 = at::vec::VectorizedN<int64_t,2>(tmp4);
                    auto tmp6 = at::vec::VecMask<int64_t,2>(tmp0 < tmp5);
                    auto tmp7 = inductor_vec_mask_cast<int32_t,1>(tmp3);
                    auto tmp8 = inductor_vec_mask_cast<int32_t,1>(tmp6);
                    auto tmp9 = tmp7 & tmp8;
                    auto tmp10 = tmp9.to<int8_t,1>();
                    auto tmp11 = at::vec::convert<int32_t>(tmp10);
                    auto tmp12 = at::vec::VecMask<int64_t,2>(tmp0 == tmp5);
                    auto tmp13 = tmp12.to<int8_t,1>();
                    auto tmp14 = at::vec::convert<int32_t>(tmp13);
                    tmp11.store(out_ptr3 + static_cast<int64_t>(x0), static_cast<int64_t>(8L));
                    tmp14.store(out_ptr4 + static_cast<int64_t>(x0), static_cast<int64_t>(8L));
                }
            }
        }
    }
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(4L); x0+=static_cast<int64_t>(1L))
        {
            {
                {
                    auto tmp0 = out_ptr3[static_cast<int64_t>(2L*x0)];
                    auto tmp2 = out_ptr3[static_cast<int64_t>(1L + 2L*x0)];
                    auto tmp1 = c10::convert<int64_t>(tmp0);
                    auto tmp3 = c10::convert<int64_t>(tmp2);
                    auto tmp4 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp1) + static_cast<std::make_unsigned_t<int64_t>>(tmp3));
                    auto tmp5 = c10::convert<int32_t>(tmp4);
                    out_ptr5[static_cast<int64_t>(x0)] = tmp5;
                }
            }
        }
    }
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(4L); x0+=static_cast<int64_t>(1L))
        {
            {
                {
                    auto tmp0 = out_ptr4[static_cast<int64_t>(2L*x0)];
                    auto tmp2 = out_ptr4[static_cast<int64_t>(1L + 2L*x0)];
                    auto tmp1 = c10::convert<int64_t>(tmp0);
                    auto tmp3 = c10::convert<int64_t>(tmp2);
                    auto tmp4 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp1) + static_cast<std::make_unsigned_t<int64_t>>(tmp3));
                    auto tmp5 = c10::convert<int32_t>(tmp4);
                    out_ptr6[static_cast<int64_t>(x0)] = tmp5;
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

// Python bindings to call kernel():
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



static PyObject* kernel_py(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    try {
        if(nargs != 8) [[unlikely]]
            throw std::runtime_error("requires 8 args");
        kernel(parse_arg<int64_t*>(args, 0), parse_arg<int32_t*>(args, 1), parse_arg<int32_t*>(args, 2), parse_arg<int64_t*>(args, 3), parse_arg<int32_t*>(args, 4), parse_arg<int32_t*>(args, 5), parse_arg<int32_t*>(args, 6), parse_arg<int32_t*>(args, 7)); Py_RETURN_NONE;
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
        "kernel",
        reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(kernel_py)),
        METH_FASTCALL,
        ""
    },
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef py_module =
    {PyModuleDef_HEAD_INIT, "kernel", NULL, -1, py_methods};

PyMODINIT_FUNC PyInit_kernel(void) {
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
