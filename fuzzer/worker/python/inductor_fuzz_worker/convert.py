"""A user's own module of flex-attention mask/score functions, made into the pieces of a case.

A case must run without the module it came from (in the worker, in a repro script, elsewhere),
so every function its mask_mod and score_mod reach is copied as source; every value they close
over or read as a global becomes a constant, a captured tensor or a literal line; every module
they use, an import line. All of it ends up in one scope (oracles.build_namespace, the one way a
case's functions are defined), which is why a name may mean only one thing across them.
"""

import ast
import builtins
import dis
import importlib.util
import inspect
import itertools
import linecache
import numbers
import os
import re
import sys
import textwrap
import types

from .oracles import CAPTURED_DTYPES as TENSOR_DTYPES
from .oracles import build_namespace, function_of

FLEX_MODULE = "torch.nn.attention.flex_attention"
COMBINATORS = {"and_mask": "and_masks", "or_mask": "or_masks"}
PROVIDED = ("torch", "and_masks", "or_masks")  # build_namespace puts these in every scope
_module_numbers = itertools.count()


def build_functions(converted):
    """(mask_fn, score_fn) of a converted module or a case (None for a function it lacks),
    defined exactly as the worker and the repro script define a case's functions."""
    namespace = build_namespace(converted)
    return function_of(namespace, converted, "mask_mod"), function_of(
        namespace, converted, "score_mod"
    )


def convert_module(path, mask_name=None, score_name=None):
    """{"mask_mod": {"name", "source"} or None, "score_mod": the same, "constants": {name:
    int|float|bool}, "tensors": [{"name", "dtype", "shape", "values"}], "warnings": [line]}.
    Raises ValueError (one line: what is wrong, what to do) when the module cannot be
    imported, a name is missing or no function, or the functions cannot share one scope."""
    if not mask_name and not score_name:
        raise ValueError("name a mask_mod or a score_mod (or both) to convert")
    module = _import_file(path)
    try:
        collector, roots = _Collector(module.__name__), {}
        for key, name in (("mask_mod", mask_name), ("score_mod", score_name)):
            if not name:
                continue
            if not hasattr(module, name):
                raise ValueError(f"{path} defines no {name!r}: pass the name of its {key}")
            value = getattr(module, name)
            if not callable(value):
                raise ValueError(
                    f"{name!r} in {path} is not a function but of type {type(value).__name__}: "
                    f"pass the name of its {key}"
                )
            roots[key] = (name, collector.root(name, value))
        converted = collector.result(roots)
        if calls_aoti(path):
            converted["compile_with"] = "aoti"
        return converted
    finally:
        sys.modules.pop(module.__name__, None)


AOTI_ENTRY = "aoti_compile_and_package"


def calls_aoti(path):
    """Whether the module's text calls torch._inductor.aoti_compile_and_package (by any path
    or alias): its functions are then compiled with AOTInductor, and so is the case."""
    with open(path, encoding="utf-8", errors="replace") as source:
        try:
            tree = ast.parse(source.read(), path)
        except SyntaxError:
            return False
    aliases = {AOTI_ENTRY}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            aliases |= {a.asname for a in node.names if a.name == AOTI_ENTRY and a.asname}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            function = node.func
            name = (
                function.attr
                if isinstance(function, ast.Attribute)
                else getattr(function, "id", None)
            )
            if name in aliases:
                return True
    return False


def _import_file(path):
    """A fresh module of the file, its folder importable only while it runs."""
    path, name = os.path.abspath(path), f"_inductor_fuzz_convert_{next(_module_numbers)}"
    folder = os.path.dirname(path)
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None:
            raise ImportError("not a Python source file")
        module = sys.modules[name] = importlib.util.module_from_spec(spec)
        sys.path.insert(0, folder)
        try:
            spec.loader.exec_module(module)
        finally:
            sys.path.remove(folder)
    except (Exception, SystemExit) as error:
        sys.modules.pop(name, None)
        raise ValueError(
            f"cannot import {path}: {type(error).__name__}: {' '.join(str(error).split())} "
            "(fix the module so that it imports on its own)"
        ) from error
    return module


def _is_stdlib(module_name):
    return module_name.split(".")[0] in sys.stdlib_module_names


def _is_installed(filename):
    return bool({"site-packages", "dist-packages"} & set(os.path.abspath(filename).split(os.sep)))


