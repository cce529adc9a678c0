"""Patching torch: the only code that touches torch._inductor.

install() puts a finder first on sys.meta_path that patches torch._inductor.codecache (C++ is
rewritten before it is written and compiled) and torch._inductor.lowering (a bug's lowerings
raise) right after each is first imported, or patches them at once if they already are. The
package imports torch only inside patch_lowering, which runs once Inductor's lowering has been.
"""

import importlib.abc
import sys

from .bugs import MARK
from .runtime import BUGS, case_context, fire, rewrite_source, selected


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
