"""Injected bugs for bench/bucket_quality.sh: known causes planted in torch's Inductor at run time.

Each bug rewrites the C++ Inductor generates (before it is written and compiled) or a lowering,
when its trigger, a feature of the generated code or of the graph, appears. The campaign
then finds what each one causes, and bench/injected_bugs/score.py checks how its findings were
grouped into bugs: one cause should make one bug, and no bug should mix two causes.

Loaded by sitecustomize.py (this folder on PYTHONPATH). Importing this module imports nothing
from torch; install() patches torch._inductor.codecache and torch._inductor.lowering when they
are first imported (or at once if they already are).

Environment:
  INDUCTOR_FUZZ_INJECT      which bugs are on: unset or "all" (default) for all; "none" for
                            none; else ids or kind letters, comma-separated ("a,b,wrong-value")
  INDUCTOR_FUZZ_INJECT_LOG  a JSON-lines file: one line per firing (bug id, kind, the case's
                            name, seed and index, the kernel, pid, time); no log when unset
  INDUCTOR_FUZZ_INJECT_MATRIX_EVERY
                            the campaign's --matrix-every K: a bug only the compiler matrix can
                            see (needs_matrix) fires only in cases whose index is a multiple of
                            K, where the matrix runs; everywhere when unset or 0
  INDUCTOR_FUZZ_INJECT_EXCLUSIVE
                            "0" lets several bugs fire in one case; by default the first bug
                            that fires in a case is the only one there, so that every finding
                            has one injected cause (later matches are logged as "suppressed")

A case is known by the worker's run_case frame (its case dict: name, seed, index) or else by
the campaign's cache folder, TORCHINDUCTOR_CACHE_DIR=.../case-<index>/inductor-cache. Only
torch.compile's own compile is changed: C++ that eager flex_attention compiles internally is
left alone, or eager, the reference, would break and the case would be invalid.
"""

import importlib.abc
import json
import os
import re
import sys
import threading
import time

LOG_ENV = "INDUCTOR_FUZZ_INJECT_LOG"
SELECT_ENV = "INDUCTOR_FUZZ_INJECT"
EXCLUSIVE_ENV = "INDUCTOR_FUZZ_INJECT_EXCLUSIVE"
MATRIX_EVERY_ENV = "INDUCTOR_FUZZ_INJECT_MATRIX_EVERY"
MARK = "inductor-fuzz injected"  # in every rewrite's comment and every raised message


# --------------------------------------------------------------------------------------------
# Reading generated C++


def _skip_literal(code, i):
    """Index after the string, character literal or comment starting at code[i], else i."""
    c = code[i]
    if c in "\"'":
        j = i + 1
        while j < len(code) and code[j] != c:
            j += 2 if code[j] == "\\" else 1
        return j + 1
    if code.startswith("//", i):
        j = code.find("\n", i)
        return len(code) if j < 0 else j
    if code.startswith("/*", i):
        j = code.find("*/", i + 2)
        return len(code) if j < 0 else j + 2
    return i


def matching_brace(code, open_index):
    """Index of the "}" closing the "{" at open_index (string literals and comments skipped)."""
    depth, i = 0, open_index
    while i < len(code):
        j = _skip_literal(code, i)
        if j != i:
            i = j
            continue
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError("unbalanced braces")


_FUNCTION = re.compile(r'extern "C"\s+void\s+(\w+)\s*\(([^)]*)\)\s*([;{])')


class Kernel:
    """An extern "C" function defined in a TU: name, parameter text, body span."""

    def __init__(self, name, params, header_start, body_open, body_close):
        self.name, self.params = name, params
        self.header_start, self.body_open, self.body_close = header_start, body_open, body_close

    def body(self, code):
        return code[self.body_open + 1 : self.body_close]


def kernels(code):
    """The extern "C" functions code defines (forward declarations skipped), in order."""
    found = []
    for match in _FUNCTION.finditer(code):
        if match.group(3) != "{":
            continue
        if found and match.start() < found[-1].body_close:
            continue  # inside the previous function (cannot happen in Inductor's output)
        close = matching_brace(code, match.end(3) - 1)
        found.append(Kernel(match.group(1), match.group(2), match.start(), match.end(3) - 1, close))
    return found