def _importable_as(value, skip_module):
    """(module, attribute) that `from module import attribute` gives `value` back from."""
    name = getattr(value, "__name__", None)
    for module_name in (getattr(value, "__module__", None), "torch", "torch.nn.functional"):
        module = sys.modules.get(module_name) if module_name != skip_module else None
        if isinstance(name, str) and getattr(module, name, None) is value:
            return module_name, name
    return None


def _literal(value):
    """value's repr if evaluating it gives value back (no sets: their order varies)."""

    def plain(v):
        if type(v) is dict:
            return all(plain(k) and plain(x) for k, x in v.items())
        if type(v) in (tuple, list):
            return all(map(plain, v))
        return type(v) in (str, bytes, int, float, complex, bool, type(None))

    try:
        return repr(value) if plain(value) and ast.literal_eval(repr(value)) == value else None
    except (ValueError, SyntaxError):
        return None


def _global_loads(code):
    """Names the code (or code nested in it) reads as globals, in first-read order."""
    loads = ("LOAD_GLOBAL", "LOAD_NAME")
    names = {i.argval: None for i in dis.get_instructions(code) if i.opname in loads}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.update(dict.fromkeys(_global_loads(const)))
    return list(names)


def _mask_mods(combined):
    """The functions and_masks/or_masks combined, from the closure of what they returned."""
    return combined.__closure__[combined.__code__.co_freevars.index("mask_mods")].cell_contents


def _cell_value(fn, index):
    try:
        return fn.__closure__[index].cell_contents
    except ValueError:
        name = fn.__code__.co_freevars[index]
        raise ValueError(f"{fn.__name__} closes over {name}, which has no value yet") from None


