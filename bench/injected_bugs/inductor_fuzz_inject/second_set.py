"""The second injected set, kinds n..q: causes whose symptoms change with the shape and the dtype.

Written for issue 68, against bug keys tuned on the first thirteen (bugs.py, flex_bugs.py,
mask_bugs.py). Each cause here shows as different text from case to case although it is one
cause, or shares its text with another cause:
  n  a block count off by one: which table it reaches (partial or full, kv or q counts) and
     which rows depend on the shape of the mask and the block size;
  o  a redeclared vectorized load: the type in the compiler's message is the dtype's
     (Vectorized<float>, VectorizedN<int64_t,2>, Vectorized<c10::BFloat16>, ...);
  p, q two causes that Clang reports with one diagnostic about one callee
     (err_ovl_no_viable_function_in_call, 'clamp_index'): a call with an argument missing and
     a call whose argument has the wrong type. Only the reason Clang gives for rejecting the
     candidate tells them apart.
Triggers that would fire in most kernels (a vectorized load, a parallel loop) are thinned by a
hash of the kernel's body, so that each bug takes a share of the cases and not all of them;
the hash is the code's, so a probe's or a sanitizer's rebuild of the same kernel fires again.
"""

import re
import zlib

from .bugs import MARK, Bug
from .scan import kernels


def _share(kernel, code, modulus, residue):
    """Whether the kernel's body falls in residue of modulus: a fixed share of kernels."""
    return zlib.crc32(kernel.body(code).encode()) % modulus == residue


def _example_in_share(template, modulus, residue):
    """template's kernel with a loop bound (its %d) that puts its body in the share."""
    for size in range(2, 10000):
        code = template % size
        kernel = kernels(code)[0]
        if _share(kernel, code, modulus, residue):
            return code
    raise AssertionError("no example in the share")


_COUNT_KERNEL = """
extern "C"  void  kernel(int32_t* out_ptr0,
                       int32_t* out_ptr1,
                       int32_t* out_ptr2)
{
    #pragma omp parallel num_threads(2)
    {
        int tid = omp_get_thread_num();
        #pragma omp single
        {
            {
                #pragma GCC ivdep
                for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(12L); x0+=static_cast<int64_t>(1L))
                {
                    {
                        {
                            auto tmp0 = out_ptr0[static_cast<int64_t>(3L*x0)];
                            auto tmp2 = out_ptr0[static_cast<int64_t>(1L + 3L*x0)];
                            auto tmp1 = c10::convert<int64_t>(tmp0);
                            auto tmp3 = c10::convert<int64_t>(tmp2);
                            auto tmp4 = int64_t(static_cast<std::make_unsigned_t<int64_t>>(tmp1) + static_cast<std::make_unsigned_t<int64_t>>(tmp3));
                            auto tmp8 = c10::convert<int32_t>(tmp4);
                            out_ptr2[static_cast<int64_t>(x0)] = tmp8;
                        }
                    }
                }
            }
        }
    }
}
"""


class BlockCountLow(Bug):
    set = "second"
    id = "block-count-low"
    kind, kind_name = "n", "wrong value (a block count one low)"
    trigger = (
        "in a create_block_mask case, a kernel writing int32 tables whose count store "
        "(out_ptrK[x0] = c10::convert<int32_t>(...)) is a scalar store of a per-row sum"
    )
    effect = (
        "the first such count is stored one low where it is 2 or more: which table that is "
        "(partial or full blocks, kv or q) and which rows it reaches is the shape's doing"
    )
    expected = ("wrong-result",)
    apis = ("create_block_mask",)
    example = _COUNT_KERNEL
    _CONVERT = re.compile(r"^[ \t]*auto (tmp\d+) = c10::convert<int32_t>\([^\n]*\);[ \t]*$", re.M)
    _STORE = r"^([ \t]*out_ptr\d+\[static_cast<int64_t>\(x0\)\] = )({name});[ \t]*$"

    def rewrite(self, code, unit):
        for kernel in kernels(code):
            if "int32_t* out_ptr" not in kernel.params or "query" in kernel.params:
                continue
            for convert in self._CONVERT.finditer(code, kernel.body_open, kernel.body_close):
                name = convert.group(1)
                store = re.compile(self._STORE.format(name=name), re.M).search(
                    code, convert.end(), kernel.body_close
                )
                if not store:
                    continue
                line = f"{store.group(1)}{name} > 1 ? {name} - 1 : {name}; // {MARK}: {self.id}"
                return code[: store.start()] + line + code[store.end() :], kernel.name
        return None


_VECTOR_KERNEL = """
extern "C"  void  kernel(const float* in_ptr0, float* out_ptr0)
{
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(%dL); x0+=static_cast<int64_t>(16L))
        {
            {
                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                auto tmp1 = tmp0 * tmp0;
                tmp1.store(out_ptr0 + static_cast<int64_t>(x0));
            }
        }
    }
}
"""


