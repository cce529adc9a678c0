# The failing test of bench/ci_log_to_repro.sh: torch 2.15.0 compiles a flex_attention score_mod
# that returns a bool into C++ that g++ rejects (CppCompileError), here inside a pytest test.
import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention


def score_mod(score, b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def test_bool_score_mod():
    q, k, v = (torch.randn(1, 2, 300, 32) for _ in range(3))
    block_mask = create_block_mask(causal, 1, 2, 300, 300, device="cpu")
    torch.compile(flex_attention)(q, k, v, score_mod=score_mod, block_mask=block_mask)