# --------------------------------------------------------------------------------------------
# The bugs


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


# The CPU flex_attention template (torch/_inductor/codegen/cpp_flex_attention_template.py) in
# its two variants, trimmed from real TUs Inductor 2.15 generated (flex_attention under
# torch.compile, causal block mask). The prefill variant: one q block of qSplitSize rows per
# task, each output row written by the at::vec::map after the KV loop.
_FLEX_PREFILL = """
extern "C"
void kernel(const {scalar}* query, const {scalar}* key, const {scalar}* value, const int32_t* kv_num_blocks, const int32_t* kv_indices, const int32_t* full_kv_num_blocks, const int32_t* full_kv_indices, {scalar}* output)
{{


  // dtypes
  using scalar_t = {scalar};
  constexpr bool is_reduced_type = c10::is_reduced_floating_point_v<scalar_t>;
  using accum_t = at::opmath_type<{scalar}>;
  using Vec = at::vec::Vectorized<accum_t>;
  accum_t scaling_factor = {scale};

  // sizes
  int64_t qBlockSize = 128;
  int64_t kvBlockSize = 128;
  int64_t num_thread = 2;
  int64_t batchSize = static_cast<int64_t>(1L);
  int64_t qSize = static_cast<int64_t>({q_len}L);
  int64_t num_head = static_cast<int64_t>(2L);
  int64_t headSize = static_cast<int64_t>({head_dim}L);
  int64_t batchSize_k = static_cast<int64_t>(1L);
  int64_t num_head_k = static_cast<int64_t>(2L);
  int64_t headSize_v = static_cast<int64_t>({head_dim}L);

  int64_t kvSize = static_cast<int64_t>({q_len}L);

  int64_t qSplitSize = qBlockSize;
  int64_t kvSplitSize = kvBlockSize;

  qSplitSize = qSplitSize > qSize ? qSize : qSplitSize;
  kvSplitSize = kvSplitSize > kvSize ? kvSize : kvSplitSize;
  int64_t qSlice = (qSize + qSplitSize - 1) / qSplitSize;
  int64_t kvSlice = (kvSize + kvSplitSize - 1) / kvSplitSize;
  int64_t kvTail = (kvSize - 1) % kvSplitSize + 1;
  // Attention loop below
  at::parallel_for(0, batchSize * num_head * qSlice, 1, [&](int64_t begin, int64_t end) {{
    int64_t i = 0, j = 0, k = 0;
    at::native::data_index_init(begin, i, batchSize, j, num_head, k, qSlice);
    int ompIdx = at::get_thread_num();
    accum_t* buf_ptr = buf_data + ompIdx * _size_per_thread;
    accum_t* qk_data_buf = buf_ptr;
    accum_t* qk_max_data = qk_data_buf + eqSplitSize * kvSplitSize;
    accum_t* qk_sum_data = qk_max_data + qSplitSize;
    accum_t* dst_data = qk_sum_data + qSplitSize;

    for ([[maybe_unused]] auto z : c10::irange(begin, end)) {{
      bool is_skip_kv = kv_indice_num + full_kv_indice_num > 0 ? false : true;
      int64_t m = k * qSplitSize;
      int64_t cur_qSplitSize = std::min(qSplitSize, qSize - m);

      // dst <- dst / sum[row]
      // reorder MHA output with strides
      for (int64_t row = 0; row < cur_qSplitSize; ++row) {{
        // Row sums for full masked out rows are 0, we set them to 1
        // in order to avoid NaNs in the output and instead set fully
        // masked out rows to 0
        qk_max_data[row] = qk_max_data[row] == -std::numeric_limits<accum_t>::infinity() ? 0 : qk_max_data[row];
        qk_sum_data[row] = qk_sum_data[row] == 0 ? 1 : qk_sum_data[row];
        accum_t sum_reciprocal = 1 / qk_sum_data[row];
        at::vec::map<scalar_t>(
            [sum_reciprocal, is_skip_kv](Vec x) {{ return  is_skip_kv ? Vec(0.0) : x * Vec(sum_reciprocal); }},
            out_data + i * oStrideB + j * oStrideH + m * oStrideM + row * oStrideM,
            dst_data + row * headSize_v,
            headSize_v);
      }}

      // Move to the next query
      at::native::data_index_step(i, batchSize, j, num_head, k, qSlice);
    }}

    at::native::cpublas::brgemm_release(need_pack);

  }});
}}
"""

