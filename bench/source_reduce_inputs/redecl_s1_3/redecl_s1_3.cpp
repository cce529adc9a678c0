#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const int32_t* in_ptr0,
                       const int64_t* in_ptr1,
                       int32_t* out_ptr0,
                       int32_t* out_ptr1,
                       int32_t* out_ptr2,
                       int32_t* out_ptr3,
                       int64_t* out_ptr4,
                       int32_t* out_ptr5)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(8L); x0+=static_cast<int64_t>(1L))
        {
            {
                {
                    auto tmp0 = in_ptr0[static_cast<int64_t>(3L*x0)];
                    auto tmp2 = in_ptr0[static_cast<int64_t>(1L + 3L*x0)];
                    auto tmp5 = in_ptr0[static_cast<int64_t>(2L + 3L*x0)];
                    auto tmp1 = c10::convert<int64_t>(tmp0);
                    auto tmp3 = c10::convert<int64_t>(tmp2);
                    auto tmp4 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp1) + static_cast<std::make_unsigned_t<int64_t>>(tmp3));
                    auto tmp6 = c10::convert<int64_t>(tmp5);
                    auto tmp7 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp4) + static_cast<std::make_unsigned_t<int64_t>>(tmp6));
                    auto tmp8 = c10::convert<int32_t>(tmp7);
                    out_ptr0[static_cast<int64_t>(x0)] = tmp8;
                }
            }
            for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(3L); x1+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x1 >= static_cast<int64_t>(0L) && x1 < static_cast<int64_t>(1)))
                    {
                        for (int64_t x1_tail = static_cast<int64_t>(0L);x1_tail < static_cast<int64_t>(3L); x1_tail++)
                        {
                            auto tmp0 = in_ptr1[static_cast<int64_t>(x1_tail + 3L*x0)];
                            auto tmp2 = out_ptr0[static_cast<int64_t>(x0)];
                            auto tmp1 = c10::convert<int32_t>(tmp0);
                            auto tmp3 = x1_tail;
                            auto tmp4 = c10::convert<int32_t>(tmp3);
                            auto tmp5 = tmp4 < tmp2;
                            auto tmp6 = static_cast<int32_t>(3);
                            auto tmp7 = tmp5 ? tmp1 : tmp6;
                            auto tmp8 = 4L;
                            auto tmp9 = c10::convert<int64_t>(tmp8);
                            auto tmp10 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp7) + static_cast<std::make_unsigned_t<int64_t>>(tmp9));
                            auto tmp11 = tmp7 < 0;
                            auto tmp12 = tmp11 ? tmp10 : tmp7;
                            auto tmp13 = tmp12;
                            auto tmp14 = c10::convert<int64_t>(tmp13);
                            TORCH_CHECK((0 <= tmp14) & (tmp14 < 4L), "index out of bounds: 0 <= tmp14 < 4L");
                            auto tmp16 = static_cast<int32_t>(1);
                            out_ptr1[static_cast<int64_t>(x1_tail + 3L*x0)] = tmp1;
                            out_ptr2[static_cast<int64_t>(tmp12 + 4L*x0)] = tmp16;
                        }
                    }
                }
            }
        }
    }
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(8L); x0+=static_cast<int64_t>(1L))
        {
            #pragma GCC ivdep
            for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(3L); x1+=static_cast<int64_t>(1L))
            {
                {
                    {
                        auto tmp0 = out_ptr2[static_cast<int64_t>(x1 + 4L*x0)];
                        out_ptr3[static_cast<int64_t>(x1 + 3L*x0)] = tmp0;
                    }
                }
            }
        }
    }
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(3L); x0+=static_cast<int64_t>(16L))
        {
            {
                int64_t tmp_acc0_arr[16];
                for (int i = 0; i < 16; i++)
                {
                    tmp_acc0_arr[i] = 0;
                }
                int64_t tmp_acc0 = 0;
                at::vec::VectorizedN<int64_t,2> tmp_acc0_vec = at::vec::VectorizedN<int64_t,2>(0);
                int64_t tmp_acc0 = 0;
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(8L); x1+=static_cast<int64_t>(1L))
                {
                    {
                        if(C10_LIKELY(x0 >= static_cast<int64_t>(0L) && x0 < static_cast<int64_t>(3L)))
                        {
                            for (int64_t x0_tail = static_cast<int64_t>(0L);x0_tail < static_cast<int64_t>(3L); x0_tail++)
                            {
                                auto tmp0 = out_ptr3[static_cast<int64_t>(x0_tail + 3L*x1)];
                                auto tmp1 = c10::convert<int64_t>(tmp0);
                                tmp_acc0_arr[x0_tail - static_cast<int64_t>(0L)] = tmp_acc0_arr[x0_tail - static_cast<int64_t>(0L)] + tmp1;
                            }
                        }
                    }
                }
                if(C10_UNLIKELY(x0 >= static_cast<int64_t>(0L) && x0 < static_cast<int64_t>(3L)))
                {
                    for (int64_t x0_tail = static_cast<int64_t>(0L);x0_tail < static_cast<int64_t>(3L); x0_tail++)
                    {
                        out_ptr4[static_cast<int64_t>(x0_tail)] = tmp_acc0_arr[x0_tail - static_cast<int64_t>(0L)];
                    }
                }
            }
        }
    }
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(3L); x0+=static_cast<int64_t>(1L))
        {
            {
                {
                    auto tmp0 = out_ptr4[static_cast<int64_t>(x0)];
                    auto tmp1 = c10::convert<int32_t>(tmp0);
                    out_ptr5[static_cast<int64_t>(x0)] = tmp1;
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
        kernel(parse_arg<int32_t*>(args, 0), parse_arg<int64_t*>(args, 1), parse_arg<int32_t*>(args, 2), parse_arg<int32_t*>(args, 3), parse_arg<int32_t*>(args, 4), parse_arg<int32_t*>(args, 5), parse_arg<int64_t*>(args, 6), parse_arg<int32_t*>(args, 7)); Py_RETURN_NONE;
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
