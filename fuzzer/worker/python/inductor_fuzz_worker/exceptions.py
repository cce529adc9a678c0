"""Exceptions described so that one bug gets one signature.

A torch.compile failure arrives wrapped (BackendCompilerFailed around InductorError around the
error that happened), with messages full of temporary paths, addresses and hashes. What stays
the same from run to run is the exception types, the torch functions they went through and
the innermost exception, so that is what a description keeps apart.

The repro script embeds this file verbatim, after compat, so it imports nothing else from its
package.
"""

import os
import re
import traceback

try:
    from .compat import compile_error_parts
except ImportError:  # pasted into a repro script, after compat's own text
    pass

HEX_HASH = re.compile(r"\b[0-9a-f]{16,}\b")
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
TMP_PATH = re.compile(r"(/tmp|/var/tmp)/[^\s'\"]*")
# The symbols of Dynamo's shape environment (s0, u3, zf37, zuf1): numbered in the order a run
# creates them, so the same failure names another one after any change before it.
SHAPE_SYMBOL = re.compile(r"\b(s|u|zf|zuf)\d+\b")
# A fake tensor's repr holds the shape and dtype of whatever the case captured.
FAKE_TENSOR = re.compile(r"FakeTensor\((?:[^()]|\([^()]*\))*\)")

# Exceptions a case can be meant to raise, recognised by what torch says; the class is what a
# case's expect.raises names.
EXPECTED_EXCEPTION_CLASSES = {
    "data-dependent": re.compile(
        r"_local_scalar_dense|data.dependent|DataDependent|\.item\(\)|GuardOnDataDependent"
        r"|unbacked",
        re.IGNORECASE,
    ),
    # What Inductor says it does not do (yet), e.g. flex_attention's return_lse on CPU.
    "unsupported": re.compile(r"not supported yet|only supports inference|is not supported on CPU"),
}

# Enough torch frames to tell two failures apart, few enough to survive a refactor elsewhere.
KEPT_TORCH_FRAMES = 12


def normalize_message(message):
    """The message without what varies between runs of the same failure."""
    message = ADDRESS.sub("0x<addr>", message)
    message = TMP_PATH.sub("<tmp>", message)
    message = HEX_HASH.sub("<hash>", message)
    message = SHAPE_SYMBOL.sub(lambda match: match.group(1) + "N", message)
    message = FAKE_TENSOR.sub("FakeTensor(...)", message)
    return message.strip()


def exception_chain(error):
    """error, then each exception it wraps, innermost last.

    Inductor keeps the original error in `inner_exception`; otherwise `raise ... from` sets
    __cause__ and raising while handling sets __context__. A context hidden by `from None` is
    still followed: it is the error torch translated, and often names the real cause.
    """
    chain = []
    while error is not None and not any(error is seen for seen in chain):
        chain.append(error)
        inner = getattr(error, "inner_exception", None)
        if not isinstance(inner, BaseException):
            inner = error.__cause__ or error.__context__
        error = inner
    return chain


def qualified_type(error):
    return f"{type(error).__module__}.{type(error).__qualname__}"


def message_of(error):
    try:
        return str(error)
    except Exception as failure:  # an exception whose __str__ fails still needs describing
        return f"<str() of {type(error).__name__} raised {type(failure).__name__}>"


def default_torch_root():
    import torch

    return os.path.dirname(torch.__file__) + os.sep


def torch_frames(error, torch_root):
    """The frames of error's traceback inside torch, outermost first, as "path.py:function"
    relative to torch's folder: no line numbers, which move with every torch release."""
    return [
        f"{os.path.relpath(frame.filename, torch_root)}:{frame.name}"
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename.startswith(torch_root)
    ]


def describe_exception(error, torch_root=None):
    torch_root = torch_root or default_torch_root()
    message = message_of(error)
    chain = exception_chain(error)
    innermost = chain[-1]
    innermost_message = message_of(innermost)
    innermost_frames = torch_frames(innermost, torch_root)
    described = {
        "type": qualified_type(error),
        "message": message,
        "normalized_message": normalize_message(message.splitlines()[0] if message else ""),
        "torch_frames": torch_frames(error, torch_root)[-KEPT_TORCH_FRAMES:],
        "chain": [qualified_type(e) for e in chain],
        "innermost": {
            "type": qualified_type(innermost),
            "message": innermost_message,
            "normalized_message": normalize_message(
                innermost_message.splitlines()[0] if innermost_message else ""
            ),
            # Always a string, "" when torch is not on its traceback: readers need no null.
            "frame": innermost_frames[-1] if innermost_frames else "",
        },
    }
    try:
        from torch._inductor.exc import CppCompileError
    except ImportError:  # a torch without Inductor has no compile errors to describe
        CppCompileError = ()
    for inner in chain:
        if isinstance(inner, CppCompileError):
            argv, output = compile_error_parts(inner)
            described["compile_error"] = {"argv": argv, "output": output}
            break
    return described


def classify_exception(described):
    """The expect.raises class the described exception belongs to, or None."""
    text = " ".join([described["message"], described["innermost"]["message"], *described["chain"]])
    for name, pattern in EXPECTED_EXCEPTION_CLASSES.items():
        if pattern.search(text):
            return name
    return None