# The flash-decoding variant (chosen for static shapes when Q_LEN == 1, KV_LEN / B >=
# max(2 * PARTITION_SIZE, 512) and PARTITION_SIZE a multiple of the KV block size): partitions
# of the KV sequence reduced into partition 0, then rescaled into the output.
_FLEX_DECODING = """
extern "C"
void kernel(const float* query, const float* key, const float* value, const int32_t* kv_num_blocks, const int32_t* kv_indices, const int32_t* full_kv_num_blocks, const int32_t* full_kv_indices, float* output)
{
  // dtypes
  using scalar_t = float;
  constexpr bool is_reduced_type = c10::is_reduced_floating_point_v<scalar_t>;
  using accum_t = at::opmath_type<float>;
  using Vec = at::vec::Vectorized<accum_t>;
  accum_t scaling_factor = 0.125;

  // sizes
  int64_t qBlockSize = 128;
  int64_t kvBlockSize = 128;
  int64_t qSize = static_cast<int64_t>(1L);
  int64_t headSize_v = static_cast<int64_t>(64L);
  int64_t kvSize = static_cast<int64_t>(1024L);

  int64_t qSplitSize = qBlockSize;
  int64_t kvSplitSize = kvBlockSize;

  int64_t PARTITION_SIZE = 128;

  int64_t num_kvblocks_per_seq = kv_num_blocks[0] + full_kv_num_blocks[0];
  int64_t num_kvblocks_per_partition = PARTITION_SIZE / kvBlockSize;
  int64_t num_partitions = (num_kvblocks_per_seq + num_kvblocks_per_partition - 1) / num_kvblocks_per_partition;

  // Calculate the final output
  at::parallel_for(0, batchSize * num_head, 1, [&](int64_t begin, int64_t end) {
    int64_t i = 0, j = 0;
    at::native::data_index_init(begin, i, batchSize, j, num_head);

    for ([[maybe_unused]] auto z : c10::irange(begin, end)) {
      auto global_max = -std::numeric_limits<float>::infinity();
      auto global_exp_sum = 0.0;

      // Update the partition 0 result with the global max
      auto partition0_out_start =
          tmp_out_ptr + i * tmp_out_strideN + j * tmp_out_strideH;

      // Rescale the partition 0 result with global exp_sum
      // Sum for full masked out rows are 0, we set them to 1
      // in order to avoid NaNs in the output and instead set fully
      // masked out rows to 0
      global_exp_sum = global_exp_sum == 0 ? 1 : global_exp_sum;
      float sum_reciprocal = 1.0 / global_exp_sum;
      // copy the partition 0 result into output
      at::vec::map<scalar_t>(
          [sum_reciprocal](Vec x) { return x * Vec(sum_reciprocal); },
          out_data + i * oStrideB + j * oStrideH,
          partition0_out_start,
          headSize_v);

      // Move to the next query
      at::native::data_index_step(i, batchSize, j, num_head);
    }

  });
}
"""

_SCALAR_T = re.compile(r"^[ \t]*using scalar_t = ([\w:]+);", re.M)
_HEAD_SIZE_V = re.compile(r"^[ \t]*int64_t headSize_v = static_cast<int64_t>\((\d+)L\);", re.M)
_PREFILL_RECIPROCAL = re.compile(
    r"^([ \t]*)accum_t sum_reciprocal = 1 / (qk_sum_data\[row\]);[ \t]*$", re.M
)
TAIL_HEAD_DIM = 64  # flex-tail-dims fires from this value head dim (headSize_v) up
TAIL_COLUMNS = 4  # the columns it zeroes


def _flex_kernel(code, variant):
    """The kernel of the CPU flex template's `variant` ("prefill" or "decoding") in code, or
    None. Both variants share the template's prologue (qSplitSize); only flash decoding has
    num_kvblocks_per_partition."""
    for kernel in kernels(code):
        body = kernel.body(code)
        if "qSplitSize" not in body:
            continue
        decoding = "num_kvblocks_per_partition" in body
        if decoding == (variant == "decoding"):
            return kernel
    return None