class RedeclaredVectorLoad(Bug):
    set = "second"
    id = "redeclared-vector-load"
    kind, kind_name = "o", "redeclared local (its type the dtype's)"
    trigger = (
        "a kernel loading a vector (auto tmpN = at::vec::Vectorized...<T>::loadu(...)), one in "
        "eight such kernels by a hash of its body"
    )
    effect = (
        "the load's declaration is repeated in its scope: the compiler's message spells the "
        "vector type, which is the dtype's"
    )
    expected = ("compile-error", "conflicting-declaration")
    example = _example_in_share(_VECTOR_KERNEL, 8, 3)
    _LOAD = re.compile(
        r"^([ \t]*)auto (tmp\d+) = (at::vec::VectorizedN?<[^\n]*?>::loadu\([^\n]*\));[ \t]*$", re.M
    )
    modulus, residue = 8, 3

    def rewrite(self, code, unit):
        for kernel in kernels(code):
            match = self._LOAD.search(code, kernel.body_open, kernel.body_close)
            if not match or not _share(kernel, code, self.modulus, self.residue):
                continue
            indent, name, value = match.groups()
            duplicate = f"\n{indent}auto {name} = {value}; // {MARK}: {self.id}"
            return code[: match.end()] + duplicate + code[match.end() :], name
        return None


_PARALLEL_KERNEL = """
extern "C"  void  kernel(const float* in_ptr0, float* out_ptr0)
{
    #pragma omp parallel num_threads(2)
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(%dL); x0+=static_cast<int64_t>(1L))
            {
                auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];
                out_ptr0[static_cast<int64_t>(x0)] = tmp0;
            }
        }
    }
}
"""


class _ClampCall(Bug):
    """A call of inductor_fuzz_injected::clamp_index at the start of a parallel kernel, to an
    overload set (int64 and int32) the call fits in no overload: Clang says "no matching
    function for call to 'clamp_index'" for both subclasses; they differ in why."""

    set = "second"
    expected = ("compile-error", "analysis-error")
    modulus, residue = 9, 0
    declaration = ""
    call = ""

    def rewrite(self, code, unit):
        for kernel in kernels(code):
            body = kernel.body(code)
            if "#pragma omp for" not in body or "inductor_fuzz_injected" in body:
                continue
            if not _share(kernel, code, self.modulus, self.residue):
                continue
            at = kernel.body_open + 1
            line = (
                f"\n    int64_t inductor_fuzz_zero = 0; [[maybe_unused]] auto inductor_fuzz_clamped = "
                f"inductor_fuzz_injected::clamp_index({self.call}); // {MARK}: {self.id}"
            )
            declaration = (
                f"namespace inductor_fuzz_injected {{ {self.declaration} }} // {MARK}: {self.id}\n"
            )
            rewritten = code[:at] + line + code[at:]
            start = kernel.header_start
            return rewritten[:start] + declaration + rewritten[start:], kernel.name
        return None


class ClampArity(_ClampCall):
    id = "clamp-arity"
    kind, kind_name = "p", "call with an argument missing (Clang: no viable function)"
    trigger = "a parallel kernel (#pragma omp for), one in nine by a hash of its body"
    effect = "inductor_fuzz_injected::clamp_index(v, lo, hi) is called with two arguments"
    residue = 2
    declaration = (
        "inline int64_t clamp_index(int64_t v, int64_t lo, int64_t hi) "
        "{ return v < lo ? lo : v > hi ? hi : v; } "
        "inline int32_t clamp_index(int32_t v, int32_t lo, int32_t hi) "
        "{ return v < lo ? lo : v > hi ? hi : v; }"
    )
    call = "inductor_fuzz_zero, 1L"
    example = _example_in_share(_PARALLEL_KERNEL, 9, 2)


class ClampConversion(_ClampCall):
    id = "clamp-conversion"
    kind, kind_name = "q", "call with an argument of the wrong type (Clang: no viable function)"
    trigger = "a parallel kernel (#pragma omp for), one in nine by a hash of its body"
    effect = (
        "inductor_fuzz_injected::clamp_index(const int64_t* v, lo, hi) is called with an int64_t "
        "value where it takes a pointer"
    )
    residue = 5
    declaration = (
        "inline int64_t clamp_index(const int64_t* v, int64_t lo, int64_t hi) "
        "{ return *v < lo ? lo : *v > hi ? hi : *v; } "
        "inline int32_t clamp_index(const int32_t* v, int32_t lo, int32_t hi) "
        "{ return *v < lo ? lo : *v > hi ? hi : *v; }"
    )
    call = "inductor_fuzz_zero, 0L, 1L"
    example = _example_in_share(_PARALLEL_KERNEL, 9, 5)


SECOND_SET = [BlockCountLow(), ClampArity(), ClampConversion(), RedeclaredVectorLoad()]
