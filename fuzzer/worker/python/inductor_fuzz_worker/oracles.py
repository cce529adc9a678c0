"""The oracles: how a case's API runs eagerly and compiled, and how the two results compare.

This is the one implementation: the worker runs cases with it, and the repro script that
`inductor-fuzz gen --python` writes embeds this file verbatim and calls the same functions
(this module's names, among them those it imports from exceptions.py and plants.py for it). It
pastes the text of every module this one imports before it, and of theirs before them:
repro_script.cpp follows the `from .NAME import` lines from here. So the modules import from
their package only under `except ImportError`, and otherwise only the standard library and
torch. Each API is a class of its own module (api_*.py), which the registry (apis.py) names;
Api makes the case's.

A comparison yields mismatches, dicts with at least "field" and "problem"; none means the
compiled result agrees with eager. "field" names what differs, so that one wrong field is one
signature.
"""

try:
    from .api_base import AOTI, TORCH_COMPILE, ApiContractError  # noqa: F401 (oracles.X)
    from .apis import api_class
    from .case_calls import (  # noqa: F401 (oracles.X is what callers and tests use)
        CAPTURED_DTYPES,
        CLOSURE_FACTORY,
        COMPILE_FUNCTION,
        COMPILE_MODULE,
        LAYOUTS,
        attention_arguments,
        block_size,
        build_namespace,
        build_program,
        call_count,
        case_for_call,
        compile_environment,
        function_of,
        index_program,
        laid_out,
        mask_arguments,
    )
    from .comparisons import (  # noqa: F401 (oracles.X is what callers and tests use)
        ATTENTION_TOLERANCE,
        BLOCK_MASK_SIZES,
        BLOCK_MASK_TENSORS,
        DEFAULT_BLOCK_Q,
        EAGER_ERROR_FACTOR,
        EVERYWHERE_SHARE,
        HOW_TOKENS,
        PATTERN_SHARE,
        WHERE_TOKENS,
        _indices_used,
        _is_tail,
        _mask_slices,
        _sizes,
        _tails,
        attention_error,
        attention_how,
        attention_where,
        compare_attention,
        compare_block_masks,
        compare_tensors,
        exact_how,
        exact_where,
        fully_masked_rows,
        reference_entry,
    )
    from .exceptions import classify_exception, describe_exception  # noqa: F401 (the script's)
    from .plants import TEST_PLANT_VARIABLE, plant_difference  # noqa: F401 (the script's)
except ImportError:  # pasted into a repro script, after the text of the modules above
    pass

# api_base.py defines the error for every API's module to raise; results name its type as
# oracles' (inductor_fuzz_worker.oracles.ApiContractError), as they did when oracles held it.
ApiContractError.__module__ = __name__


class Api:
    """One case's API, run eagerly and compiled on the same inputs, and compared: Api(case,
    namespace) is an instance of the case's API's class (apis.py), a subclass of ApiBase, whose
    methods are the steps (api_base.py)."""

    def __new__(cls, case, namespace):
        return api_class(case["api"])(case, namespace)