def _flex_settings(code, kernel):
    """(scalar_t, value head dim or None when not a literal) of a flex template kernel."""
    body = kernel.body(code)
    scalar = _SCALAR_T.search(body)
    head_dim = _HEAD_SIZE_V.search(body)
    return (scalar.group(1) if scalar else ""), (int(head_dim.group(1)) if head_dim else None)


def _tail_head_dim(head_dim):
    return head_dim is not None and head_dim >= TAIL_HEAD_DIM


def _reduced(scalar):
    return re.search(r"(?:BFloat16|Half)$", scalar) is not None


def _rewrite_prefill_reciprocal(bug, code, kernel, numerator):
    match = _PREFILL_RECIPROCAL.search(code, kernel.body_open, kernel.body_close)
    if not match:
        return None
    indent, divisor = match.groups()
    line = f"{indent}accum_t sum_reciprocal = {numerator} / {divisor}; // {MARK}: {bug.id}"
    return code[: match.start()] + line + code[match.end() :], kernel.name


class FlexScaleOut(Bug):
    id = "flex-scale-out"
    kind, kind_name = "i", "wrong value (flex_attention output scaled)"
    trigger = (
        "the CPU flex_attention prefill template (not flash decoding) with float32 q/k/v "
        f"(using scalar_t = float) and a value head dim below {TAIL_HEAD_DIM} or symbolic"
    )
    effect = "every output row is normalized by 1.5 / sum instead of 1 / sum: the whole output is 1.5x eager's"
    expected = ("wrong-result",)
    example = _FLEX_PREFILL.format(
        scalar="float", scale="0.17677669529663687", q_len=200, head_dim=32
    )

    def rewrite(self, code, unit):
        kernel = _flex_kernel(code, "prefill")
        if kernel is None:
            return None
        scalar, head_dim = _flex_settings(code, kernel)
        if scalar != "float" or _tail_head_dim(head_dim):
            return None
        return _rewrite_prefill_reciprocal(self, code, kernel, "static_cast<accum_t>(1.5)")


class FlexTailDims(Bug):
    id = "flex-tail-dims"
    kind, kind_name = "j", "wrong value (flex_attention output's last head-dim columns zero)"
    trigger = (
        "the CPU flex_attention prefill template (not flash decoding), any dtype, with a value "
        f"head dim (headSize_v) of {TAIL_HEAD_DIM} or more"
    )
    effect = (
        f"after each output row is written, its last {TAIL_COLUMNS} head-dim columns are set to 0; "
        "the other columns stay right"
    )
    expected = ("wrong-result",)
    example = _FLEX_PREFILL.format(scalar="float", scale="0.125", q_len=256, head_dim=64)
    _MAP = re.compile(
        r"^([ \t]*)at::vec::map<scalar_t>\(\n[^\n]*\n[ \t]*(out_data \+ [^\n]*),\n"
        r"[ \t]*dst_data \+ row \* headSize_v,\n[ \t]*headSize_v\);[ \t]*$",
        re.M,
    )

    def rewrite(self, code, unit):
        kernel = _flex_kernel(code, "prefill")
        if kernel is None:
            return None
        _, head_dim = _flex_settings(code, kernel)
        if not _tail_head_dim(head_dim):
            return None
        match = self._MAP.search(code, kernel.body_open, kernel.body_close)
        if not match:
            return None
        indent, destination = match.groups()
        line = (
            f"\n{indent}for (int64_t col = headSize_v - {TAIL_COLUMNS}; col < headSize_v; ++col) "
            f"{{ ({destination})[col] = static_cast<scalar_t>(0); }} // {MARK}: {self.id}"
        )
        return code[: match.end()] + line + code[match.end() :], kernel.name


