#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(int32_t* out_ptr0,
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
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(18L); x0+=static_cast<int64_t>(8L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(16L)))
                {
                    auto tmp0 = static_cast<int32_t>(0);
                    auto tmp1 = at::vec::Vectorized<int32_t>(tmp0);
                    tmp1.store(out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(8));
                }
                if(C10_UNLIKELY(x0 >= static_cast<int64_t>(16L) && x0 < static_cast<int64_t>(18L)))
                {
                    auto tmp0 = static_cast<int32_t>(0);
                    auto tmp1 = at::vec::Vectorized<int32_t>(tmp0);
                    tmp1.store(out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(2L));
                }
            }
        }
    }
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(18L); x0+=static_cast<int64_t>(8L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(16L)))
                {
                    auto tmp0 = static_cast<int32_t>(0);
                    auto tmp1 = at::vec::Vectorized<int32_t>(tmp0);
                    tmp1.store(out_ptr1 + static_cast<int64_t>(x0), static_cast<int64_t>(8));
                }
                if(C10_UNLIKELY(x0 >= static_cast<int64_t>(16L) && x0 < static_cast<int64_t>(18L)))
                {
                    auto tmp0 = static_cast<int32_t>(0);
                    auto tmp1 = at::vec::Vectorized<int32_t>(tmp0);
                    tmp1.store(out_ptr1 + static_cast<int64_t>(x0), static_cast<int64_t>(2L));
                }
            }
        }
    }
    #pragma omp parallel num_threads(16)
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for collapse(3)
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(3L); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(2L); x1+=static_cast<int64_t>(1L))
                {
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(2L); x2+=static_cast<int64_t>(1L))
                    {
                        {
                            int64_t tmp_acc0 = 0;
                            for(int64_t x3=static_cast<int64_t>(0L); x3<static_cast<int64_t>(64L); x3+=static_cast<int64_t>(1L))
                            {
                                for(int64_t x4=static_cast<int64_t>(0L); x4<static_cast<int64_t>(64L); x4+=static_cast<int64_t>(1L))
                                {
                                    {
                                        {
                                            auto tmp0 = c10::div_floor_integer(static_cast<int64_t>(x3 + 64L*x1), static_cast<int64_t>(100L));
                                            auto tmp1 = c10::convert<int64_t>(tmp0);
                                            auto tmp1 = c10::convert<int32_t>(tmp0);
                                            auto tmp2 = c10::div_floor_integer(static_cast<int64_t>(x4 + 64L*x2), static_cast<int64_t>(100L));
                                            auto tmp3 = c10::convert<int64_t>(tmp2);
                                            auto tmp4 = tmp1 == tmp3;
                                            auto tmp5 = static_cast<bool>(true);
                                            auto tmp6 = decltype(tmp5)(tmp5 & tmp4);
                                            auto tmp7 = std::abs(x3 + ((-1L)*x4) + ((-64L)*x2) + 64L*x1);
                                            auto tmp8 = c10::convert<int64_t>(tmp7);
                                            auto tmp9 = static_cast<int64_t>(90);
                                            auto tmp10 = tmp8 <= tmp9;
                                            auto tmp11 = decltype(tmp6)(tmp6 & tmp10);
                                            auto tmp12 = c10::convert<int64_t>(tmp11);
                                            tmp_acc0 = tmp_acc0 + tmp12;
                                        }
                                    }
                                }
                            }
                            out_ptr2[static_cast<int64_t>(x2 + 2L*x1 + 4L*x0)] = tmp_acc0;
                        }
                    }
                }
            }
        }
        #pragma omp single
        {
            {
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(12L); x0+=static_cast<int64_t>(8L))
                {
                    {
                        if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(8L)))
                        {
                            auto tmp0 = at::vec::VectorizedN<int64_t,2>::loadu(out_ptr2 + static_cast<int64_t>(x0), static_cast<int64_t>(8));
                            auto tmp1 = static_cast<int64_t>(0);
                            auto tmp2 = at::vec::VectorizedN<int64_t,2>(tmp1);
                            auto tmp3 = at::vec::VecMask<int64_t,2>(tmp0 > tmp2);
                            auto tmp4 = static_cast<int64_t>(4096);
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
                            tmp11.store(out_ptr3 + static_cast<int64_t>(x0), static_cast<int64_t>(8));
                            tmp14.store(out_ptr4 + static_cast<int64_t>(x0), static_cast<int64_t>(8));
                        }
                        if(C10_UNLIKELY(x0 >= static_cast<int64_t>(8L) && x0 < static_cast<int64_t>(12L)))
                        {
                            auto tmp0 = at::vec::VectorizedN<int64_t,2>::loadu(out_ptr2 + static_cast<int64_t>(x0), static_cast<int64_t>(4L));
                            auto tmp1 = static_cast<int64_t>(0);
                            auto tmp2 = at::vec::VectorizedN<int64_t,2>(tmp1);
                            auto tmp3 = at::vec::VecMask<int64_t,2>(tmp0 > tmp2);
                            auto tmp4 = static_cast<int64_t>(4096);
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
                            tmp11.store(out_ptr3 + static_cast<int64_t>(x0), static_cast<int64_t>(4L));
                            tmp14.store(out_ptr4 + static_cast<int64_t>(x0), static_cast<int64_t>(4L));
                        }
                    }
                }
            }
        }
        #pragma omp single
        {
            {
                #pragma GCC ivdep
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(6L); x0+=static_cast<int64_t>(1L))
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
        }
        #pragma omp single
        {
            {
                #pragma GCC ivdep
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(6L); x0+=static_cast<int64_t>(1L))
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
        if(nargs != 7) [[unlikely]]
            throw std::runtime_error("requires 7 args");
        kernel(parse_arg<int32_t*>(args, 0), parse_arg<int32_t*>(args, 1), parse_arg<int64_t*>(args, 2), parse_arg<int32_t*>(args, 3), parse_arg<int32_t*>(args, 4), parse_arg<int32_t*>(args, 5), parse_arg<int32_t*>(args, 6)); Py_RETURN_NONE;
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