class _Collector:
    """Walks what the roots reach. A node is one value the case needs (a function, a
    combinator, a constant, a tensor, an import, a literal), keyed by what makes it that
    value; a binding is a name the functions use for a node, one node per name."""

    def __init__(self, module_name):
        import torch
        from torch.nn.attention import flex_attention as flex

        self.torch, self.module_name = torch, module_name
        self.nodes, self.bindings, self.def_names, self.warnings = {}, {}, {}, []
        self.order = []  # function and combinator keys, callees before callers
        for name, value in zip(PROVIDED, (torch, flex.and_masks, flex.or_masks), strict=False):
            self.bindings[name] = self.visit(value, name)

    def root(self, name, value):
        key = self.visit(value, name)
        if key[0] not in ("function", "combinator", "from"):
            raise ValueError(
                f"{name!r} is a callable {type(value).__name__}, which a case cannot hold: "
                "pass the name of a function"
            )
        self.bind(name, key)
        return key

    def bind(self, name, key):
        old = self.bindings.setdefault(name, key)
        if old != key:
            raise ValueError(
                f"the name {name!r} is {self.nodes[old]['what']} in one function and "
                f"{self.nodes[key]['what']} in another, but a case's functions share one "
                "scope: give the factories' parameters (or the globals) different names"
            )

    def key_of(self, value, stack=()):
        """What makes two values one node: two closures of one factory over equal values
        are one function, two tensors with equal contents one tensor."""
        torch = self.torch
        if isinstance(value, torch.Tensor):
            flat = value.detach().cpu().reshape(-1)
            if value.dtype in (torch.float16, torch.bfloat16):
                flat = flat.float()  # exact: both widen to float32 without rounding
            dtype = str(value.dtype).replace("torch.", "")
            return ("tensor", dtype, tuple(value.shape), tuple(flat.tolist()), value.device.type)
        if isinstance(value, bool):
            return ("constant", "bool", value)
        if isinstance(value, numbers.Integral):
            return ("constant", "int", int(value))
        if isinstance(value, numbers.Real):
            return ("constant", "float", repr(float(value)))  # repr: -0.0 and nan are values too
        if isinstance(value, torch.dtype):
            return ("literal", str(value))
        if isinstance(value, types.ModuleType):
            mine = value.__name__ == self.module_name
            return ("other", id(value)) if mine else ("module", value.__name__)
        if isinstance(value, types.FunctionType):
            code, top = value.__code__, (value.__module__ or "").split(".")[0]
            if value.__module__ == FLEX_MODULE and code.co_name in COMBINATORS:
                children = tuple(self.key_of(f, stack) for f in _mask_mods(value))
                return ("combinator", COMBINATORS[code.co_name], children)
            if top != "torch" and not _is_stdlib(top) and not _is_installed(code.co_filename):
                if id(value) in stack:
                    return ("function", id(code), "recursive")
                stack += (id(value),)
                cells = [_cell_value(value, i) for i in range(len(code.co_freevars))]
                return ("function", id(code), tuple(self.key_of(v, stack) for v in cells))
        path = _importable_as(value, self.module_name)
        if path is not None:
            return ("from",) + path
        text = _literal(value)
        return ("literal", text) if text is not None else ("other", id(value))

    def visit(self, value, name, reader="the case"):
        key = self.key_of(value)
        if key in self.nodes:
            return key
        kind = key[0]
        node = self.nodes[key] = {"what": f"{type(value).__name__} {name}"}
        if kind == "constant":
            node["value"] = float(key[2]) if key[1] == "float" else key[2]
            node["what"] = repr(node["value"])
        elif kind == "tensor":
            dtype, shape, device = key[1], list(key[2]), key[4]
            if device != "cpu" or dtype not in TENSOR_DTYPES:
                raise ValueError(
                    f"the tensor {name} is {dtype} on {device}, but a case holds only CPU "
                    f"tensors of {', '.join(TENSOR_DTYPES)}: convert it"
                )
            node["entry"] = {"dtype": dtype, "shape": shape, "values": list(key[3])}
            node["what"] = f"a {dtype} tensor of shape {shape}"
        elif kind == "literal":
            node["what"] = node["text"] = key[1]
        elif kind in ("module", "from"):
            node["what"], top = " ".join(key), key[1].split(".")[0]
            if top != "torch" and not _is_stdlib(top):
                self.warnings.append(
                    f"the case imports {top}, which is not part of torch or the standard "
                    f"library: it will run only where {top} is installed"
                )
        elif kind == "other":
            self.warnings.append(
                f"{name}, which {reader} reads, is a {type(value).__name__}, which a case "
                f"cannot hold: the case will not be self-contained ({name} is left undefined)"
            )
        elif kind == "combinator":
            node.update(combinator=key[1], stem=value.__code__.co_name, what=f"{key[1]}(...)")
            node["children"] = [self._visit_mask(f, key[1]) for f in _mask_mods(value)]
            self.order.append(key)
        else:
            self._visit_function(node, key, value)
        return key

    def _visit_mask(self, mask_mod, combinator):
        key = self.visit(mask_mod, getattr(mask_mod, "__name__", "mask_mod"))
        if key[0] == "from":
            self.bind(key[2], key)  # an imported mask_mod goes by its own name
        elif key[0] not in ("function", "combinator"):
            raise ValueError(
                f"{combinator} of a {type(mask_mod).__name__} cannot be converted: "
                "combine plain functions"
            )
        return key

    def _visit_function(self, node, key, fn):
        code = fn.__code__
        node["base"] = None if code.co_name == "<lambda>" else code.co_name
        node["stem"], node["what"] = node["base"] or "lambda_mod", f"function {fn.__name__}"
        node["source"], header_names = self._source(fn)
        references = [(n, _cell_value(fn, i)) for i, n in enumerate(code.co_freevars)]
        for name in _global_loads(code) + header_names:
            if name in fn.__globals__:
                references.append((name, fn.__globals__[name]))
            elif not hasattr(builtins, name):
                self.warnings.append(f"{fn.__name__} reads {name}, which its module lacks")
        node["refs"] = []
        for name, value in references:
            if name != "__class__" and name not in dict(node["refs"]):
                node["refs"].append((name, self.visit(value, name, fn.__name__)))
                self.bind(*node["refs"][-1])
        self.order.append(key)

    def _source(self, fn):
        """The function's own definition, dedented, and the global names its header (default
        values, annotations) reads when the definition runs."""
        code = fn.__code__
        if code.co_name == "<lambda>":
            return _lambda_source(code, fn.__globals__), []
        try:
            text = textwrap.dedent("".join(inspect.getsourcelines(fn)[0]))
            definition = ast.parse(text).body[0]
        except (OSError, TypeError, SyntaxError) as error:
            raise ValueError(
                f"cannot read the source of {fn.__name__} ({error}): define it in a .py file"
            ) from error
        if definition.decorator_list:
            self.warnings.append(f"the decorators of {fn.__name__} are left out of the case")
            text = "".join(text.splitlines(keepends=True)[definition.lineno - 1 :])
        header = [definition.args] + ([definition.returns] if definition.returns else [])
        names = [n.id for part in header for n in ast.walk(part) if isinstance(n, ast.Name)]
        return text.rstrip() + "\n", list(dict.fromkeys(names))

    def result(self, roots):
        """Names every function (its own if free, else a name it is already called by, else
        its own with a suffix), then writes each root's source."""
        used = set()
        for key in self.order:
            node, bound = self.nodes[key], [n for n, k in self.bindings.items() if k == key]
            base = node.get("base")
            if base and self.bindings.get(base, key) == key and base not in used:
                name = base
            elif bound and bound[0] not in used:
                name = bound[0]
            else:
                stem = node["stem"]
                candidates = itertools.chain([stem], (f"{stem}_{i}" for i in itertools.count(2)))
                name = next(n for n in candidates if n not in self.bindings and n not in used)
            used.add(name)
            self.def_names[key] = name
        out = {"mask_mod": None, "score_mod": None, "constants": {}, "tensors": []}
        for key, (name, root_key) in roots.items():
            out[key] = {"name": name, "source": self._emit(name, root_key, out)}
        out["warnings"] = list(dict.fromkeys(self.warnings))
        return out

    def _emit(self, root_name, root_key, out):
        """One root's source: imports and literals, then every function it reaches, callees
        first, each followed by the other names it goes by."""
        reached, edges = [], [(root_name, root_key)]

        def walk(key):
            if key not in reached:
                reached.append(key)
                node = self.nodes[key]
                children = [(c[2], c) for c in node.get("children", ()) if c[0] == "from"]
                edges.extend(node.get("refs", []) + children)
                for ref in [k for _, k in node.get("refs", ())] + node.get("children", []):
                    walk(ref)

        walk(root_key)
        header, literals, aliases = [], [], {}
        for name, key in edges:
            node, kind = self.nodes[key], key[0]
            if name in PROVIDED:
                continue
            if kind == "constant":
                out["constants"].setdefault(name, node["value"])
            elif kind == "tensor" and all(t["name"] != name for t in out["tensors"]):
                out["tensors"].append({"name": name, **node["entry"]})
            elif kind == "literal":
                literals.append(f"{name} = {node['text']}")
            elif kind == "module":
                header.append(f"import {key[1]}" + ("" if name == key[1] else f" as {name}"))
            elif kind == "from":
                alias = "" if name == key[2] else f" as {name}"
                header.append(f"from {key[1]} import {key[2]}{alias}")
            elif kind in ("function", "combinator") and name != self.def_names[key]:
                aliases.setdefault(key, {})[f"{name} = {self.def_names[key]}"] = None
        lines = list(dict.fromkeys(header)) + list(dict.fromkeys(literals))
        blocks = ["\n".join(lines)] if lines else []
        for key in [k for k in self.order if k in reached]:
            node, name = self.nodes[key], self.def_names[key]
            if key[0] == "combinator":
                children = ", ".join(self.def_names.get(c, c[-1]) for c in node["children"])
                text = f"{name} = {node['combinator']}({children})"
            elif node["base"] is None:  # a lambda: in brackets if it spans lines
                lambda_text = node["source"]
                text = f"{name} = " + (f"({lambda_text})" if "\n" in lambda_text else lambda_text)
            else:
                pattern = rf"^((?:async\s+)?def\s+){node['base']}\b"
                text = re.sub(pattern, rf"\g<1>{name}", node["source"].rstrip(), count=1)
            if key in aliases:
                text += "\n\n\n" + "\n".join(aliases[key])
            blocks.append(text)
        return "\n\n\n".join(blocks) + "\n"


def _lambda_source(code, module_globals):
    """The lambda expression's own text, found in its file's syntax tree by line and
    arguments (and by column when two lambdas on one line take the same arguments)."""
    text = "".join(linecache.getlines(code.co_filename, module_globals))
    arguments = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    candidates = [
        node
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Lambda)
        and node.lineno == code.co_firstlineno
        and [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
        == arguments
    ]
    if len({ast.get_source_segment(text, node) for node in candidates}) > 1:
        columns = [p[2] for p in code.co_positions() if p[0] == code.co_firstlineno and p[2]]
        before = [node for node in candidates if columns and node.col_offset <= min(columns)]
        candidates = sorted(before, key=lambda node: node.col_offset)[-1:]
    texts = {ast.get_source_segment(text, node) for node in candidates}
    if len(texts) != 1:
        raise ValueError(
            f"cannot find the source of the lambda on line {code.co_firstlineno} of "
            f"{code.co_filename}: define it with def"
        )
    return texts.pop()