class FlexDecodeOffset(Bug):
    id = "flex-decode-offset"
    kind, kind_name = "k", "wrong value (flex_attention flash-decoding output offset)"
    trigger = (
        "the CPU flex_attention flash-decoding template (num_kvblocks_per_partition: static "
        "shapes, Q_LEN 1, KV_LEN / B >= max(2 * PARTITION_SIZE, 512)), any dtype or head dim"
    )
    effect = "0.25 is added to every output element when partition 0 is rescaled into the output"
    expected = ("wrong-result",)
    example = _FLEX_DECODING
    _MAP = re.compile(
        r"^([ \t]*)\[sum_reciprocal\]\(Vec x\) \{ return x \* Vec\(sum_reciprocal\); \},[ \t]*$",
        re.M,
    )

    def rewrite(self, code, unit):
        kernel = _flex_kernel(code, "decoding")
        if kernel is None:
            return None
        match = self._MAP.search(code, kernel.body_open, kernel.body_close)
        if not match:
            return None
        line = (
            f"{match.group(1)}[sum_reciprocal](Vec x) {{ return x * Vec(sum_reciprocal) + Vec(0.25f); }},"
            f" // {MARK}: {self.id}"
        )
        return code[: match.start()] + line + code[match.end() :], kernel.name


class FlexHalfFirstRow(Bug):
    id = "flex-half-first-row"
    kind, kind_name = "l", "wrong value (flex_attention first row of each q block negated)"
    trigger = (
        "the CPU flex_attention prefill template (not flash decoding) with bfloat16 or float16 "
        f"q/k/v (scalar_t at::BFloat16 or at::Half) and a value head dim below {TAIL_HEAD_DIM} or symbolic"
    )
    effect = (
        "the first row of each q block (query index a multiple of the block's qSplitSize) is "
        "normalized by -1 / sum: that row's output is negated, the other rows stay right"
    )
    expected = ("wrong-result",)
    example = _FLEX_PREFILL.format(
        scalar="at::Half", scale="0.17677669529663687", q_len=200, head_dim=32
    )

    def rewrite(self, code, unit):
        kernel = _flex_kernel(code, "prefill")
        if kernel is None:
            return None
        scalar, head_dim = _flex_settings(code, kernel)
        if not _reduced(scalar) or _tail_head_dim(head_dim):
            return None
        numerator = "(row == 0 ? static_cast<accum_t>(-1) : static_cast<accum_t>(1))"
        return _rewrite_prefill_reciprocal(self, code, kernel, numerator)


