"""Silent wrong values in the CPU flex_attention template, kinds i..l.

Each fires on its own variant and settings of the template (prefill or flash decoding, the
dtype, the value head dim), so that exactly one of them can fire in a flex_attention case and
every finding has one cause. The trimmed template TUs below are their examples (tests/python).
"""

import re

from .bugs import MARK, Bug
from .scan import kernels

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
