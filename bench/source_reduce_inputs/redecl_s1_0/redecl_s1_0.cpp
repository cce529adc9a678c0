#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(bool* out_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel num_threads(16)
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for collapse(2)
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(89L); x1+=static_cast<int64_t>(1L))
                {
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(256L); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(256L)))
                            {
                                auto tmp0 = x1 + ((-1L)*x2);
                                auto tmp1 = c10::convert<int64_t>(tmp0);
                                auto tmp2 = at::vec::VectorizedN<int64_t,2>::arange(tmp1, -1);
                                auto tmp3 = static_cast<int64_t>(4);
                                auto tmp4 = at::vec::VectorizedN<int64_t,2>(tmp3);
                                auto tmp5 = remainder_integral(tmp2, decltype(tmp4)::set(decltype(tmp4)(1), tmp4, static_cast<int64_t>(16)));
                                auto tmp6 = static_cast<int64_t>(0);
                                auto tmp7 = at::vec::VectorizedN<int64_t,2>(tmp6);
                                auto tmp7 = at::vec::VectorizedN<int64_t,2>(tmp3);
                                auto tmp8 = at::vec::VecMask<int64_t,2>(tmp5 == tmp7);
                                auto tmp9 = static_cast<bool>(true);
                                auto tmp10 = at::vec::VecMask<float,1>::from(tmp9);
                                auto tmp11 = inductor_vec_mask_cast<int32_t,1>(tmp10);
                                auto tmp12 = inductor_vec_mask_cast<int32_t,1>(tmp8);
                                auto tmp13 = tmp11 & tmp12;
                                auto tmp14 = static_cast<int64_t>(7);
                                auto tmp15 = at::vec::VectorizedN<int64_t,2>(tmp14);
                                auto tmp16 = remainder_integral(tmp2, decltype(tmp15)::set(decltype(tmp15)(1), tmp15, static_cast<int64_t>(16)));
                                auto tmp17 = at::vec::VecMask<int64_t,2>(tmp16 == tmp7);
                                auto tmp18 = inductor_vec_mask_cast<int32_t,1>(tmp13);
                                auto tmp19 = inductor_vec_mask_cast<int32_t,1>(tmp17);
                                auto tmp20 = tmp18 & tmp19;
                                tmp20.store(out_ptr0 + static_cast<int64_t>(x2 + 256L*x1 + 22784L*x0), static_cast<int64_t>(16));
                            }
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
        if(nargs != 1) [[unlikely]]
            throw std::runtime_error("requires 1 args");
        kernel(parse_arg<bool*>(args, 0)); Py_RETURN_NONE;
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
