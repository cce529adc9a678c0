"""The Bug interface and the first eight injected bugs, kinds a..h.

Each is a different kind of cause: a redeclared local, a forward-declaration mismatch
(cpp_wrapper), an undefined symbol, a rejection only clang makes, a wrong value in the
block-mask tables, a lowering that raises, a write past a buffer, and a miscompile only clang
shows. All but the lowering one rewrite the C++ of a kernel or of the wrapper. The Bug class
is here because every bug module derives from it; the silent wrong values of kinds i..m are in
flex_bugs.py and mask_bugs.py.
"""

import re

from .scan import kernels

MARK = "inductor-fuzz injected"  # in every rewrite's comment and every raised message


class Bug:
    """One injected cause. `where` is "source": rewrite(code, unit) gives (the rewritten TU,
    the kernel or name it changed) when the trigger is in code, else None; unit is "wrapper"
    for a cpp_wrapper TU, "kernel" otherwise. Or "lowering": `ops` names the aten ops whose
    lowering raises. `example` is a trimmed TU holding the trigger (tests/python)."""

    id = ""
    kind = ""  # a..h: redeclared local, declaration mismatch, undefined symbol, compiler-specific
    # rejection, wrong value, lowering exception, memory error, one-compiler miscompile; i..m:
    # silent wrong values, each its own place, shape and settings (flex output scaled, its last
    # head-dim columns zero, flash-decoding output offset, first row of a q block negated,
    # create_mask's later heads inverted)
    kind_name = ""
    where = "source"
    trigger = ""  # for people: the feature that makes it fire
    effect = ""  # for people: what it does
    expected = ()  # the finding kinds it should cause
    # The case APIs it fires in (empty: any). A bug whose effect only one API's oracle sees
    # (create_block_mask's tables, create_mask's mask) stays out of the others' cases, where it
    # would take the case (one bug per case) and be seen by nothing.
    apis = ()
    needs_matrix = False  # seen only by the compiler matrix: fires only where it runs
    set = "first"  # the injected set: "first" (a..m, the thirteen the keys were tuned on) or
    # "second" (n..q, second_set.py: symptoms that change with shape and dtype)

    def rewrite(self, code, unit):
        return None

    def describe(self):
        return {
            "id": self.id,
            "kind": self.kind,
            "kind_name": self.kind_name,
            "trigger": self.trigger,
            "effect": self.effect,
            "expected": list(self.expected),
            "apis": list(self.apis),
            "set": self.set,
        }


_LOOP_NEST = """
extern "C"  void  kernel(const int64_t* in_ptr0,
                       int32_t* out_ptr0)
{
    #pragma omp parallel num_threads(2)
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(4L); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(128L); x1+=static_cast<int64_t>(1L))
                {
                    {
                        {
                            auto tmp0 = in_ptr0[static_cast<int64_t>(x1)];
                            auto tmp1 = std::abs(x1 + ((-1L)*x0) + 64L*x0);
                            auto tmp2 = c10::convert<int64_t>(tmp1);
                            auto tmp3 = decltype(tmp0)(tmp0 ^ tmp2);
                            auto tmp4 = c10::convert<int32_t>(tmp3);
                            out_ptr0[static_cast<int64_t>(x1 + 128L*x0)] = tmp4;
                        }
                    }
                }
            }
        }
    }
}
"""


class RedeclaredLocal(Bug):
    id = "redeclared-acc-arr"
    kind, kind_name = "a", "redeclared local"
    trigger = "a kernel with a 16-lane int64 reduction accumulator array (int64_t tmp_accN_arr[16])"
    effect = "the accumulator array is declared twice in one scope (pytorch#151290's shape)"
    expected = ("compile-error", "conflicting-declaration")
    example = """
extern "C"  void  kernel(const int64_t* in_ptr0, int64_t* out_ptr0)
{
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(3L); x0+=static_cast<int64_t>(16L))
        {
            {
                int64_t tmp_acc0_arr[16];
                for (int i = 0; i < 16; i++)
                {
                    tmp_acc0_arr[i] = 0;
                }
            }
        }
    }
}
"""
    _DECL = re.compile(r"^([ \t]*)int64_t (tmp_acc\d+_arr)\[16\];[ \t]*$", re.M)

    def rewrite(self, code, unit):
        match = self._DECL.search(code)
        if not match:
            return None
        indent, name = match.groups()
        duplicate = f"\n{indent}int64_t {name}[16]; // {MARK}: {self.id}"
        return code[: match.end()] + duplicate + code[match.end() :], name


