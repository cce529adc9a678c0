#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const int32_t* in_ptr0,
                       const int64_t* in_ptr1,
                       int32_t* out_ptr0,
                       int32_t* out_ptr1,
                       int32_t* out_ptr2,
                       int32_t* out_ptr3,
                       int32_t* out_ptr4)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(4L); x0+=static_cast<int64_t>(1L))
        {
            {
                {
                    auto tmp0 = in_ptr0[static_cast<int64_t>(4L*x0)];
                    auto tmp2 = in_ptr0[static_cast<int64_t>(1L + 4L*x0)];
                    auto tmp5 = in_ptr0[static_cast<int64_t>(2L + 4L*x0)];
                    auto tmp8 = in_ptr0[static_cast<int64_t>(3L + 4L*x0)];
                    auto tmp1 = c10::convert<int64_t>(tmp0);
                    auto tmp3 = c10::convert<int64_t>(tmp2);
                    auto tmp4 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp1) + static_cast<std::make_unsigned_t<int64_t>>(tmp3));
                    auto tmp6 = c10::convert<int64_t>(tmp5);
                    auto tmp7 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp4) + static_cast<std::make_unsigned_t<int64_t>>(tmp6));
                    auto tmp9 = c10::convert<int64_t>(tmp8);
                    auto tmp10 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp7) + static_cast<std::make_unsigned_t<int64_t>>(tmp9));
                    auto tmp11 = c10::convert<int32_t>(tmp10);
                    out_ptr0[static_cast<int64_t>(x0)] = tmp11;
                }
            }
            for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(4L); x1+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x1 >= static_cast<int64_t>(0L) && x1 < static_cast<int64_t>(4L)))
                    {
                        auto tmp0 = at::vec::VectorizedN<int64_t,2>::loadu(in_ptr1 + static_cast<int64_t>(x1 + 4L*x0), static_cast<int64_t>(4L));
                        auto tmp2 = out_ptr0[static_cast<int64_t>(x0)];
                        auto tmp1 = at::vec::convert<int32_t,1,int64_t,2>(tmp0);
                        auto tmp3 = x1;
                        auto tmp4 = c10::convert<int32_t>(tmp3);
                        auto tmp5 = at::vec::Vectorized<int32_t>::arange(tmp4, 1);
                        auto tmp6 = at::vec::Vectorized<int32_t>(tmp2);
                        auto tmp7 = at::vec::VecMask<int32_t,1>(tmp5 < tmp6);
                        auto tmp8 = static_cast<int32_t>(4);
                        auto tmp9 = at::vec::Vectorized<int32_t>(tmp8);
                        auto tmp10 = decltype(tmp1)::blendv(tmp9, tmp1, inductor_vec_mask_cast<int32_t,1>(tmp7));
                        auto tmp11 = 5L;
                        constexpr auto tmp25 = std::exp(static_cast<float>(0.0));
                        auto tmp12 = c10::convert<int64_t>(tmp11);
                        auto tmp13 = at::vec::convert<int64_t,2,int32_t,1>(tmp10);
                        auto tmp14 = at::vec::VectorizedN<int64_t,2>(tmp12);
                        auto tmp15 = tmp13 + tmp14;
                        auto tmp16 = static_cast<int64_t>(0);
                        auto tmp17 = at::vec::VectorizedN<int64_t,2>(tmp16);
                        auto tmp18 = at::vec::VecMask<int64_t,2>(tmp13 < tmp17);
                        auto tmp19 = decltype(tmp15)::blendv(tmp13, tmp15, inductor_vec_mask_cast<int64_t,2>(tmp18));
                        auto tmp20 =
                        [&]
                        {
                            __at_align__ std::array<int64_t, 16> tmpbuf;
                            tmp19.store(tmpbuf.data(), static_cast<int64_t>(4L));
                            return tmpbuf;
                        }
                        ()
                        ;
                        auto tmp21 =
                        [&]
                        {
                            __at_align__ std::array<int64_t, 16> tmpbuf;
                            #pragma GCC unroll 16
                            for (long x1_inner = 0; x1_inner < static_cast<int64_t>(4L); x1_inner++)
                            {
                                tmpbuf[x1_inner] = static_cast<int64_t>(tmp20[x1_inner]);
                            }
                            return at::vec::VectorizedN<int64_t,2>::loadu(tmpbuf.data(), static_cast<int64_t>(4L));
                        }
                        ()
                        ;
                        TORCH_CHECK((at::vec::VecMask<int64_t,2>::set(at::vec::VecMask<int64_t,2>::from(1), (at::vec::VecMask<int64_t,2>((at::vec::VectorizedN<int64_t,2>(0) <= tmp21) & (tmp21 < at::vec::VectorizedN<int64_t,2>(5L)))), static_cast<int64_t>(4L))).all_masked(), "index out of bounds: 0 <= tmp21 < 5L");
                        auto tmp23 = static_cast<int32_t>(1);
                        auto tmp24 = at::vec::Vectorized<int32_t>(tmp23);
                        tmp1.store(out_ptr1 + static_cast<int64_t>(x1 + 4L*x0), static_cast<int64_t>(4L));
                        [&]
                        {
                            __at_align__ std::array<int32_t, 16> tmpbuf;
                            tmp24.store(tmpbuf.data(), static_cast<int64_t>(4L));
                            #pragma GCC unroll 16
                            for (long x1_inner = 0; x1_inner < static_cast<int64_t>(4L); x1_inner++)
                            {
                                out_ptr2[static_cast<int64_t>(tmp20[x1_inner] + 5L*x0)] = tmpbuf[x1_inner];
                            }
                        }
                        ()
                        ;
                    }
                }
            }
        }
    }
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(4L); x0+=static_cast<int64_t>(1L))
        {
            for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(4L); x1+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x1 >= static_cast<int64_t>(0L) && x1 < static_cast<int64_t>(4L)))
                    {
                        auto tmp0 = at::vec::Vectorized<int32_t>::loadu(out_ptr2 + static_cast<int64_t>(x1 + 5L*x0), static_cast<int64_t>(4L));
                        tmp0.store(out_ptr3 + static_cast<int64_t>(x1 + 4L*x0), static_cast<int64_t>(4L));
                    }
                }
            }
        }
    }
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(4L); x0+=static_cast<int64_t>(16L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0L) && x0 < static_cast<int64_t>(4L)))
                {
                    auto tmp0 = at::vec::Vectorized<int32_t>::loadu(out_ptr3 + static_cast<int64_t>(x0), static_cast<int64_t>(4L));
                    auto tmp2 = at::vec::Vectorized<int32_t>::loadu(out_ptr3 + static_cast<int64_t>(4L + x0), static_cast<int64_t>(4L));
                    auto tmp5 = at::vec::Vectorized<int32_t>::loadu(out_ptr3 + static_cast<int64_t>(8L + x0), static_cast<int64_t>(4L));
                    auto tmp8 = at::vec::Vectorized<int32_t>::loadu(out_ptr3 + static_cast<int64_t>(12L + x0), static_cast<int64_t>(4L));
                    auto tmp1 = at::vec::convert<int64_t,2,int32_t,1>(tmp0);
                    auto tmp3 = at::vec::convert<int64_t,2,int32_t,1>(tmp2);
                    auto tmp4 = tmp1 + tmp3;
                    auto tmp6 = at::vec::convert<int64_t,2,int32_t,1>(tmp5);
                    auto tmp7 = tmp4 + tmp6;
                    auto tmp9 = at::vec::convert<int64_t,2,int32_t,1>(tmp8);
                    auto tmp10 = tmp7 + tmp9;
                    auto tmp11 = at::vec::convert<int32_t,1,int64_t,2>(tmp10);
                    tmp11.store(out_ptr4 + static_cast<int64_t>(x0), static_cast<int64_t>(4L));
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
        kernel(parse_arg<int32_t*>(args, 0), parse_arg<int64_t*>(args, 1), parse_arg<int32_t*>(args, 2), parse_arg<int32_t*>(args, 3), parse_arg<int32_t*>(args, 4), parse_arg<int32_t*>(args, 5), parse_arg<int32_t*>(args, 6)); Py_RETURN_NONE;
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
