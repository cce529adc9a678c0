"""A silent wrong value in create_mask's kernels, kind m: later heads' masks inverted.

Only a create_mask case's oracle sees create_mask's mask, so the bug fires in those cases alone
(apis): there the kernel writing the bool mask is rewritten so that every slice of its outermost
loop but the first is inverted, a vectorized store through a small helper declared before it.
"""

import re

from .bugs import MARK, Bug
from .scan import kernels


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