class WrapperDeclarationMismatch(Bug):
    id = "wrapper-decl-mismatch"
    kind, kind_name = "b", "forward-declaration mismatch (cpp_wrapper)"
    trigger = "a cpp_wrapper TU forward-declaring a kernel whose first parameter is bool* out_ptr0 (create_mask)"
    effect = "the forward declaration says uint8_t* out_ptr0; the definition keeps bool*"
    expected = ("compile-error", "conflicting-declaration")
    example = """
#include <torch/csrc/inductor/cpp_wrapper/cpu.h>
extern "C"  void  cpp_fused_arange_bitwise_and_ge_0(bool* out_ptr0);
CACHE_TORCH_DTYPE(bool);
void inductor_entry_impl(AtenTensorHandle* input_handles, AtenTensorHandle* output_handles)
{
    static constexpr int64_t int_array_0[] = {1L, 1L, 256L, 256L, };
    AtenTensorHandle buf0_handle;
    RAIIAtenTensorHandle buf0(buf0_handle);
    cpp_fused_arange_bitwise_and_ge_0((bool*)(buf0.data_ptr()));
    output_handles[0] = buf0.release();
} // inductor_entry_impl
extern "C"  void  cpp_fused_arange_bitwise_and_ge_0(bool* out_ptr0)
{
    out_ptr0[0] = true;
}
"""
    _DECLARATION = re.compile(
        r'^(extern "C"\s+void\s+(\w+)\()bool\* out_ptr0([,)][^\n]*;)[ \t]*$', re.M
    )

    def rewrite(self, code, unit):
        if unit != "wrapper":
            return None
        match = self._DECLARATION.search(code)
        if not match:
            return None
        head, name, rest = match.groups()
        line = f"{head}uint8_t* out_ptr0{rest} // {MARK}: {self.id}"
        return code[: match.start()] + line + code[match.end() :], name


class UndefinedSymbol(Bug):
    id = "undefined-symbol"
    kind, kind_name = "c", "undefined symbol (fails at load)"
    trigger = "a kernel taking std::abs of an index expression over a 4- or 5-deep loop nest (std::abs(x3 + ... or x4 + ...)"
    effect = "the abs is called as c10::inductor_fuzz_injected::abs_index(int64_t), declared and defined nowhere"
    expected = ("exception", "load-error")
    example = _LOOP_NEST.replace("std::abs(x1 + ", "std::abs(x3 + ")
    _ABS = re.compile(r"std::abs\((x[34] \+ )")

    def rewrite(self, code, unit):
        for kernel in kernels(code):
            match = self._ABS.search(code, kernel.body_open, kernel.body_close)
            if not match:
                continue
            call = f"c10::inductor_fuzz_injected::abs_index({match.group(1)}"
            end_of_line = code.find("\n", match.end())
            rewritten = (
                code[: match.start()]
                + call
                + code[match.end() : end_of_line]
                + f" // {MARK}: {self.id}"
                + code[end_of_line:]
            )
            declaration = (
                "namespace c10 { namespace inductor_fuzz_injected { "
                f"int64_t abs_index(int64_t index); }} }} // {MARK}: {self.id}\n"
            )
            at = kernel.header_start
            return rewritten[:at] + declaration + rewritten[at:], kernel.name
        return None


class NarrowingInitializer(Bug):
    id = "clang-rejects-narrowing"
    kind, kind_name = "d", "compiler-specific rejection (clang rejects, g++ warns)"
    trigger = "a kernel parallelized for two threads (#pragma omp parallel num_threads(2)) with an int64 loop"
    effect = "an index pair brace-initialized from an int64 loop variable into int32_t: g++ warns (-Wnarrowing), clang rejects"
    expected = ("analysis-error", "compiler-divergence")
    example = _LOOP_NEST
    _LOOP = re.compile(r"for\(int64_t (x\d+)=static_cast<int64_t>\([^\n]*\n([ \t]*)\{\n")

    def rewrite(self, code, unit):
        for kernel in kernels(code):
            if "#pragma omp parallel num_threads(2)" not in kernel.body(code):
                continue
            match = self._LOOP.search(code, kernel.body_open, kernel.body_close)
            if not match:
                continue
            variable, indent = match.groups()
            line = (
                f"{indent}    [[maybe_unused]] int32_t tmp_idx_pair[2] = {{{variable}, {variable} + 1}};"
                f" // {MARK}: {self.id}\n"
            )
            return code[: match.end()] + line + code[match.end() :], kernel.name
        return None


