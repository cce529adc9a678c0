"""Every difference between the torch releases the worker runs on, 2.6 to 2.15, in one place.

Each difference names the releases it applies to. Nothing else in the worker (or in a repro
script, which carries this module) asks which release it is on. This module imports nothing
from its package: the repro script pastes it in as it is.
"""

# The releases the worker supports: flex_attention compiles for CPU since 2.6.
OLDEST_RELEASE = (2, 6)
NEWEST_RELEASE = (2, 15)

# What the worker needs from torch in every supported release: (what, module, attribute path).
REQUIRED_APIS = (
    ("flex_attention", "torch.nn.attention.flex_attention", "flex_attention"),
    ("create_block_mask", "torch.nn.attention.flex_attention", "create_block_mask"),
    ("create_mask", "torch.nn.attention.flex_attention", "create_mask"),
    ("Inductor's compile-command hook", "torch._inductor.cpp_builder", "_run_compile_cmd"),
    ("Inductor's C++ command builder", "torch._inductor.cpp_builder", "CppBuilder"),
    ("Inductor's vector ISA probe", "torch._inductor.cpu_vec_isa", "pick_vec_isa"),
    (
        "Inductor's Python-bindings loader",
        "torch._inductor.codecache",
        "CppPythonBindingsCodeCache.load_pybinding_async",
    ),
    ("the cpp_wrapper handle API", "torch._C", "_aoti.unsafe_alloc_void_ptrs_from_tensors"),
)

# Inductor's in-memory cache reset: (releases, module, function).
CACHE_RESETS = (
    (((2, 8), NEWEST_RELEASE), "torch._inductor.utils", "clear_caches"),
    ((OLDEST_RELEASE, (2, 7)), "torch._inductor.utils", "clear_inductor_caches"),
)

# How a kernel TU includes Inductor's prefix header: installed with torch's headers since 2.8;
# before, Inductor copied torch/_inductor/codegen/cpp_prefix.h into its cache and included the
# copy by its absolute path (the file itself is the same to include).
PREFIX_HEADER_INSTALLED_SINCE = (2, 8)


def prefix_header_include():
    """The #include line that brings Inductor's prefix header into a kernel TU."""
    import os

    import torch

    if release_of(torch.__version__) >= PREFIX_HEADER_INSTALLED_SINCE:
        return "#include <torch/csrc/inductor/cpp_prefix.h>"
    header = os.path.join(os.path.dirname(torch.__file__), "_inductor", "codegen", "cpp_prefix.h")
    return f'#include "{header}"'


# CppCompileError keeps its command and the compiler's output as attributes since 2.9; before,
# only in its message, laid out as "C++ compile error\n\nCommand:\n...\n\nOutput:\n...".
COMPILE_ERROR_ATTRIBUTES_SINCE = (2, 9)


def compile_error_parts(error):
    """(argv, compiler output) of an Inductor CppCompileError, on every release."""
    import shlex

    if hasattr(error, "cmd"):
        return list(error.cmd), error.output
    text = str(error)
    command_at, output_at = text.find("Command:\n"), text.find("\n\nOutput:\n")
    if command_at < 0 or output_at < command_at:
        return [], text
    command = text[command_at + len("Command:\n") : output_at]
    try:
        argv = shlex.split(command)
    except ValueError:
        argv = command.split()
    return argv, text[output_at + len("\n\nOutput:\n") :]


# Dynamo before 2.14 reads a traced function's globals by importing the module their "__name__"
# names (import_source); 2.14 and later do so only for a module registered in sys.modules, and
# read any other globals dict by its identity. A case's functions live in a plain dict (one per
# call of a call sequence, so registering one module would mix the calls' globals up): before
# 2.14 that dict has no "__name__", so Dynamo reads it by identity there too.
NAMED_CASE_GLOBALS_SINCE = (2, 14)


def case_globals(name):
    """A new globals dict for a case's functions, named `name` where Dynamo allows it."""
    import torch

    if release_of(torch.__version__) >= NAMED_CASE_GLOBALS_SINCE:
        return {"__name__": name}
    return {}


# torch._inductor.config entries a case's patch may hold that some supported releases lack:
# key -> the first release that has it. A key a release lacks is left out of the patch, and the
# case's result says so ("config_absent"): there is nothing in that release to set.
CONFIG_SINCE = {
    "cpp_cache_precompile_headers": (2, 8),
    "aot_inductor.precompile_headers": (2, 8),
}


# torch._inductor.config entries whose values a release before `since` spells differently:
# key -> (since, {the case's value: that release's}). cpp.enable_floating_point_contract_flag
# takes "off", "on" or "fast" since 2.7 (pytorch#143450); before, a bool, False meaning
# -ffp-contract=off, True the compiler's own contraction.
CONFIG_VALUES_BEFORE = {
    "cpp.enable_floating_point_contract_flag": ((2, 7), {"off": False, "on": True, "fast": True}),
}


def release_of(version):
    """(major, minor) of a torch version string: "2.14.1+cu130" -> (2, 14)."""
    parts = version.split("+")[0].split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return (0, 0)


def _resolve(module_name, path):
    import importlib

    value = importlib.import_module(module_name)
    for part in path.split("."):
        value = getattr(value, part)
    return value


def unsupported_reasons():
    """Why the torch this process imports cannot run the worker: [] when it can."""
    import torch

    release = release_of(torch.__version__)
    supported = (
        f"{OLDEST_RELEASE[0]}.{OLDEST_RELEASE[1]} to {NEWEST_RELEASE[0]}.{NEWEST_RELEASE[1]}"
    )
    reasons = []
    if not OLDEST_RELEASE <= release <= NEWEST_RELEASE:
        reasons.append(f"torch {torch.__version__} is outside the supported releases ({supported})")
    for what, module_name, path in REQUIRED_APIS:
        try:
            _resolve(module_name, path)
        except (ImportError, AttributeError):
            reasons.append(f"{what} ({module_name}.{path}) is missing")
    return reasons


def clear_inductor_caches():
    """Clears Inductor's registered in-memory caches, by the name this release gives it."""
    import torch

    release = release_of(torch.__version__)
    for (first, last), module_name, name in CACHE_RESETS:
        if first <= release <= last:
            return _resolve(module_name, name)()
    raise RuntimeError(f"no Inductor cache reset is known for torch {torch.__version__}")


def _has_config(config, key):
    value = config
    for part in key.split("."):
        if not hasattr(value, part):
            return False
        value = getattr(value, part)
    return True


def split_config(inductor_config):
    """(the patch this release can apply, the keys it lacks), from a case's complete patch."""
    import torch
    from torch._inductor import config

    present = {key: value for key, value in inductor_config.items() if _has_config(config, key)}
    release = release_of(torch.__version__)
    for key, (since, spelled) in CONFIG_VALUES_BEFORE.items():
        if key in present and release < since and present[key] in spelled:
            present[key] = spelled[present[key]]
    absent = sorted(key for key in inductor_config if key not in present)
    return present, absent
