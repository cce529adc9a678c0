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
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(120L); x0+=static_cast<int64_t>(1L))
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
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(120L); x0+=static_cast<int64_t>(1L))
        {
            {
                {
                    auto tmp0 = static_cast<int32_t>(0);
                    out_ptr1[static_cast<int64_t>(x0)] = tmp0;
                }
            }
        }
    }
    #pragma omp parallel num_threads(8)
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for collapse(2)
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(6L); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(4L); x1+=static_cast<int64_t>(1L))
                {
                    #pragma GCC ivdep
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(4L); x2+=static_cast<int64_t>(1L))
                    {
                        {
                            int64_t tmp_acc0 = 0;
                            for(int64_t x3=static_cast<int64_t>(0L); x3<static_cast<int64_t>(128L); x3+=static_cast<int64_t>(1L))
                            {
                                for(int64_t x4=static_cast<int64_t>(0L); x4<static_cast<int64_t>(128L); x4+=static_cast<int64_t>(1L))
                                {
                                    {
                                        {
                                            auto tmp0 = x3 + 128L*x1;
                                            auto tmp1 = c10::convert<int64_t>(tmp0);
                                            auto tmp2 = static_cast<int64_t>(396);
                                            auto tmp3 = tmp1 < tmp2;
                                            auto tmp4 = x4 + 128L*x2;
                                            auto tmp5 = c10::convert<int64_t>(tmp4);
                                            auto tmp6 = tmp5 < tmp2;
                                            auto tmp7 = tmp3 & tmp6;
                                            auto tmp8 = [&]
                                            {
                                                TORCH_CHECK(tmp1 < 396L, "index out of bounds: tmp1 < 396L");
                                                auto tmp10 = in_ptr0[static_cast<int64_t>(x3 + 128L*x1)];
                                                TORCH_CHECK(tmp5 < 396L, "index out of bounds: tmp5 < 396L");
                                                auto tmp12 = in_ptr0[static_cast<int64_t>(x4 + 128L*x2)];
                                                auto tmp13 = tmp10 == tmp12;
                                                return tmp13;
                                            }
                                            ;
                                            auto tmp14 = tmp7 ? tmp8() : static_cast<decltype(tmp8())>(false);
                                            auto tmp15 = c10::convert<int64_t>(tmp14);
                                            tmp_acc0 = tmp_acc0 + tmp15;
                                        }
                                    }
                                }
                            }
                            out_ptr2[static_cast<int64_t>(x2 + 4L*x1 + 16L*x0)] = tmp_acc0;
                        }
                    }
                }
            }
        }
        #pragma omp single
        {
            {
                #pragma GCC ivdep
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(96L); x0+=static_cast<int64_t>(1L))
                {
                    {
                        {
                            auto tmp0 = out_ptr2[static_cast<int64_t>(x0)];
                            auto tmp1 = static_cast<int64_t>(0);
                            auto tmp2 = tmp0 > tmp1;
                            auto tmp3 = static_cast<int64_t>(16384);
                            auto tmp4 = tmp0 < tmp3;
                            auto tmp5 = decltype(tmp2)(tmp2 & tmp4);
                            auto tmp6 = c10::convert<int8_t>(tmp5);
                            auto tmp7 = c10::convert<int32_t>(tmp6);
                            auto tmp8 = tmp0 == tmp3;
                            auto tmp9 = c10::convert<int8_t>(tmp8);
                            auto tmp10 = c10::convert<int32_t>(tmp9);
                            out_ptr3[static_cast<int64_t>(x0)] = tmp7;
                            out_ptr4[static_cast<int64_t>(x0)] = tmp10;
                        }
                    }
                }
            }
        }
        #pragma omp single
        {
            {
                #pragma GCC ivdep
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(24L); x0+=static_cast<int64_t>(1L))
                {
                    {
                        {
                            auto tmp0 = out_ptr3[static_cast<int64_t>(4L*x0)];
                            auto tmp2 = out_ptr3[static_cast<int64_t>(1L + 4L*x0)];
                            auto tmp5 = out_ptr3[static_cast<int64_t>(2L + 4L*x0)];
                            auto tmp8 = out_ptr3[static_cast<int64_t>(3L + 4L*x0)];
                            auto tmp1 = c10::convert<int64_t>(tmp0);
                            auto tmp3 = c10::convert<int64_t>(tmp2);
                            auto tmp4 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp1) + static_cast<std::make_unsigned_t<int64_t>>(tmp3));
                            auto tmp6 = c10::convert<int64_t>(tmp5);
                            auto tmp7 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp4) + static_cast<std::make_unsigned_t<int64_t>>(tmp6));
                            auto tmp9 = c10::convert<int64_t>(tmp8);
                            auto tmp10 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp7) + static_cast<std::make_unsigned_t<int64_t>>(tmp9));
                            auto tmp11 = c10::convert<int32_t>(tmp10);
                            int64_t x0_probe = x0;
                            auto tmp12 = tmp11 + c10::convert<int32_t>(std::minus<int64_t>()(x0_probe++, x0_probe++));
                            out_ptr5[static_cast<int64_t>(x0)] = tmp12;
                        }
                    }
                }
            }
        }
        #pragma omp single
        {
            {
                #pragma GCC ivdep
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(24L); x0+=static_cast<int64_t>(1L))
                {
                    {
                        {
                            auto tmp0 = out_ptr4[static_cast<int64_t>(4L*x0)];
                            auto tmp2 = out_ptr4[static_cast<int64_t>(1L + 4L*x0)];
                            auto tmp5 = out_ptr4[static_cast<int64_t>(2L + 4L*x0)];
                            auto tmp8 = out_ptr4[static_cast<int64_t>(3L + 4L*x0)];
                            auto tmp1 = c10::convert<int64_t>(tmp0);
                            auto tmp3 = c10::convert<int64_t>(tmp2);
                            auto tmp4 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp1) + static_cast<std::make_unsigned_t<int64_t>>(tmp3));
                            auto tmp6 = c10::convert<int64_t>(tmp5);
                            auto tmp7 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp4) + static_cast<std::make_unsigned_t<int64_t>>(tmp6));
                            auto tmp9 = c10::convert<int64_t>(tmp8);
                            auto tmp10 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp7) + static_cast<std::make_unsigned_t<int64_t>>(tmp9));
                            auto tmp11 = c10::convert<int32_t>(tmp10);
                            out_ptr6[static_cast<int64_t>(x0)] = tmp11;
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

int main() {
    static int64_t in0[396];
    for (int64_t i = 0; i < 396; ++i) in0[i] = (i * 37 + 11) % 23;
    static int32_t o0[120], o1[120], o3[96], o4[96], o5[24], o6[24];
    static int64_t o2[96];
    kernel(in0, o0, o1, o2, o3, o4, o5, o6);
    uint64_t sum = 1469598103934665603ULL;
    auto mix = [&](int64_t v) { sum = (sum ^ static_cast<uint64_t>(v)) * 1099511628211ULL; };
    for (auto v : o0) mix(v);
    for (auto v : o1) mix(v);
    for (auto v : o2) mix(v);
    for (auto v : o3) mix(v);
    for (auto v : o4) mix(v);
    for (auto v : o5) mix(v);
    for (auto v : o6) mix(v);
    std::printf("checksum %llu\n", static_cast<unsigned long long>(sum));
    return 0;
}