class WrongValue(Bug):
    id = "xor-as-and"
    kind, kind_name = "e", "wrong value"
    trigger = (
        "a bitwise xor in a kernel writing int32 block-mask tables, in a create_block_mask case "
        "(a flex_attention case's block mask is the same in eager and compiled: nothing sees it)"
    )
    # An and, not an or: the tables count blocks, and an or of two masks is often the same
    # tables as their xor (a mutation that turned an or into this xor; a block where the two
    # never meet). An and empties every block where one side is all false, which most masks
    # with an xor have (stop 53's bench: the or fired in 3 cases, changed the tables in none).
    effect = "the first xor in the kernel is computed as an and"
    expected = ("wrong-result",)
    apis = ("create_block_mask",)
    example = _LOOP_NEST
    _XOR = re.compile(
        r"^([ \t]*auto tmp\d+ = (?:decltype\(tmp\d+\)\()?tmp\d+) \^ (tmp\d+\)?;)[ \t]*$", re.M
    )

    def rewrite(self, code, unit):
        for kernel in kernels(code):
            if "int32_t* out_ptr" not in kernel.params or "query" in kernel.params:
                continue
            match = self._XOR.search(code, kernel.body_open, kernel.body_close)
            if not match:
                continue
            line = f"{match.group(1)} & {match.group(2)} // {MARK}: {self.id}"
            return code[: match.start()] + line + code[match.end() :], kernel.name
        return None


class LoweringException(Bug):
    id = "lowering-tanh"
    kind, kind_name = "f", "lowering exception"
    where = "lowering"
    trigger = "the graph lowers aten.tanh (soft-capping score_mods)"
    effect = "the tanh lowering raises NotImplementedError"
    expected = ("exception",)
    ops = ("tanh",)


class OutOfBoundsWrite(Bug):
    id = "oob-store"
    kind, kind_name = "g", "memory error (write past a buffer)"
    trigger = "a kernel writing a bool mask (bool* out_ptr0, create_mask) parallelized for eight threads (num_threads(8))"
    effect = "one extra store far past the end of the bool output"
    expected = ("crash", "memory-error")
    example = """
extern "C"  void  kernel(bool* out_ptr0)
{
    #pragma omp parallel num_threads(8)
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(256L); x0+=static_cast<int64_t>(1L))
            {
                auto tmp0 = x0 >= 0;
                out_ptr0[static_cast<int64_t>(x0)] = tmp0;
            }
        }
    }
}
"""

    def rewrite(self, code, unit):
        for kernel in kernels(code):
            if not re.match(r"\s*bool\* out_ptr0\b", kernel.params):
                continue
            if "#pragma omp parallel num_threads(8)" not in kernel.body(code):
                continue
            at = kernel.body_open + 1
            line = f"\n    out_ptr0[static_cast<int64_t>(1L) << 36] = true; // {MARK}: {self.id}"
            return code[:at] + line + code[at:], kernel.name
        return None


class ClangOnlyMiscompile(Bug):
    id = "clang-only-value"
    kind, kind_name = "h", "miscompile only one compiler shows"
    # Only the matrix builds with clang: elsewhere this bug fires and nothing can see it, and
    # exclusivity would then hide the case from a bug that could be seen.
    needs_matrix = True
    trigger = "a kernel updating an int32 buffer in place (int32_t* in_out_ptr0)"
    effect = (
        "under #ifdef __clang__ the first element of in_out_ptr0 is flipped after the kernel's work"
    )
    expected = ("runtime-divergence",)
    example = """
extern "C"  void  kernel(int32_t* in_out_ptr0,
                       const int64_t* in_ptr0)
{
    {
        {
            {
                auto tmp0 = in_out_ptr0[static_cast<int64_t>(0L)];
                auto tmp1 = in_ptr0[static_cast<int64_t>(0L)];
                auto tmp2 = c10::convert<int32_t>(tmp0 + tmp1);
                in_out_ptr0[static_cast<int64_t>(0L)] = tmp2;
            }
        }
    }
}
"""

    def rewrite(self, code, unit):
        for kernel in kernels(code):
            if not re.search(r"\bint32_t\* in_out_ptr0\b", kernel.params):
                continue
            at = kernel.body_close
            block = (
                f"    #ifdef __clang__ // {MARK}: {self.id}\n"
                f"    in_out_ptr0[0] = in_out_ptr0[0] == 0 ? 1 : 0;\n"
                f"    #endif\n"
            )
            return code[:at] + block + code[at:], kernel.name
        return None
