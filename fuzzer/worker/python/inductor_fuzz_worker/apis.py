"""The registry of the APIs a case may call: each API's name (a case's "api") and the class of
its oracle, one module per API. A new API is its module (a subclass of api_base.ApiBase) and
its row here; the repro script pastes what the rows import (repro_script.cpp follows the
`from .NAME import` lines from oracles.py).

Like oracles.py, the repro script embeds this file verbatim, so it imports from its package
only modules pasted before it, with a fallback.
"""

try:
    from .api_block_mask import CreateBlockMask
    from .api_flex_attention import FlexAttention
    from .api_index_program import IndexProgram
    from .api_mask import CreateMask
    from .api_tensor_program import TensorProgram
except ImportError:  # pasted into a repro script, after the text of the modules above
    pass

# api name: the class of its oracle
APIS = {
    "create_block_mask": CreateBlockMask,
    "create_mask": CreateMask,
    "flex_attention": FlexAttention,
    "index_program": IndexProgram,
    "tensor_program": TensorProgram,
}


def api_class(name):
    """The class of API `name`'s oracle; ValueError for an API the worker does not know."""
    if name not in APIS:
        raise ValueError(f"unknown api {name!r}; known: {', '.join(APIS)}")
    return APIS[name]