class CreateMaskHeads(Bug):
    id = "create-mask-heads"
    kind, kind_name = "m", "wrong value (create_mask slices after the first head inverted)"
    trigger = (
        "in a create_mask case, a kernel writing a bool mask (bool* out_ptr0, no int32 tables) "
        "over a loop nest 3 or more deep (batch or heads outermost: B*H > 1), "
        "not parallelized for eight threads (that is oob-store's)"
    )
    effect = (
        "every entry stored while the outermost loop index x0 is above 0 is inverted: the first "
        "slice of the outermost loop stays right, all later ones are flipped (every (b, h) but "
        "(0, 0) when b and h share that loop; every batch but the first when the nest is 4 deep)"
    )
    expected = ("wrong-result",)
    apis = ("create_mask",)
    example = """
extern "C"  void  kernel(bool* out_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(8L); x0+=static_cast<int64_t>(1L))
            {
                #pragma GCC ivdep
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(1L))
                {
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(50L); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(48L)))
                            {
                                auto tmp0 = x1 + ((-1L)*x2);
                                auto tmp1 = c10::convert<int64_t>(tmp0);
                                auto tmp2 = at::vec::VectorizedN<int64_t,2>::arange(tmp1, -1);
                                auto tmp3 = x0;
                                auto tmp4 = c10::convert<int64_t>(tmp3);
                                auto tmp5 = at::vec::VectorizedN<int64_t,2>(tmp4);
                                auto tmp6 = at::vec::VecMask<int64_t,2>(tmp2 <= tmp5);
                                tmp6.store(out_ptr0 + static_cast<int64_t>(x2 + 50L*x1 + 3200L*x0), static_cast<int64_t>(16));
                            }
                            if(C10_UNLIKELY(x2 >= static_cast<int64_t>(48L) && x2 < static_cast<int64_t>(50L)))
                            {
                                auto tmp0 = x1 + ((-1L)*x2);
                                auto tmp1 = c10::convert<int64_t>(tmp0);
                                auto tmp2 = at::vec::VectorizedN<int64_t,2>::arange(tmp1, -1);
                                auto tmp3 = x0;
                                auto tmp4 = c10::convert<int64_t>(tmp3);
                                auto tmp5 = at::vec::VectorizedN<int64_t,2>(tmp4);
                                auto tmp6 = at::vec::VecMask<int64_t,2>(tmp2 <= tmp5);
                                tmp6.store(out_ptr0 + static_cast<int64_t>(x2 + 50L*x1 + 3200L*x0), static_cast<int64_t>(2L));
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
"""
    # A vectorized store (always with its element count for bool) and a scalar one.
    _VECTOR_STORE = re.compile(r"^([ \t]*)(tmp\d+)\.store\((out_ptr0 \+ [^\n]*)\);[ \t]*$", re.M)
    _SCALAR_STORE = re.compile(r"^([ \t]*out_ptr0\[[^\n]*\] = )([^\n;]+);[ \t]*$", re.M)
    _HELPER = (
        "namespace inductor_fuzz_injected {{ // {mark}: {id}\n"
        "template <typename V> inline void flip_store(V value, bool* at, int64_t count, bool flip) {{\n"
        "    value.store(at, count);\n"
        "    if (flip) for (int64_t i = 0; i < count; ++i) at[i] = !at[i];\n"
        "}}\n"
        "}}\n"
    )

    def rewrite(self, code, unit):
        for kernel in kernels(code):
            params = kernel.params
            if not re.search(r"\bbool\* out_ptr0\b", params) or "int32_t*" in params:
                continue
            if re.search(r"\bout_ptr[1-9]", params):
                continue
            body = kernel.body(code)
            if "num_threads(8)" in body:
                continue
            if "for(int64_t x0=" not in body or "for(int64_t x2=" not in body:
                continue
            pieces, at, changed, vector = [], kernel.body_open, False, False
            for match in sorted(
                [
                    *self._VECTOR_STORE.finditer(code, kernel.body_open, kernel.body_close),
                    *self._SCALAR_STORE.finditer(code, kernel.body_open, kernel.body_close),
                ],
                key=lambda m: m.start(),
            ):
                if match.re is self._VECTOR_STORE:
                    indent, value, args = match.groups()
                    if len(_top_level_args(args)) != 2:
                        continue  # no element count: left alone
                    line = f"{indent}inductor_fuzz_injected::flip_store({value}, {args}, x0 > 0);"
                    vector = True
                else:
                    target, value = match.groups()
                    line = f"{target}(x0 > 0) != static_cast<bool>({value});"
                pieces += [code[at : match.start()], f"{line} // {MARK}: {self.id}"]
                at, changed = match.end(), True
            if not changed:
                continue
            rewritten = code[: kernel.body_open] + "".join(pieces) + code[at:]
            helper = self._HELPER.format(mark=MARK, id=self.id) if vector else ""
            return (
                rewritten[: kernel.header_start] + helper + rewritten[kernel.header_start :],
                kernel.name,
            )
        return None


def _top_level_args(text):
    """text split at its commas outside parentheses."""
    args, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
    args.append(text[start:].strip())
    return args


BUGS = [
    RedeclaredLocal(),
    WrapperDeclarationMismatch(),
    UndefinedSymbol(),
    NarrowingInitializer(),
    WrongValue(),
    LoweringException(),
    OutOfBoundsWrite(),
    ClangOnlyMiscompile(),
    FlexScaleOut(),
    FlexTailDims(),
    FlexDecodeOffset(),
    FlexHalfFirstRow(),
    CreateMaskHeads(),
]


def catalogue():
    return [bug.describe() for bug in BUGS]


def selected(value=None):
    """The bugs INDUCTOR_FUZZ_INJECT turns on."""
    value = os.environ.get(SELECT_ENV) if value is None else value
    if value is None or value.strip().lower() in ("", "all"):
        return list(BUGS)
    names = {part.strip() for part in value.split(",") if part.strip()}
    if names & {"none", "off", "0"}:
        return []
    unknown = names - {bug.id for bug in BUGS} - {bug.kind for bug in BUGS}
    if unknown:
        sys.stderr.write(
            f"inductor_fuzz_inject: unknown bug(s) {sorted(unknown)} in {SELECT_ENV}\n"
        )
    return [bug for bug in BUGS if bug.id in names or bug.kind in names]


