"""Injected bugs for bench/bucket_quality.sh: known causes planted in torch's Inductor at run time.

Each bug rewrites the C++ Inductor generates (before it is written and compiled) or a lowering,
when its trigger, a feature of the generated code or of the graph, appears. The campaign
then finds what each one causes, and bench/injected_bugs/score.py checks how its findings were
grouped into bugs: one cause should make one bug, and no bug should mix two causes.

Loaded by sitecustomize.py (this folder on PYTHONPATH). Importing this package imports nothing
from torch; install() patches torch._inductor.codecache and torch._inductor.lowering when they
are first imported (or at once if they already are).

Environment:
  INDUCTOR_FUZZ_INJECT      which bugs are on: unset or "all" (default) for all; "none" for
                            none; else ids, kind letters or set names ("first": a..m,
                            "second": n..q), comma-separated ("a,b,xor-as-and", "second")
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

The package: scan.py reads generated C++, bugs.py (the Bug interface, kinds a..h),
flex_bugs.py (i..l) and mask_bugs.py (m) are the first set,
second_set.py (n..q) the second, runtime.py selects them and records
their firings, hooks.py patches torch. This module re-exports the names sitecustomize.py,
score.py and tests/python/test_injected_bugs.py use, with the submodules' other public names.
"""

from .bugs import (
    MARK,
    Bug,
    ClangOnlyMiscompile,
    LoweringException,
    NarrowingInitializer,
    OutOfBoundsWrite,
    RedeclaredLocal,
    UndefinedSymbol,
    WrapperDeclarationMismatch,
    WrongValue,
)
from .flex_bugs import (
    TAIL_COLUMNS,
    TAIL_HEAD_DIM,
    FlexDecodeOffset,
    FlexHalfFirstRow,
    FlexScaleOut,
    FlexTailDims,
)
from .hooks import install, patch_codecache, patch_lowering
from .mask_bugs import CreateMaskHeads
from .runtime import (
    BUGS,
    EXCLUSIVE_ENV,
    FIRST_BUG_FILE,
    LOG_ENV,
    MATRIX_EVERY_ENV,
    SELECT_ENV,
    SETS,
    _may_fire,  # tests/python: whether a bug may take a case
    case_context,
    case_folder,
    catalogue,
    fire,
    reset,
    rewrite_source,
    seen_by_matrix,
    selected,
)
from .scan import Kernel, kernels, matching_brace
from .second_set import (
    SECOND_SET,
    BlockCountLow,
    ClampArity,
    ClampConversion,
    RedeclaredVectorLoad,
)

__all__ = [
    "BUGS",
    "EXCLUSIVE_ENV",
    "FIRST_BUG_FILE",
    "LOG_ENV",
    "MARK",
    "MATRIX_EVERY_ENV",
    "SECOND_SET",
    "SELECT_ENV",
    "SETS",
    "TAIL_COLUMNS",
    "TAIL_HEAD_DIM",
    "BlockCountLow",
    "Bug",
    "ClampArity",
    "ClampConversion",
    "ClangOnlyMiscompile",
    "CreateMaskHeads",
    "FlexDecodeOffset",
    "FlexHalfFirstRow",
    "FlexScaleOut",
    "FlexTailDims",
    "Kernel",
    "LoweringException",
    "NarrowingInitializer",
    "OutOfBoundsWrite",
    "RedeclaredVectorLoad",
    "RedeclaredLocal",
    "UndefinedSymbol",
    "WrapperDeclarationMismatch",
    "WrongValue",
    "_may_fire",
    "case_context",
    "case_folder",
    "catalogue",
    "fire",
    "install",
    "kernels",
    "matching_brace",
    "patch_codecache",
    "patch_lowering",
    "reset",
    "rewrite_source",
    "seen_by_matrix",
    "selected",
]