# --------------------------------------------------------------------------------------------
# Where a firing happens, and its log

_lock = threading.Lock()
_fired_in_case = {}  # case key -> the bug that fired first in it


def case_context():
    """(phase, case fields): phase "compile" inside the worker's Api.run_compiled, "eager"
    inside its eager run, "" outside the worker (a repro script, a test)."""
    context = {"case": None, "seed": None, "index": None}
    cache_dir = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "")
    match = re.search(r"(?:^|/)case-(\d+)(?:/|$)", cache_dir)
    if match:
        context["index"] = int(match.group(1))
    context["cache_dir"] = cache_dir
    # A probe's rerun of the case with one setting put back (fuzzer/campaign/probe.h) runs in
    # CASE/probe-K/: what fires there is not what the case's own finding came from.
    if re.search(r"(?:^|/)probe-\d+(?:/|$)", cache_dir):
        context["probe"] = True
    phase = ""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_name
        if name == "run_compiled" and not phase:
            phase = "compile"
        elif name in ("run_eager", "make_inputs") and not phase:
            phase = "eager"
        elif name == "run_case" and isinstance(frame.f_locals.get("case"), dict):
            case = frame.f_locals["case"]
            provenance = case.get("provenance") or {}
            context["case"] = case.get("name")
            context["api"] = case.get("api")
            context["seed"] = provenance.get("seed", context["seed"])
            context["index"] = provenance.get("index", context["index"])
            break
        frame = frame.f_back
    return phase, context


def _log(record):
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    line = (json.dumps(record, sort_keys=True) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)  # one write of one line: lines of processes at once never interleave
    finally:
        os.close(fd)


def case_folder(cache_dir):
    """The case's own folder for an Inductor cache folder under it. Inductor compiles some
    graphs (a call sequence's recompile, a cpp_wrapper build) in a fresh temporary folder below
    the case's cache; the campaign's probe reruns the case in CASE/probe-K/inductor-cache (and
    what a rerun showed in CASE/probe-K/probe-J/...), run-case in OUT/probe/probe-K/...; the
    sanitizer's rerun in CASE/sanitized/... All of them are the one case."""
    match = re.match(r"(.*?/case-\d+)(?:/|$)", cache_dir)
    if match:
        return match.group(1)
    folder = re.sub(r"/inductor-cache(?:/.*)?$", "", cache_dir)
    return re.sub(r"(?:/probe(?:-\d+)?)+$", "", folder)


FIRST_BUG_FILE = ".inductor-fuzz-injected-first"


def _first_bug(folder, key, bug_id):
    """The bug that fired first in the case: kept in a file in the case's folder when it exists,
    since a crash's reruns each start a new worker process; else in this process."""
    if folder and os.path.isdir(folder):
        path = os.path.join(folder, FIRST_BUG_FILE)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            with open(path) as taken:
                return taken.read().strip() or bug_id
        with os.fdopen(fd, "w") as taking:
            taking.write(bug_id)
        return bug_id
    return _fired_in_case.setdefault(key, bug_id)


def _may_fire(bug, context):
    """Whether bug may fire in this case: it is the first to fire there, or several may."""
    folder = case_folder(context.get("cache_dir") or "")
    key = (os.getpid(), folder, context.get("case"), context.get("index"))
    exclusive = os.environ.get(EXCLUSIVE_ENV, "1") != "0"
    with _lock:
        first = _first_bug(folder, key, bug.id)
    return not exclusive or first == bug.id


def fire(bug, context, where):
    """Records a firing of bug; False when an earlier bug in the case has the case."""
    allowed = _may_fire(bug, context)
    record = {
        "bug": bug.id,
        "kind": bug.kind,
        "case": context.get("case"),
        "seed": context.get("seed"),
        "index": context.get("index"),
        "where": where,
        "pid": os.getpid(),
        "time": round(time.time(), 3),
    }
    if not allowed:
        record["suppressed"] = True
    if context.get("probe"):
        record["probe"] = True
    _log(record)
    return allowed


def reset():
    """Forgets which bug fired in which case (tests)."""
    with _lock:
        _fired_in_case.clear()


def seen_by_matrix(context):
    """Whether the compiler matrix runs on this case (always, when the campaign's K is unknown)."""
    every = os.environ.get(MATRIX_EVERY_ENV, "").strip()
    if not every:
        return True
    if not every.isdigit() or int(every) == 0:
        return False
    return context.get("index") is None or int(context["index"]) % int(every) == 0


def rewrite_source(code, unit, bugs=None):
    """code with the first matching source bug applied; unit is "kernel" or "wrapper"."""
    phase, context = case_context()
    if phase == "eager":
        return code
    for bug in selected() if bugs is None else bugs:
        if bug.where != "source":
            continue
        if bug.apis and context.get("api") and context["api"] not in bug.apis:
            continue
        if bug.needs_matrix and not seen_by_matrix(context):
            continue
        try:
            result = bug.rewrite(code, unit)
        except ValueError:
            result = None
        if result is None:
            continue
        rewritten, where = result
        if fire(bug, context, where):
            return rewritten
    return code


# --------------------------------------------------------------------------------------------
# Patching torch


def patch_codecache(codecache):
    cache = codecache.CppCodeCache
    if getattr(cache.load_async, "_inductor_fuzz_inject", False):
        return
    original = cache.__dict__["load_async"].__func__

    def load_async(cls, main_code, *args, **kwargs):
        unit = "wrapper" if "inductor_entry_impl" in main_code else "kernel"
        main_code = rewrite_source(main_code, unit)
        if kwargs.get("optimized_code"):
            kwargs["optimized_code"] = rewrite_source(kwargs["optimized_code"], "kernel")
        return original(cls, main_code, *args, **kwargs)

    load_async._inductor_fuzz_inject = True
    cache.load_async = classmethod(load_async)


def _raising_lowering(bug, op_name, lowering):
    def injected(*args, **kwargs):
        phase, context = case_context()
        if phase != "eager" and bug in selected() and fire(bug, context, f"aten.{op_name}"):
            raise NotImplementedError(
                f"{MARK}: {bug.id}: no lowering for aten.{op_name} on this input"
            )
        return lowering(*args, **kwargs)

    injected._inductor_fuzz_inject = True
    return injected


def patch_lowering(lowering_module):
    from torch._ops import OpOverload, OpOverloadPacket

    for bug in BUGS:
        if bug.where != "lowering":
            continue
        for target, function in list(lowering_module.lowerings.items()):
            if getattr(function, "_inductor_fuzz_inject", False):
                continue
            if isinstance(target, OpOverload):
                name = target._schema.name.split("::")[-1]
                namespace = target.namespace
            elif isinstance(target, OpOverloadPacket):
                name, namespace = target._qualified_op_name.split("::")[-1], "aten"
            else:
                continue
            if namespace == "aten" and name in bug.ops:
                lowering_module.lowerings[target] = _raising_lowering(bug, name, function)


_HOOKS = {
    "torch._inductor.codecache": patch_codecache,
    "torch._inductor.lowering": patch_lowering,
}


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, inner, patch):
        self._inner, self._patch = inner, patch

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        try:
            self._patch(module)
        except Exception as error:
            sys.stderr.write(f"inductor_fuzz_inject: cannot patch {module.__name__}: {error!r}\n")

    def __getattr__(self, name):
        return getattr(self._inner, name)


class _PatchingFinder(importlib.abc.MetaPathFinder):
    """Finds the hooked modules through the other finders and patches them once executed."""

    def find_spec(self, name, path=None, target=None):
        patch = _HOOKS.get(name)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _PatchingLoader(spec.loader, patch)
                return spec
        return None


def install():
    """Patches the hooked modules now if imported, else when they are."""
    if not selected():
        return
    if any(isinstance(finder, _PatchingFinder) for finder in sys.meta_path):
        return
    sys.meta_path.insert(0, _PatchingFinder())
    for name, patch in _HOOKS.items():
        if name in sys.modules:
            patch(sys.modules[name])
